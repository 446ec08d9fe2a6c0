"""nn.functional ops: embedding."""
