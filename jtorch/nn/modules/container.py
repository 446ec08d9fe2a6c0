"""nn.modules.container."""

__all__: list = []
