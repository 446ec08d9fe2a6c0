"""torch.utils."""

from .._core.errors import torch_name_fallback
from . import checkpoint, data, dlpack, hooks, safetensors  # noqa: F401
from ._swap import swap_tensors  # noqa: F401

# a name PyTorch has here and jtorch lacks raises NotImplementedError naming it
__getattr__ = torch_name_fallback("torch.utils")
