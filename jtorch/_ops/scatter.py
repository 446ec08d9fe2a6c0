"""Gather/scatter family: gather, scatter(_add/_reduce), index_select/add/copy/fill/reduce,
masked_fill, masked_scatter, take, take_along_dim, put.

Bodies check shapes and dtypes (trace time); index bounds need values, so each op's ``check``
reads the concrete index before dispatch (skipped while tracing: JAX then clamps gathers and
drops out-of-range scatters). Gradients are JAX's transposes, except plain scatters (every
duplicate index receives its gradient, as in PyTorch) and prod/amax/amin reductions (PyTorch's
formulas), see ``_index_util``.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from .._core.tensor_base import TensorBase
from ._index_util import (
    along,
    check_scalar,
    concrete,
    first_oob,
    grid,
    scatter_extreme,
    scatter_reduce_core,
    scatter_set,
)
from ._registry import op
from ._util import check_broadcast, type_name, wrap_dim

_C_TYPE = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int",
           "int32": "int", "int64": "long int", "float16": "c10::Half",
           "bfloat16": "c10::BFloat16", "float32": "float", "float64": "double",
           "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}


def _nd(x):
    return max(x.ndim, 1)


def _size(x, d):
    return x.shape[d] if x.ndim else 1


def _is_index(a, int32=True):
    return a.dtype == jnp.int64 or (int32 and a.dtype == jnp.int32)


def _bounds(index, size, dim, allow_negative=False, fmt="index {v} is out of bounds for "
            "dimension {dim} with size {size}", exc=RuntimeError):
    """Eager bounds check of a concrete index (skipped while tracing)."""
    c = concrete(index)
    if c is None or c.dtype.kind not in "iu":
        return
    bad = first_oob(c, size, allow_negative)
    if bad is not None:
        raise exc(fmt.format(v=bad, dim=dim, size=size))


def _dim_or_none(t, dim):
    try:
        return wrap_dim(dim, t.ndim)
    except IndexError:
        return None


# ------------------------------------------------------------------------------ gather
def _gather_check(input, dim, index, *, sparse_grad=False):
    d = _dim_or_none(input, dim)
    if d is not None and isinstance(index, TensorBase) and _nd(index) == _nd(input):
        _bounds(index, _size(input, d), d)


def _gather_shapes(input, dim, index, name, what="input"):
    if not _is_index(index):
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index")
    d = wrap_dim(dim, input.ndim)
    if _nd(index) != _nd(input):
        raise RuntimeError(f"Index tensor must have the same number of dimensions as {what} "
                           "tensor")
    return d


def _sub(x, shape, skip):
    """x restricted to the leading ``shape`` block (all of dim ``skip``)."""
    return x[tuple(slice(None) if i == skip else slice(0, s) for i, s in enumerate(shape))]


@op("gather", check=_gather_check, saves=False)
def gather(input, dim, index, *, sparse_grad=False):
    d = _gather_shapes(input, dim, index, "gather")
    for i in range(index.ndim):
        if i != d and index.shape[i] > _size(input, i):
            raise RuntimeError(f"Size does not match at dimension {i} expected index "
                               f"{list(index.shape)} to be no larger than self "
                               f"{list(input.shape)} apart from dimension {d}")
    if input.ndim == 0 or index.ndim == 0:
        return input.reshape(-1)[index.reshape(-1)].reshape(index.shape)
    return jnp.take_along_axis(_sub(input, index.shape, d), index, axis=d)


# ------------------------------------------------------------------------------ scatter
def _scatter_check(input, dim, index, src=None, *, value=None, reduce=None):
    if isinstance(src, TensorBase):
        if _nd(src) != _nd(index) and isinstance(index, TensorBase) and _nd(index) == _nd(input):
            raise RuntimeError("Index tensor must have the same number of dimensions as src "
                               "tensor")
        if src.dtype != input.dtype:
            raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    elif src is not None or value is not None:
        check_scalar(src if src is not None else value, input.dtype)
    _gather_check(input, dim, index)


def _scatter_prep(input, dim, index, src):
    """Wrapped dim, full index and the scattered values (src cut to index's shape, or a
    scalar broadcast), with PyTorch's shape checks."""
    d = _gather_shapes(input, dim, index, "scatter", "self")
    scalar = src.ndim == 0 and index.ndim > 0
    for i in range(index.ndim):
        if (i != d and index.shape[i] > _size(input, i)) or \
                (not scalar and index.shape[i] > _size(src, i)):
            tail = "" if scalar else f" and to be no larger size than src {list(src.shape)}"
            raise RuntimeError(f"Expected index {list(index.shape)} to be no larger than self "
                               f"{list(input.shape)} apart from dimension {d}{tail}")
    if input.ndim == 0:
        return d, (index.reshape(-1),), src.reshape(-1)[:index.size].astype(input.dtype), True
    if scalar:
        vals = jnp.broadcast_to(src.astype(input.dtype), index.shape)
    else:
        vals = src.reshape(index.shape) if src.ndim == 0 else _sub(src, index.shape, -1)
    return d, grid(index, d), vals, False


