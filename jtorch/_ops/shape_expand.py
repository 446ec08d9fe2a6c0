"""Expanding views (expand, expand_as, broadcast_to, broadcast_tensors, broadcast_shapes)
and atleast_1d/2d/3d; Tensor.sum_to_size, the sum that undoes an expand. An expanded view
repeats elements (stride 0), so in-place writes through it raise PyTorch's "more than one
element ... refers to a single memory location" error."""

from __future__ import annotations

import jax.numpy as jnp

from .._core import torch_function
from .._core.dtypes import from_np
from .._core.strides import contiguous_strides
from .._core.tensor_base import Size
from ._registry import export, op
from ._util import check_broadcast
from .reduction import sum as _sum
from .shape import _view, size_arg, unsqueeze, varargs


# ------------------------------------------------------------------------------ expand
def _type_str(x):
    return f"torch.{from_np(x.dtype).scalar_name}Tensor"


def _expand_geometry(in_shape, in_strides, sizes, type_str=None):
    """PyTorch's inferExpandGeometry: (shape, strides) of ``expand(sizes)``."""
    ndim, tdim = len(sizes), len(in_shape)
    if ndim < tdim:
        raise RuntimeError(f"expand({type_str}{{{list(in_shape)}}}, size={list(sizes)}): the "
                           f"number of sizes provided ({ndim}) must be greater or equal to the "
                           f"number of dimensions in the tensor ({tdim})")
    shape, st = [0] * ndim, [0] * ndim
    for i in range(ndim - 1, -1, -1):
        dim = tdim - ndim + i
        size = in_shape[dim] if dim >= 0 else 1
        stride = in_strides[dim] if dim >= 0 else \
            (shape[i + 1] * st[i + 1] if i + 1 < ndim else 0)
        target = sizes[i]
        if target == -1:
            if dim < 0:
                raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a "
                                   f"leading, non-existing dimension {i}")
            target = size
        if size != target:
            if size != 1:
                raise RuntimeError(f"The expanded size of the tensor ({target}) must match the "
                                   f"existing size ({size}) at non-singleton dimension {i}.  "
                                   f"Target sizes: {list(sizes)}.  Tensor sizes: "
                                   f"{list(in_shape)}")
            size, stride = target, 0
        shape[i], st[i] = size, stride
    return tuple(shape), tuple(st)


def _expand_rule(shape, st, off, out_shape, idx, size):
    return _expand_geometry(shape, st, size)[1], off


@op("expand", namespace=None, method=False, out=False, is_view=True, saves=False,
    stride_rule=_expand_rule)
def _expand(input, size):
    shape, _ = _expand_geometry(input.shape, contiguous_strides(input.shape), size,
                                _type_str(input))
    return jnp.broadcast_to(input, shape)




@export("expand", namespace=None, method=True, opdef_of=_expand)
def expand(input, *sizes, size=None):
    """A read-only view repeating size-1 dims (-1 keeps a size); writes through it raise."""
    return _expand(input, varargs(sizes, size, "expand", "size"))


@export("expand_as", namespace=None, method=True, opdef_of=_expand)
def expand_as(input, other):
    return _expand(input, tuple(other.shape))


@export("broadcast_to", method=True, opdef_of=_expand)
@torch_function.input_overridable("torch.broadcast_to")
def broadcast_to(input, size):
    return _expand(input, size_arg((size,)))


@export("broadcast_shapes")
def broadcast_shapes(*shapes):
    """The shape all ``shapes`` broadcast to, with PyTorch's error for a mismatch."""

    shapes = [(s,) if isinstance(s, int) else s for s in shapes if s is not None]
    for s in shapes:
        if not isinstance(s, (tuple, list)):
            raise RuntimeError("Input shapes should be of type ints, a tuple of ints, or a list "
                               f"of ints, got {s}")
    common = [1] * max((len(s) for s in shapes), default=0)
    for j, s in enumerate(shapes):
        for i in range(-1, -1 - len(s), -1):
            if s[i] == common[i]:
                continue
            if common[i] == 1:
                if s[i] < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                common[i] = s[i]
            if s[i] != 1 and common[i] != s[i]:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {s[i]} at "
                                   f"{i}! Mismatching argument at index {j} had {s}; but "
                                   f"expected shape should be broadcastable to {common}")
    return Size(common)


@export("broadcast_tensors", opdef_of=_expand)
def broadcast_tensors(*tensors):
    """Views of ``tensors`` expanded to their common shape (a tensor already of that shape is
    returned as is, as PyTorch does)."""
    if len(tensors) == 1 and isinstance(tensors[0], (tuple, list)):
        tensors = tuple(tensors[0])
    _check_broadcast_tensors(tensors)
    shape = tuple(broadcast_shapes(*[tuple(t.shape) for t in tensors]))
    return tuple(t if tuple(t.shape) == shape else _expand(t, shape) for t in tensors)


def _check_broadcast_tensors(tensors):
    shape = ()
    for t in tensors:
        check_broadcast(shape, tuple(t.shape))
        shape = tuple(broadcast_shapes(shape, tuple(t.shape)))


# ------------------------------------------------------------------------------ atleast_nd
def _atleast(tensors, fn):
    if len(tensors) == 1:
        t = tensors[0]
        if isinstance(t, (tuple, list)):
            return tuple(fn(x) for x in t)
        return fn(t)
    return tuple(fn(x) for x in tensors)


def _at1(x):
    return _view(x, (1,)) if x.ndim == 0 else x


def _at2(x):
    if x.ndim == 0:
        return _view(x, (1, 1))
    return unsqueeze(x, 0) if x.ndim == 1 else x


def _at3(x):
    n = x.ndim
    if n == 0:
        return _view(x, (1, 1, 1))
    if n == 1:
        return unsqueeze(unsqueeze(x, 0), -1)
    return unsqueeze(x, -1) if n == 2 else x


@export("atleast_1d")
def atleast_1d(*tensors):
    return _atleast(tensors, _at1)


@export("atleast_2d")
def atleast_2d(*tensors):
    return _atleast(tensors, _at2)


@export("atleast_3d")
def atleast_3d(*tensors):
    return _atleast(tensors, _at3)


# ------------------------------------------------------------------------------ sum_to_size
@export("sum_to_size", namespace=None, method=True, opdef_of=_sum)
def sum_to_size(input, *size):
    """The sum of ``input`` down to ``size``, a shape it can be expanded from (PyTorch's
    ``sum_to``: leading dims are summed away, dims of size 1 in ``size`` summed with keepdim);
    ``input`` itself when it already has that shape."""
    size = size_arg(size)
    shape = tuple(input.shape)
    lead = len(shape) - len(size)
    if lead < 0 or any(s != 1 and s != n for s, n in zip(size, shape[lead:])):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    if size == shape:
        return input
    dims = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(size)
                                      if s == 1 and shape[lead + i] != 1)
    r = _sum(input, dims, True) if dims else input
    return _view(r, size) if lead else r
