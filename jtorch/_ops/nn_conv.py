"""nn.functional ops: conv."""