def _unflat(out, input):
    return out.reshape(input.shape)


@op("scatter", inplace=True, check=_scatter_check, tensors=("input", "src", "value"),
    saves=False)
def scatter(input, dim, index, src=None, *, value=None, reduce=None):
    if reduce not in (None, "add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")
    d, idx, vals, flat = _scatter_prep(input, dim, index, src if src is not None else value)
    x = input.reshape(-1) if flat else input
    if reduce is None:
        out = scatter_set(x, vals, idx)
    elif reduce == "add":
        out = x.at[idx].add(vals)
    else:
        out = scatter_extreme("prod", True, x, vals, idx)
    return _unflat(out, input)


def _scatter_add_check(input, dim, index, src):
    _scatter_check(input, dim, index, src)


@op("scatter_add", inplace=True, check=_scatter_add_check, tensors=("input", "src"),
    saves=False)
def scatter_add(input, dim, index, src):
    d, idx, vals, flat = _scatter_prep(input, dim, index, src)
    x = input.reshape(-1) if flat else input
    return _unflat(x.at[idx].add(vals), input)


_REDUCES = ("sum", "prod", "mean", "amax", "amin")


def _scatter_reduce_check(input, dim, index, src, reduce, *, include_self=True):
    _scatter_check(input, dim, index, src)


@op("scatter_reduce", inplace=True, check=_scatter_reduce_check, tensors=("input", "src"))
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    if reduce not in _REDUCES:
        raise RuntimeError("reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    d, idx, vals, flat = _scatter_prep(input, dim, index, src)
    x = input.reshape(-1) if flat else input
    return _unflat(scatter_reduce_core(x, vals, idx, reduce, include_self), input)


# ------------------------------------------------------------------------------ index_*
def _index_select_check(input, dim, index):
    d = _dim_or_none(input, dim)
    if d is not None and isinstance(index, TensorBase) and index.ndim <= 1:
        size = _size(input, d)
        _bounds(index, size, d, fmt="INDICES element is out of DATA bounds, id={v} "
                "axis_dim={size}")


@op("index_select", check=_index_select_check, saves=False)
def index_select(input, dim, index):
    if not _is_index(index):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if index.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    d = wrap_dim(dim, input.ndim)
    if input.ndim == 0:
        if index.size != 1:
            raise RuntimeError("index_select(): Index to scalar can have only 1 value, got "
                               f"{index.size} value(s)")
        return input
    return jnp.take(input, index.reshape(-1), axis=d)


def _check_long(name, index):
    """``name``'s error for an index that is not int64 (these kernels take only long)."""
    if index.dtype != jnp.int64:
        raise RuntimeError(f"{name}(): Expected a long tensor for index, but got "
                           f"{type_name(index)}")


def _index_vec(name, input, dim, index, source, long_only=False):
    """Checks shared by index_add/index_copy/index_reduce; returns the wrapped dim."""
    d = wrap_dim(dim, input.ndim)
    if index.ndim > 1:
        if name == "index_copy_":
            raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got "
                             f"{index.ndim})")
        raise IndexError(f"{name}(): Index is supposed to be a vector, but got dim: "
                         f"{index.ndim} with type: {type_name(index)} and size: "
                         f"{list(index.shape)}")
    if long_only:
        _check_long(name, index)
    if not _is_index(index):
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index but got: "
                           f"{type_name(index)}")
    n = index.size
    if name == "index_copy_":
        if input.dtype != source.dtype:
            raise RuntimeError("index_copy_(): self and source expected to have the same "
                               f"dtype, but got (self) {type_name(input)} and (source) "
                               f"{type_name(source)}")
        if n != _size(source, d):
            raise IndexError(f"index_copy_(): Number of indices ({n}) should be equal to "
                             f"source.size(dim) ({_size(source, d)})")
    elif input.dtype != source.dtype and name == "index_add_":
        raise RuntimeError(f"index_add_(): self ({type_name(input)}) and source "
                           f"({type_name(source)}) must have the same scalar type")
    elif n != _size(source, d):
        raise RuntimeError(f"{name}(): Number of indices ({n}) should be equal to "
                           f"source.size(dim): ({_size(source, d)}), for dim: {d}")
    if source.ndim and input.ndim and (source.ndim != input.ndim or any(
            a != b for i, (a, b) in enumerate(zip(input.shape, source.shape)) if i != d)):
        if name == "index_copy_":
            bad = next(i for i in range(input.ndim) if i != d and (
                i >= source.ndim or input.shape[i] != source.shape[i]))
            raise RuntimeError("index_copy_(): Source/destination tensor must have same slice "
                               f"shapes. Destination slice shape: {input.shape[bad]} at "
                               f"dimension {bad} and source slice shape: "
                               f"{source.shape[min(bad, source.ndim - 1)]} at dimension 0.")
        raise RuntimeError("source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = {list(input.shape)} "
                           f"source.shape = {list(source.shape)}")
    return d


