"""nn.functional ops: norm."""
