"""nn.modules.flatten."""

__all__: list = []
