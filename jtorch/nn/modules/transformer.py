"""nn.modules.transformer."""

__all__: list = []
