"""jtorch.autograd: backward, grad, grad modes, Function and functional transforms."""

from __future__ import annotations

import types
import warnings

from .._core import dtypes
from .._core.errors import MissingModule, torch_name_fallback
from .._core.graph import Node, run_backward
from . import anomaly_mode, forward_ad, functional, graph, profiler, profiler_util, variable
from ._profiler_activity import ProfilerActivity, kineto_available
from .anomaly_mode import (
    detect_anomaly,
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    set_anomaly_enabled,
    set_detect_anomaly,
)
from .function import Function, FunctionCtx, once_differentiable
from .grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    is_multithreading_enabled,
    no_grad,
    set_grad_enabled,
    set_multithreading_enabled,
)
from .gradcheck import gradcheck, gradgradcheck
from .gradients import backward, grad
from .profiler_util import DeviceType
from .variable import Variable

__all__ = ["backward", "grad", "Function", "FunctionCtx", "once_differentiable", "no_grad",
           "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
           "is_inference_mode_enabled", "is_multithreading_enabled",
           "set_multithreading_enabled", "functional", "graph", "Node", "set_detect_anomaly",
           "detect_anomaly", "anomaly_mode", "Variable", "gradcheck", "gradgradcheck", "forward_ad",
           "profiler", "profiler_util", "DeviceType", "ProfilerActivity", "kineto_available",
           "variable"]

# a name PyTorch has here and jtorch lacks raises NotImplementedError naming it
__getattr__ = torch_name_fallback("torch.autograd")
