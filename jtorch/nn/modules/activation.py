"""nn.modules.activation."""

__all__: list = []
