"""nn.functional ops: pad."""
