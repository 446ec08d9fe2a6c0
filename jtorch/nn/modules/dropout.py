"""nn.modules.dropout."""

__all__: list = []
