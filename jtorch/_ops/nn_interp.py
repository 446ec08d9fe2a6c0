"""nn.functional ops: interp."""
