"""torch.optim.lr_scheduler."""
