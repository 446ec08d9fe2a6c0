"""torch.fx.experimental: ``proxy_tensor``'s names that libraries check at run time (jtorch has
no FX tracing)."""

from . import proxy_tensor as proxy_tensor
