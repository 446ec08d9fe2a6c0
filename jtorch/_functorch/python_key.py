"""torch._functorch.python_key: ``functorch.make_fx``'s import (FX graphs are not part of
jtorch)."""

from .._core.errors import not_implemented


def make_fx(*args, **kwargs):
    raise not_implemented("functorch.make_fx (torch.fx.experimental.proxy_tensor.make_fx)")
