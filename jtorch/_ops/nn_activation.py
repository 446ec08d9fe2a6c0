"""nn.functional ops: activation."""
