"""nn.modules.attention."""

__all__: list = []
