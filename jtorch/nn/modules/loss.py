"""nn.modules.loss."""

__all__: list = []
