"""nn.functional ops: linear."""
