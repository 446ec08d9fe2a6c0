"""nn.utils.stateless."""
