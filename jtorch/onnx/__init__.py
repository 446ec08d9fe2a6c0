"""``torch.onnx``: ``export`` writes a real ONNX model (see docs/export.md): the module traced
once by JAX, its jaxpr written with ``onnx.helper``. Needs ``pip install jtorch[onnx]`` (onnx,
and onnxruntime to run an ONNXProgram). A public name of PyTorch's ``torch.onnx`` that jtorch
lacks raises NotImplementedError naming it.
"""

from .._core.errors import torch_name_fallback
from ._export import (
    ONNXProgram as ONNXProgram,
    TrainingMode as TrainingMode,
    export as export,
    is_in_onnx_export as is_in_onnx_export,
)

__all__ = ["ONNXProgram", "TrainingMode", "export", "is_in_onnx_export"]

# a name PyTorch has here and jtorch lacks raises NotImplementedError naming it
__getattr__ = torch_name_fallback("torch.onnx")
