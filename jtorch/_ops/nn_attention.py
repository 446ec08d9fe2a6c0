"""nn.functional ops: attention."""
