"""``backward()`` and ``grad()``: the entry points into the autograd engine
(jtorch/_core/graph.py walks the graph)."""

from __future__ import annotations

import warnings

from .._core import dtypes
from .._core.graph import GradientEdge, run_backward
from .._core.state import STATE
from .._core.tensor_base import TensorBase
from .._ops.creation import ones_like, zeros_like
from .._ops.shape import stack


def _tensors(x):
    if x is None:
        return None
    return (x,) if isinstance(x, (TensorBase, GradientEdge)) else tuple(x)


def _make_grads(outputs, grads, create_graph, batched=False):
    """PyTorch's _make_grads: check given grads, make ones for scalar outputs."""
    grads = (None,) * len(outputs) if grads is None else grads
    if len(grads) < len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grads)} gradients")
    out = []
    for i, (o, g) in enumerate(zip(outputs, grads)):
        if isinstance(g, TensorBase):
            gshape = tuple(g.shape[1:] if batched else g.shape)
            if gshape != tuple(o.shape):
                if batched:
                    raise RuntimeError(
                        "If `is_grads_batched=True`, we interpret the first dimension of each "
                        "grad_output as the batch dimension. The sizes of the remaining "
                        "dimensions are expected to match the shape of corresponding output, "
                        f"but a mismatch was detected: grad_output[{i}] has a shape of "
                        f"{g.shape[1:]} and output[{i}] has a shape of {o.shape}. If you only "
                        "want some tensors in `grad_output` to be considered batched, "
                        "consider using vmap.")
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of "
                                   f"{g.shape} and output[{i}] has a shape of {o.shape}.")
            if o.is_complex() != g.is_complex():
                raise RuntimeError(
                    "For complex Tensors, both grad_output and output are required to have "
                    f"the same dtype. Mismatch in dtype: grad_output[{i}] has a dtype of "
                    f"{g.dtype} and output[{i}] has a dtype of {o.dtype}.")
        elif g is None:
            if o._requires_grad:
                if o.numel() != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if o.dtype.category != dtypes.FLOAT:
                    raise RuntimeError("grad can be implicitly created only for real scalar "
                                       f"outputs but got {o.dtype}")
            g = _seed(o) if not create_graph else ones_like(o)
        else:
            raise TypeError("gradients can be either Tensors or None, but got "
                            f"{type(g).__name__}")
        out.append(g if create_graph else g._value)
    return out


_SEEDS: dict = {}


def _seed(o):
    """The all-ones gradient of a scalar root: arrays are immutable, so one per dtype/device."""
    key = (o.dtype, o._device, tuple(o.shape))
    g = _SEEDS.get(key)
    if g is None:
        g = _SEEDS[key] = ones_like(o)
    return g


def _check_roots(outputs):
    for i, o in enumerate(outputs):
        if not o._requires_grad:
            if STATE.trace is not None:
                STATE.trace.untaped_grad()
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have "
                               "a grad_fn")


def _inputs(inputs, where):
    if type(inputs) is dict:
        inputs = tuple(inputs.values())
    inputs = _tensors(inputs)
    if not inputs:
        raise RuntimeError(f"`inputs` argument to `{where}()` cannot be empty.")
    return inputs


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
             grad_variables=None, inputs=None):
    """Accumulates the gradients of ``tensors`` w.r.t. the graph leaves (or only ``inputs``,
    leaves or not) into their ``.grad``."""
    if grad_variables is not None:
        warnings.warn("`grad_variables` is deprecated. Use `grad_tensors` instead.",
                      FutureWarning, stacklevel=2)
        if grad_tensors is not None:
            raise RuntimeError("`grad_tensors` and `grad_variables` (deprecated) arguments both "
                               "passed to `backward()`. Please only use `grad_tensors`.")
        grad_tensors = grad_variables
    tensors = _tensors(tensors)
    if inputs is not None:
        inputs = _inputs(inputs, "backward")
    grads = _make_grads(tensors, _tensors(grad_tensors), create_graph)
    _check_roots(tensors)
    if inputs is not None:
        for t in inputs:   # as PyTorch: a non-leaf input gets its .grad populated
            if type(t) is not GradientEdge:
                t.retain_grad()
    if retain_graph is None:
        retain_graph = create_graph
    run_backward(tensors, grads, retain_graph, create_graph, inputs=inputs)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Computes and returns the gradients of ``outputs`` w.r.t. ``inputs`` (nothing is
    accumulated into ``.grad``)."""
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when "
                         "materialize_grads=True, but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    keys = list(inputs.keys()) if type(inputs) is dict else None
    outputs, inputs = _tensors(outputs), _inputs(inputs, "grad")
    if not only_inputs:
        warnings.warn("only_inputs argument is deprecated and is ignored now (defaults to "
                      "True). To accumulate gradient for other parts of the graph, please use "
                      "torch.autograd.backward.", FutureWarning, stacklevel=2)
    grads = _make_grads(outputs, _tensors(grad_outputs), create_graph, is_grads_batched)
    _check_roots(outputs)
    for t in inputs:
        if type(t) is not GradientEdge and not t._requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    if retain_graph is None:
        retain_graph = create_graph
    if is_grads_batched:
        res = _batched(outputs, inputs, grads, retain_graph, create_graph, allow_unused)
    else:
        res = run_backward(outputs, grads, retain_graph, create_graph, inputs=inputs,
                           capture=True, allow_unused=allow_unused)
    if materialize_grads:
        res = [_materialized(t, create_graph) if r is None else r for t, r in zip(inputs, res)]
    return dict(zip(keys, res)) if keys is not None else tuple(res)


def _materialized(t, create_graph):
    """materialize_grads' zeros for an input no gradient reached (a tensor's shape: an edge has
    none, as in PyTorch)."""
    if type(t) is GradientEdge:
        raise RuntimeError("materialize_grads cannot be used when the given input is a "
                           "GradientEdge")
    return zeros_like(t, requires_grad=create_graph)


def _batched(outputs, inputs, grads, retain_graph, create_graph, allow_unused):
    """is_grads_batched: one backward per row of the grad_outputs, results stacked."""
    n = next(g.shape[0] for g in grads if g is not None)
    rows = []
    for b in range(n):
        gb = [None if g is None else g[b] for g in grads]
        rows.append(run_backward(outputs, gb, retain_graph or b < n - 1, create_graph,
                                 inputs=inputs, capture=True, allow_unused=allow_unused))
    return [None if r[0] is None else stack(list(r)) for r in zip(*rows)]
