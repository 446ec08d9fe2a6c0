"""nn.utils.parametrize."""
