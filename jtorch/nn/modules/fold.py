"""nn.modules.fold."""

__all__: list = []
