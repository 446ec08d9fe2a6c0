"""nn.modules.distance."""

__all__: list = []
