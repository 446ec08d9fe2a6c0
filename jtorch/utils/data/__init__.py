"""torch.utils.data."""
