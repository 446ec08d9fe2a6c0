"""nn.modules.pooling."""

__all__: list = []
