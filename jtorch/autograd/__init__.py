"""jtorch.autograd: backward, grad, grad modes, Function and functional transforms."""

from __future__ import annotations

from .. import _dtype as D
from .._tensor import Tensor
from . import functional, graph  # noqa: E402
from .function import Function, FunctionCtx, once_differentiable
from .grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .graph import Node, run_backward


def _tensors(x):
    if x is None:
        return None
    return (x,) if isinstance(x, Tensor) else tuple(x)


def _make_grads(outputs, grads, create_graph):
    from .._creation import ones_like

    grads = [None] * len(outputs) if grads is None else list(grads)
    if len(grads) != len(outputs):
        raise RuntimeError("grad can be implicitly created only for scalar outputs"
                           if not grads else f"Mismatch in number of grads: got {len(grads)} "
                           f"but expected {len(outputs)}")
    out = []
    for i, (o, g) in enumerate(zip(outputs, grads)):
        if g is None:
            if o._rg:
                if o.numel() != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if o.dtype.category != D.FLOAT:
                    raise RuntimeError("grad can be implicitly created only for real scalar "
                                       f"outputs but got {o.dtype}")
            g = _seed(o) if not create_graph else ones_like(o)
        elif not isinstance(g, Tensor):
            from .._creation import tensor

            g = tensor(g, dtype=o.dtype)
        elif tuple(g.shape) != tuple(o.shape):
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} "
                               f"and output[{i}] has a shape of {o.shape}.")
        out.append(g if create_graph else g._value)
    return out


_SEEDS: dict = {}


def _seed(o):
    """The all-ones gradient of a scalar root; arrays are immutable, so one per dtype/device."""
    from .._creation import ones_like

    key = (o.dtype, o._device, tuple(o.shape))
    g = _SEEDS.get(key)
    if g is None:
        g = _SEEDS[key] = ones_like(o)
    return g


def _check_roots(outputs):
    for i, o in enumerate(outputs):
        if not o._rg:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have "
                               "a grad_fn")


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
             grad_variables=None, inputs=None):
    """Computes the sum of gradients of ``tensors`` w.r.t. graph leaves, into their ``.grad``."""
    tensors = _tensors(tensors)
    grad_tensors = _tensors(grad_tensors if grad_tensors is not None else grad_variables)
    if inputs is not None:
        inputs = _tensors(inputs)
        if not inputs:
            raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    grads = _make_grads(tensors, grad_tensors, create_graph)
    _check_roots(tensors)
    if retain_graph is None:
        retain_graph = create_graph
    run_backward(tensors, grads, retain_graph, create_graph, inputs=inputs)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Computes and returns the gradients of ``outputs`` w.r.t. ``inputs`` (nothing is
    accumulated into ``.grad``)."""
    from .._creation import zeros_like
    from .._ops.shape import stack

    outputs, inputs = _tensors(outputs), _tensors(inputs)
    grad_outputs = _tensors(grad_outputs)
    if allow_unused is None:
        allow_unused = materialize_grads
    if materialize_grads and not allow_unused:
        raise ValueError("Expected allow_unused to be True or not passed when "
                         "materialize_grads=True")
    for t in inputs:
        if not t._rg:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    if retain_graph is None:
        retain_graph = create_graph
    if is_grads_batched:
        rows = [grad(outputs, inputs, [g[b] for g in grad_outputs], retain_graph=True,
                     create_graph=create_graph, allow_unused=allow_unused,
                     materialize_grads=materialize_grads)
                for b in range(grad_outputs[0].shape[0])]
        return tuple(None if r[0] is None else stack(list(r)) for r in zip(*rows))
    grads = _make_grads(outputs, grad_outputs, create_graph)
    _check_roots(outputs)
    res = run_backward(outputs, grads, retain_graph, create_graph, inputs=inputs, capture=True,
                       allow_unused=allow_unused)
    if materialize_grads:
        res = [zeros_like(t) if r is None else r for t, r in zip(inputs, res)]
    return tuple(res)


class set_detect_anomaly:  # noqa: N801 - PyTorch's name
    """Accepted for compatibility; jtorch's errors already name the failing op."""

    def __init__(self, mode=True, check_nan=True):
        self.mode = mode

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


detect_anomaly = set_detect_anomaly

__all__ = ["backward", "grad", "Function", "FunctionCtx", "once_differentiable", "no_grad",
           "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
           "is_inference_mode_enabled", "functional", "graph", "Node", "set_detect_anomaly",
           "detect_anomaly"]
