"""nn.modules.padding."""

__all__: list = []
