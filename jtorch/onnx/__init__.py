"""``torch.onnx``: not implemented in jtorch yet.

The module exists so that programs importing it at the top (``import torch.onnx``) run; every
public name of PyTorch's ``torch.onnx`` raises NotImplementedError naming it.
"""

from ._core.errors import torch_name_fallback

# a name PyTorch has here and jtorch lacks raises NotImplementedError naming it
__getattr__ = torch_name_fallback("torch.onnx")
