"""nn.utils.clip_grad."""
