"""nn.modules.batchnorm."""

__all__: list = []
