"""nn.modules.sparse."""

__all__: list = []
