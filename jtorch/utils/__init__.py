"""torch.utils."""

from .._core.errors import torch_name_fallback
from . import checkpoint, data, dlpack, hooks, safetensors, weak  # noqa: F401
from ._swap import swap_tensors  # noqa: F401


def set_module(obj, mod):
    """Set ``obj.__module__`` to ``mod`` (a string), as ``torch.utils.set_module``."""
    if not isinstance(mod, str):
        raise TypeError("The mod argument should be a string")
    obj.__module__ = mod

# a name PyTorch has here and jtorch lacks raises NotImplementedError naming it
__getattr__ = torch_name_fallback("torch.utils")
