"""nn.modules.normalization."""

__all__: list = []
