"""Shape and movement ops; the view ops among them share storage with their input."""

from __future__ import annotations

import jax.numpy as jnp

from ._registry import op
from ._util import wrap_dim


def _view_rule(shape, st, off, out_shape, idx, *args, **kw):
    from .._views import view_strides

    return view_strides(shape, st, out_shape), off


def _infer(shape, numel):
    shape = list(shape)
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    if -1 in shape:
        known = 1
        for s in shape:
            if s != -1:
                known *= s
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{shape}' is invalid for input of size {numel}")
        shape[shape.index(-1)] = numel // known
    total = 1
    for s in shape:
        total *= s
    if total != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return tuple(shape)


def _shape_arg(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        return tuple(shape[0])
    return tuple(shape)


@op("view", is_view=True, saves=False, stride_rule=_view_rule, out=False)
def _view(input, shape):
    return jnp.reshape(input, _infer(shape, input.size))


def view(input, *shape):
    """Tensor.view: a view with a new shape; raises when the strides do not allow it."""
    from .._dtype import to_dtype
    from .._views import strides, view_strides

    shape = _shape_arg(shape)
    if len(shape) == 1 and not isinstance(shape[0], int):
        return _view_dtype(input, to_dtype(shape[0]))
    if input._base is not None:
        st = strides(input)[0]
        new = _infer(shape, input.numel())
        if view_strides(tuple(input.shape), st, new) is None:
            raise RuntimeError("view size is not compatible with input tensor's size and stride "
                               "(at least one dimension spans across two contiguous subspaces). "
                               "Use .reshape(...) instead.")
    return _view(input, shape)


def _view_dtype(input, dtype):
    raise NotImplementedError("jtorch does not implement torch.Tensor.view(dtype) yet")


@op("transpose", is_view=True, saves=False, out=False,
    stride_rule=lambda shape, st, off, out, idx, d0, d1: (_swap(st, d0, d1), off))
def transpose(input, dim0, dim1):
    return jnp.swapaxes(input, wrap_dim(dim0, input.ndim), wrap_dim(dim1, input.ndim))


def _swap(st, d0, d1):
    st = list(st)
    n = len(st)
    d0, d1 = wrap_dim(d0, n), wrap_dim(d1, n)
    st[d0], st[d1] = st[d1], st[d0]
    return tuple(st)


@op("clone", saves=False)
def clone(input, *, memory_format=None):
    return jnp.array(input, copy=True)


@op("stack", method=False, tensors=("tensors",), promote="common", saves=False)
def stack(tensors, dim=0):
    return jnp.stack(tensors, axis=wrap_dim(dim, tensors[0].ndim + 1))
