"""nn.modules.pixelshuffle."""

__all__: list = []
