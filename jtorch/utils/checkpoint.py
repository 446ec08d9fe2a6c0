"""torch.utils.checkpoint."""
