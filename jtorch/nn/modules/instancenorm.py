"""nn.modules.instancenorm."""

__all__: list = []
