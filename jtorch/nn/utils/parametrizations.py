"""nn.utils.parametrizations."""
