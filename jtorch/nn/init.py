"""torch.nn.init."""
