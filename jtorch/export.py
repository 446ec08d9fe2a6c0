"""``torch.export``: not implemented in jtorch yet.

The module exists so that programs importing it at the top (``import torch.export``) run; every
public name of PyTorch's ``torch.export`` raises NotImplementedError naming it.
"""

from ._core.errors import torch_name_fallback

# a name PyTorch has here and jtorch lacks raises NotImplementedError naming it
__getattr__ = torch_name_fallback("torch.export")
