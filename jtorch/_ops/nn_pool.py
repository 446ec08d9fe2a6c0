"""nn.functional ops: pool."""
