"""nn.utils.convert_parameters."""