def _index_check(fmt, exc=RuntimeError, allow_negative=False):
    def check(input, dim, index, *rest, **kw):
        d = _dim_or_none(input, dim)
        if d is not None and isinstance(index, TensorBase) and index.ndim <= 1:
            _bounds(index, _size(input, d), d, allow_negative, fmt=fmt, exc=exc)
    return check


_OOB = "index {v} is out of bounds for dimension {dim} with size {size}"


def _at_dim(input, d, index):
    return (slice(None),) * d + (index.reshape(-1),)


@op("index_add", inplace=True, check=_index_check(_OOB), tensors=("input", "source"),
    saves=False)
def index_add(input, dim, index, source, *, alpha=1):
    d = _index_vec("index_add_", input, dim, index, source)
    if alpha != 1:  # an integer tensor takes alpha as an int (PyTorch truncates it)
        alpha = alpha if jnp.issubdtype(input.dtype, jnp.inexact) else int(alpha)
        src = (source * alpha).astype(source.dtype)
    else:
        src = source
    if input.ndim == 0:
        return input + src.reshape(-1)[:index.size].sum().astype(input.dtype)
    return input.at[_at_dim(input, d, index)].add(src.reshape(_src_shape(input, d, index)))


def _src_shape(input, d, index):
    return input.shape[:d] + (index.size,) + input.shape[d + 1:]


@op("index_copy", inplace=True, check=_index_check("index_copy_(): " + _OOB, IndexError),
    tensors=("input", "source"), saves=False)
def index_copy(input, dim, index, source):
    d = _index_vec("index_copy_", input, dim, index, source, long_only=True)
    if input.ndim == 0:
        return source.reshape(())
    return scatter_set(input, source.reshape(_src_shape(input, d, index)),
                       _at_dim(input, d, index))


@op("index_fill", inplace=True, check=_index_check(_OOB, IndexError, allow_negative=True),
    tensors=("input", "value"), saves=False)
def index_fill(input, dim, index, value):
    if index.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    if index.dtype != jnp.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if value.ndim:
        raise RuntimeError("index_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value.ndim} dimension(s).")
    d = wrap_dim(dim, input.ndim)
    v = value.astype(input.dtype)
    if input.ndim == 0:
        return jnp.where(index.size > 0, v, input)
    shape = _src_shape(input, d, index)
    return scatter_set(input, jnp.broadcast_to(v, shape), _at_dim(input, d, index))


@op("index_reduce", inplace=True, check=_index_check("index out of range in self",
                                                      IndexError),
    tensors=("input", "source"))
def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError("index_reduce(): Expected reduce to be one of prod, mean, amax or "
                           f"amin but got {reduce}.")
    if not _is_index(index):
        raise RuntimeError(f"index_reduce_(): Expected dtype int32/int64 for index but got: "
                           f"{type_name(index)}")
    d = _index_vec("index_reduce_", input, dim, index, source)
    shape = _src_shape(input, d, index)
    return scatter_reduce_core(input, source.reshape(shape),
                               along(index.reshape(-1), d, shape), reduce, include_self)


# ------------------------------------------------------------------------------ masked
def _mask_check(input, mask, value):
    if not isinstance(value, TensorBase):
        check_scalar(value, input.dtype)


