"""nn.modules.upsampling."""

__all__: list = []
