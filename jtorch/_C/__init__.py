"""``torch._C``: the few bindings of PyTorch's C extension that Python libraries reach directly
(Lightning, torchmetrics). jtorch has no C extension; these are its Python equivalents. Any
other name is Python's AttributeError, so ``hasattr(torch._C, name)`` feature checks see it
as absent."""

from __future__ import annotations

from .._core.generator import Generator
from .._core.graph import (
    current_graph_task_id as _current_graph_task_id,
    will_engine_execute_node as _will_engine_execute_node,
)
from .._core.torch_function import (
    DisableTorchFunction,
    DisableTorchFunctionSubclass,
    _disabled_torch_function_impl,
)
from .._tensor import Tensor
from ..func._core import transforms_active as _are_functorch_transforms_active
from . import _distributed_rpc, _fft, _functorch, _linalg, _nn, _special

__all__ = ["DisableTorchFunction", "DisableTorchFunctionSubclass", "Generator", "_TensorMeta",
           "_are_functorch_transforms_active", "_disabled_torch_function_impl",
           "_current_graph_task_id", "_get_privateuse1_backend_name", "_get_tracing_state",
           "_distributed_rpc", "_fft", "_functorch", "_linalg", "_log_api_usage_once", "_nn",
           "_special",
           "_will_engine_execute_node", "Value"]

# the metaclass of torch.Tensor (``type(torch.Tensor)``), as annotations and checks name it
_TensorMeta = type(Tensor)


def _log_api_usage_once(event: str) -> None:
    """PyTorch's API-usage logging hook (a no-op unless a C++ logger is installed)."""
    return None


def _get_tracing_state() -> None:
    """The TorchScript tracer's state: None, as in eager PyTorch (jtorch has no TorchScript
    tracer; pyro tests it before reading tensor values in Python)."""
    return None


def _get_privateuse1_backend_name() -> str:
    """The name of PyTorch's out-of-tree device backend slot (unrenamed: ``privateuseone``)."""
    return "privateuseone"


class Value:
    """``torch._C.Value``: a value of a TorchScript IR graph. jtorch builds no TorchScript
    graphs, so nothing returns one; the class exists for imports and ``isinstance`` checks
    (snntorch's ``functional.loss`` imports it), and, as in PyTorch, it has no constructor."""

    def __init__(self, *args, **kwargs):
        raise TypeError("torch._C.Value: No constructor defined!")