@op("masked_fill", inplace=True, check=_mask_check, tensors=("input", "value"), saves=False)
def masked_fill(input, mask, value):
    if mask.dtype != jnp.bool_:
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{_C_TYPE[mask.dtype.name]}")
    if value.ndim:
        raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value.ndim} dimension(s).")
    check_broadcast(mask.shape, input.shape)
    return jnp.where(mask, value.astype(input.dtype), input)


def _masked_scatter_check(input, mask, source):
    m = concrete(mask)
    if m is None or m.dtype != np.bool_ or not isinstance(source, TensorBase):
        return
    shape = np.broadcast_shapes(tuple(input.shape), m.shape)
    if int(np.broadcast_to(m, shape).sum()) > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")


@op("masked_scatter", inplace=True, check=_masked_scatter_check, tensors=("input", "source"),
    saves=False)
def masked_scatter(input, mask, source):
    if mask.dtype != jnp.bool_:
        raise RuntimeError("masked_scatter_ only supports boolean masks, but got mask with "
                           f"dtype {type_name(mask)}")
    if input.dtype != source.dtype:
        raise RuntimeError("masked_scatter: expected self and source to have same dtypes but "
                           f"got{type_name(input)} and {type_name(source)}")
    check_broadcast(input.shape, mask.shape)
    shape = jnp.broadcast_shapes(input.shape, mask.shape)
    m = jnp.broadcast_to(mask, shape)
    if source.size == 0:
        return jnp.broadcast_to(input, shape)
    pos = jnp.clip(jnp.cumsum(m.reshape(-1)) - 1, 0, source.size - 1)
    vals = source.reshape(-1)[pos].reshape(shape)
    return jnp.where(m, vals, input)


# ------------------------------------------------------------------------------ flat index
_FLAT_OOB = "out of range: tried to access index {v} on a tensor of {size} elements."


def _take_check(input, index):
    if isinstance(index, TensorBase):
        _bounds(index, input.numel(), 0, True, _FLAT_OOB, IndexError)


def _wrap(i, n):
    return jnp.where(i < 0, i + n, i)


@op("take", check=_take_check, saves=False)
def take(input, index):
    _check_long("take", index)
    flat = input.reshape(-1)
    return flat[_wrap(index, flat.size)]


@op("take_along_dim", saves=False, grad_name="GatherBackward0")
def take_along_dim(input, indices, dim=None):
    if indices.dtype != jnp.int64:
        raise RuntimeError("torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{type_name(indices)}")
    if dim is None:
        flat = input.reshape(-1)
        return flat[_wrap(indices.reshape(-1), flat.size)]
    d = wrap_dim(dim, input.ndim)
    if input.ndim != indices.ndim:
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same "
                           f"number of dimensions, but got {input.ndim} dimensions for input, "
                           f"and {indices.ndim} dimensions for indices")
    a = input.shape[:d] + (1,) + input.shape[d + 1:]
    b = indices.shape[:d] + (1,) + indices.shape[d + 1:]
    check_broadcast(a, b)
    common = jnp.broadcast_shapes(a, b)
    x = jnp.broadcast_to(input, common[:d] + (input.shape[d],) + common[d + 1:])
    i = jnp.broadcast_to(indices, common[:d] + (indices.shape[d],) + common[d + 1:])
    return jnp.take_along_axis(x, _wrap(i, input.shape[d]), axis=d)


def _put_check(input, index, source, accumulate=False):
    if isinstance(index, TensorBase):
        _bounds(index, input.numel(), 0, True, _FLAT_OOB, IndexError)


@op("put", inplace=True, check=_put_check, tensors=("input", "source"), saves=False)
def put(input, index, source, accumulate=False):
    _check_long("put_", index)
    if input.dtype != source.dtype:
        raise RuntimeError("put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {type_name(input)} and source.dtype = "
                           f"{type_name(source)}")
    if source.size != index.size:
        raise IndexError("put_(): Expected source and index to have the same number of "
                         f"elements, but got source.numel() = {source.size}, index.numel() = "
                         f"{index.size}")
    flat = input.reshape(-1)
    idx = (_wrap(index.reshape(-1), flat.size),)
    src = source.reshape(-1)
    out = flat.at[idx].add(src) if accumulate else scatter_set(flat, src, idx)
    return out.reshape(input.shape)
