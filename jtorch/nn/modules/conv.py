"""nn.modules.conv."""

__all__: list = []
