"""nn.modules.linear."""

__all__: list = []
