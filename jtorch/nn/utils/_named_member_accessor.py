"""torch.nn.utils._named_member_accessor.swap_tensor (tensordict's ``to_module`` swaps
parameters with it): put a tensor at ``module.<name>`` and return what was there."""

from __future__ import annotations

from ..modules.module import Module
from .stateless import _MISSING, _swap_tensor

__all__ = ["_MISSING", "swap_tensor"]


def swap_tensor(module, name, tensor, allow_missing=False):
    """Set ``module.<name>`` (a parameter, buffer or plain attribute; ``_MISSING`` deletes it)
    to ``tensor`` and return the previous value, with PyTorch's checks and messages."""
    if not isinstance(module, Module):
        raise TypeError(f"{module} is not an instance of torch.nn.Module")
    if "." in name:
        raise KeyError('tensor name can\'t contain "."')
    if name == "":
        raise KeyError('tensor name can\'t be empty string ""')
    if not (allow_missing or name in module._parameters or name in module._buffers
            or hasattr(module, name)):
        raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
    return _swap_tensor(module, name, tensor)
