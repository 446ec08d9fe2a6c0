"""nn.functional ops: loss."""
