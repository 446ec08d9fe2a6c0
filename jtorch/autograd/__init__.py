"""jtorch.autograd: backward, grad, grad modes, Function and functional transforms."""

from __future__ import annotations

import types
import warnings

from .._core import dtypes
from .._core.errors import MissingModule, torch_name_fallback
from .._core.graph import Node, run_backward
from .._core.tensor_base import TensorBase
from . import functional, graph
from .function import Function, FunctionCtx, once_differentiable
from .grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .gradcheck import gradcheck, gradgradcheck
from .gradients import backward, grad


class set_detect_anomaly:  # noqa: N801 - PyTorch's name
    """Accepted for compatibility; jtorch's errors already name the failing op."""

    def __init__(self, mode=True, check_nan=True):
        self.mode = mode
        self.check_nan = check_nan

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


detect_anomaly = set_detect_anomaly


def is_anomaly_enabled():
    return False


def is_anomaly_check_nan_enabled():
    return False


forward_ad = MissingModule("torch.autograd.forward_ad")


class _VariableMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, TensorBase)


class Variable(metaclass=_VariableMeta):
    """The legacy ``torch.autograd.Variable``: ``Variable(t)`` returns the Tensor ``t``."""

    def __new__(cls, data, requires_grad=False, volatile=False):
        if requires_grad:
            data.requires_grad_(True)
        return data


__all__ = ["backward", "grad", "Function", "FunctionCtx", "once_differentiable", "no_grad",
           "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
           "is_inference_mode_enabled", "functional", "graph", "Node", "set_detect_anomaly",
           "detect_anomaly", "Variable", "gradcheck", "gradgradcheck", "forward_ad"]

# a name PyTorch has here and jtorch lacks raises NotImplementedError naming it
__getattr__ = torch_name_fallback("torch.autograd")
