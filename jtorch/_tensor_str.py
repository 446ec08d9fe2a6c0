"""Printing tensors in PyTorch's format. (Placeholder, replaced by the full formatter.)"""

from __future__ import annotations

import numpy as np

_TYPE = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
         "int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
         "bool": "Bool", "complex64": "ComplexFloat", "complex128": "ComplexDouble"}


def type_name(t):
    prefix = "torch.cuda." if t.device.type == "cuda" else "torch."
    return f"{prefix}{_TYPE[t.dtype.name]}Tensor"


def tensor_repr(t):
    body = np.array2string(np.asarray(t._value), separator=", ")
    extra = ""
    if t._node is not None:
        extra = f", grad_fn=<{t._node.name()}>"
    elif t._rg:
        extra = ", requires_grad=True"
    return f"tensor({body}{extra})"
