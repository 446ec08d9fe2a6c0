"""nn.functional ops: dropout."""
