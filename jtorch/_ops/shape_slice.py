"""Slicing views: narrow, select, diagonal, the split family (split, chunk, unbind,
tensor_split, h/v/dsplit) and Tensor.unfold. Each output shares storage with the input; a
multi-output op's output i is a view step (kernel, i) whose stride rule gets ``idx=i``.

Their out-of-place writes: select_scatter, slice_scatter, diagonal_scatter (a copy of the input
with ``src`` written where the view would read), and Tensor.fill_diagonal_."""

from __future__ import annotations

import operator

import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.errors import InconclusiveDimensionOperation
from jax.export import is_symbolic_dim

from .._core import torch_function
from .._core.dtypes import int64
from .._core.state import grad_mode
from .._core.tensor_base import storage_root, to_numpy
from .._core.views import check_inplace_through_view, inplace_call
from ._registry import export, op
from ._util import wrap_dim
from .indexing import getitem


def _as_int(v):
    """A Python int from an int or a one-element integer Tensor (PyTorch accepts both); a
    symbolic size read while exporting (jax.export) stays as it is."""
    try:
        return operator.index(v)
    except TypeError:
        if is_symbolic_dim(v):
            return v
        raise


def _piece_count(count, n, what):
    """The number of outputs of a split of a dimension of size ``n``: it must be a constant;
    for a symbolic ``n`` (jax.export) it may not be (PyTorch's export adds a guard)."""
    if type(count) is not int and is_symbolic_dim(count):
        raise InconclusiveDimensionOperation(
            f"{what} of the symbolic dimension {n} (jax.export): its number of pieces, {count}, "
            "is not a constant. Split a static dimension, or slice the dynamic one.")
    return count


# ------------------------------------------------------------------------------ narrow / select
def _check_narrow(shape, dim, start, length):
    if len(shape) == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    d = wrap_dim(dim, len(shape))
    n = shape[d]
    if not -n <= start <= n:
        raise IndexError(f"start out of range (expected to be in range of [{-n}, {n}], but got "
                         f"{start})")
    if start < 0:
        start += n
    if start > n - length:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
    return d, start


def _narrow_rule(shape, st, off, out_shape, idx, dim, start, length):
    d, start = _check_narrow(shape, dim, start, length)
    return tuple(st), off + start * st[d]


@op("narrow", method=False, out=False, is_view=True, saves=False, grad_name="SliceBackward0",
    stride_rule=_narrow_rule, namespace=None)
def _narrow(input, dim, start, length):
    d, start = _check_narrow(input.shape, dim, start, length)
    return lax.slice_in_dim(input, start, start + length, axis=d)


@export("narrow", method=True, opdef_of=_narrow)
@torch_function.input_overridable("torch.narrow")
def narrow(input, dim, start, length):
    """A view of ``length`` elements of ``dim`` from ``start`` (which may be a 0-d tensor).

    It runs as the basic index ``input[:, ..., start:start + length]``, whose kernel takes the
    start as a traced value: one compiled kernel serves every start."""

    dim, start, length = _as_int(dim), _as_int(start), _as_int(length)
    d, start = _check_narrow(input.shape, dim, start, length)
    return getitem(input, (slice(None),) * d + (slice(start, start + length),))


@export("narrow_copy", method=True)
def narrow_copy(input, dim, start, length):
    """``narrow(input, dim, start, length)`` as a new tensor, not a view."""
    return narrow(input, dim, start, length).clone()


def _check_select(shape, dim, index):
    if len(shape) == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, len(shape))
    n = shape[d]
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(shape)} at dimension {d}")
    return d, index % n


def _select_rule(shape, st, off, out_shape, idx, dim, index):
    d, i = _check_select(shape, dim, index)
    return tuple(st[:d]) + tuple(st[d + 1:]), off + i * st[d]


@op("select", namespace=None, method=False, out=False, is_view=True, saves=False,
    stride_rule=_select_rule)
def _select(input, dim, index):
    d, i = _check_select(input.shape, dim, index)
    return lax.index_in_dim(input, i, axis=d, keepdims=False)


@export("select", method=True, opdef_of=_select)
def select(input, dim, index):
    """``input[:, ..., index]`` along ``dim``: one compiled kernel serves every index."""

    dim, index = _as_int(dim), _as_int(index)
    d, _ = _check_select(input.shape, dim, index)
    return getitem(input, (slice(None),) * d + (index,))   # getitem wraps a negative index


# ------------------------------------------------------------------------------ diagonal
def _diag_geometry(shape, offset, dim1, dim2):
    n = len(shape)
    d1, d2 = wrap_dim(dim1, n), wrap_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    if offset >= 0:
        size = max(min(shape[d1], shape[d2] - offset), 0)
    else:
        size = max(min(shape[d1] + offset, shape[d2]), 0)
    return d1, d2, size


def _diagonal_rule(shape, st, off, out_shape, idx, offset=0, dim1=0, dim2=1):
    d1, d2, size = _diag_geometry(shape, offset, dim1, dim2)
    if size > 0:
        off += offset * st[d2] if offset >= 0 else -offset * st[d1]
    rest = tuple(s for i, s in enumerate(st) if i not in (d1, d2))
    return rest + (st[d1] + st[d2],), off


@op("diagonal", out=False, is_view=True, saves=False, stride_rule=_diagonal_rule)
def diagonal(input, offset=0, dim1=0, dim2=1):
    d1, d2, _ = _diag_geometry(input.shape, offset, dim1, dim2)
    return jnp.diagonal(input, offset, d1, d2)


# ------------------------------------------------------------------------------ *_scatter
def _scatter_through(input, src, view):
    """A copy of ``input`` with ``src`` written at the elements ``view(input)`` reads (found by
    running the view over the elements' flat positions)."""
    pos = view(jnp.arange(input.size).reshape(input.shape))
    if tuple(src.shape) != tuple(pos.shape):
        raise RuntimeError("expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.shape)}, slice size = {list(pos.shape)}")
    flat = input.reshape(-1).at[pos.reshape(-1)].set(src.astype(input.dtype).reshape(-1))
    return flat.reshape(input.shape)


_SCATTER = {"tensors": ("input", "src"), "out": False, "saves": False}


@op("select_scatter", **_SCATTER)
def select_scatter(input, src, dim, index):
    """A copy of ``input`` with ``src`` embedded at ``index`` of ``dim``."""
    d, i = _check_select(input.shape, dim, index)
    return _scatter_through(input, src, lambda x: lax.index_in_dim(x, i, d, keepdims=False))


@op("slice_scatter", **_SCATTER)
def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """A copy of ``input`` with ``src`` embedded at ``[start:end:step]`` of ``dim``."""
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    d = wrap_dim(dim, input.ndim)
    index = (slice(None),) * d + (slice(start, end, step),)
    return _scatter_through(input, src, lambda x: x[index])


@op("diagonal_scatter", **_SCATTER)
def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """A copy of ``input`` with ``src`` embedded on the diagonal ``diagonal(offset, dim1,
    dim2)`` reads."""
    d1, d2, _ = _diag_geometry(input.shape, offset, dim1, dim2)
    return _scatter_through(input, src, lambda x: jnp.diagonal(x, offset, d1, d2))


def _main_diagonal(shape, wrap):
    """Flat positions of a tensor's main diagonal (``fill_diagonal_``; ``wrap``: a tall matrix's
    diagonal restarts below, every ``cols + 1`` elements, as NumPy's fill_diagonal)."""
    if len(shape) < 2:
        raise RuntimeError("dimensions must larger than 1")
    if len(shape) > 2 and len(set(shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    step = sum(int(np.prod(shape[i + 1:])) for i in range(len(shape)))
    size = int(np.prod(shape))
    end = size if wrap and len(shape) == 2 else min(shape) * step
    return np.arange(0, min(end, size), step)


@op("fill_diagonal", namespace=None, method=False, out=False, saves=False,
    grad_name="CopySlices")
def _fill_diagonal(input, fill_value, wrap=False):
    pos = _main_diagonal(input.shape, wrap)
    value = jnp.asarray(fill_value).astype(input.dtype)
    return input.reshape(-1).at[pos].set(value).reshape(input.shape)


@export("fill_diagonal_", namespace=None, method=True, opdef_of=_fill_diagonal)
def fill_diagonal_(input, fill_value, wrap=False):
    """``fill_value`` on the main diagonal (every dim of equal length beyond 2-D), in place;
    PyTorch writes it through a view of the diagonal."""
    check_inplace_through_view(input)
    return inplace_call(input, _fill_diagonal._opdef, (fill_value, wrap), {})


# ------------------------------------------------------------------------------ split family
def _pieces(x, bounds, d):
    return tuple(lax.slice_in_dim(x, s, e, axis=d) for s, e in bounds)


def _split_bounds(shape, split_size, dim):
    if len(shape) == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    if split_size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got "
                           f"split_size={split_size}")
    d = wrap_dim(dim, len(shape))
    n = shape[d]
    if split_size == 0 and n != 0:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension "
                           f"size of {n}")
    count = _piece_count(max(-(-n // split_size), 1) if split_size else 1, n, "split")
    return d, tuple((i * split_size, min((i + 1) * split_size, n)) for i in range(count))


def _sizes_bounds(shape, split_sizes, dim):
    if len(shape) == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = wrap_dim(dim, len(shape))
    n = shape[d]
    if any(s < 0 for s in split_sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative "
                           f"entries, but got split_sizes={list(split_sizes)}")
    if sum(split_sizes) != n:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input "
                           f"tensor's size at dimension {dim}), but got "
                           f"split_sizes={list(split_sizes)}")
    bounds, start = [], 0
    for s in split_sizes:
        bounds.append((start, start + s))
        start += s
    return d, tuple(bounds)


def _offset_rule(geometry):
    def rule(shape, st, off, out_shape, idx, *args, **kwargs):
        d, bounds = geometry(shape, *args, **kwargs)
        return tuple(st), off + bounds[idx][0] * st[d]

    return rule


@op("split", method=False, out=False, is_view=True, saves=False,
    stride_rule=_offset_rule(_split_bounds), namespace=None)
def _split(input, split_size, dim=0):
    return _pieces(input, *reversed(_split_bounds(input.shape, split_size, dim)))


@op("split_with_sizes", method=False, out=False, is_view=True, saves=False,
    stride_rule=_offset_rule(_sizes_bounds), namespace=None)
def _split_with_sizes(input, split_sizes, dim=0):
    return _pieces(input, *reversed(_sizes_bounds(input.shape, split_sizes, dim)))


@export("split_with_sizes", method=True, opdef_of=_split_with_sizes)
def split_with_sizes(input, split_sizes, dim=0):
    return _split_with_sizes(input, tuple(_as_int(s) for s in split_sizes), _as_int(dim))


@export("split", opdef_of=_split)
def split(tensor, split_size_or_sections, dim=0):
    """Views of consecutive pieces of ``dim``: of size ``split_size`` (the last may be smaller)
    or of the listed sizes."""
    s = split_size_or_sections
    if hasattr(s, "_array") and s.ndim == 0:
        s = int(s)
    if isinstance(s, int):
        return _split(tensor, s, _as_int(dim))
    return split_with_sizes(tensor, s, dim)


@export("split", namespace=None, method=True, opdef_of=_split)
def _split_method(self, split_size, dim=0):
    """``Tensor.split``: torch.split, its first argument named ``split_size`` as in PyTorch's
    method (``x.split(split_size=2, dim=0)``, BoTorch's initializers)."""
    return split(self, split_size, dim)


_split_method.__name__ = _split_method.__qualname__ = "split"  # what __torch_function__ sees


@export("chunk", method=True, opdef_of=_split)
def chunk(input, chunks, dim=0):
    chunks = _as_int(chunks)
    if input.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    n = input.shape[wrap_dim(dim, input.ndim)]
    size = -(-n // chunks)
    if size == 0 and n == 0:
        return _split_with_sizes(input, (0,) * chunks, dim)
    return _split(input, size, dim)


def _unbind_geometry(shape, dim=0):
    if len(shape) == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return wrap_dim(dim, len(shape))


def _unbind_rule(shape, st, off, out_shape, idx, dim=0):
    d = _unbind_geometry(shape, dim)
    return tuple(st[:d]) + tuple(st[d + 1:]), off + idx * st[d]


@op("unbind", out=False, is_view=True, saves=False, stride_rule=_unbind_rule)
def unbind(input, dim=0):
    d = _unbind_geometry(input.shape, dim)
    count = _piece_count(input.shape[d], input.shape[d], "unbind")
    return tuple(lax.index_in_dim(input, i, axis=d, keepdims=False) for i in range(count))


def _slice_bound(i, n):
    if i < 0:
        i += n
    return min(max(i, 0), n)


@export("tensor_split", method=True, opdef_of=_narrow)
def tensor_split(input, indices_or_sections, dim=0):
    """Views splitting ``dim`` into N near-equal sections or at the given indices; each is
    its own narrow view (unlike split's pieces, PyTorch lets them be modified in place)."""
    if input.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a "
                           "tensor with 0 dims")
    ios = indices_or_sections
    if hasattr(ios, "_array"):
        ios = _split_arg_tensor(ios)
    d = wrap_dim(dim, input.ndim)
    n = input.shape[d]
    if isinstance(ios, int):
        if ios <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {ios}")
        q, r = divmod(n, ios)
        bounds, start = [], 0
        for i in range(ios):
            size = q + (1 if i < r else 0)
            bounds.append((start, start + size))
            start += size
    else:
        edges = [0] + [_as_int(i) for i in ios] + [n]
        bounds = []
        for s, e in zip(edges[:-1], edges[1:]):
            s, e = _slice_bound(s, n), _slice_bound(e, n)
            bounds.append((s, max(e, s)))
    return tuple(_narrow(input, d, s, e - s) for s, e in bounds)


def _split_arg_tensor(t):
    if t.ndim > 1:
        raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a "
                           "zero-dimensional or one-dimensional tensor, but got a tensor with "
                           f"{t.ndim} dims")
    if t.dtype is not int64:
        raise RuntimeError("tensor_split expected tensor_indices_or_sections to have dtype of "
                           f"long, but got {t.dtype.scalar_name}")
    v = to_numpy(t._value)
    return int(v) if t.ndim == 0 else [int(i) for i in v]


def _dir_split(name, min_dim, dim_of):
    def f(input, indices_or_sections):
        if input.ndim < min_dim:
            raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dim} "
                               f"dimension, but got a tensor with "
                               f"{input.ndim} dimensions!")
        d = dim_of(input.ndim)
        ios = indices_or_sections
        if isinstance(ios, int) or (hasattr(ios, "_array") and ios.ndim == 0):
            s = _as_int(ios)
            n = input.shape[d]
            if s == 0 or n % s:
                raise RuntimeError(f"torch.{name} attempted to split along dimension {d}, but "
                                   f"the size of the dimension {n} is not divisible by the "
                                   f"split_size {s}!")
            return tensor_split(input, s, d)
        return tensor_split(input, ios, d)

    f.__name__ = f.__qualname__ = name
    return export(name, method=True, opdef_of=_narrow)(f)


hsplit = _dir_split("hsplit", 1, lambda n: 1 if n > 1 else 0)
vsplit = _dir_split("vsplit", 2, lambda n: 0)
dsplit = _dir_split("dsplit", 3, lambda n: 2)


# ------------------------------------------------------------------------------ unfold
def _unfold_geometry(shape, dimension, size, step):
    n = len(shape)
    d = wrap_dim(dimension, n)
    top = shape[d] if n else 1
    if size > top:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {top} but size is "
                           f"{size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    return d, (top - size) // step + 1


def _unfold_rule(shape, st, off, out_shape, idx, dimension, size, step):
    if not shape:
        return (1,), off
    d, _ = _unfold_geometry(shape, dimension, size, step)
    st = list(st)
    last = st[d]
    st[d] *= step
    return tuple(st) + (last,), off


@op("unfold", namespace=None, method=False, out=False, is_view=True, saves=False,
    stride_rule=_unfold_rule)
def _unfold(input, dimension, size, step):
    d, count = _unfold_geometry(input.shape, dimension, size, step)
    if input.ndim == 0:
        return jnp.reshape(input, (1,))[:size]
    if input.size == 0:
        shape = input.shape[:d] + (count,) + input.shape[d + 1:] + (size,)
        return jnp.zeros(shape, input.dtype)
    index = (jnp.arange(count) * step)[:, None] + jnp.arange(size)[None, :]
    windows = jnp.take(input, index, axis=d)  # (..., count, size, ...)
    return jnp.moveaxis(windows, d + 1, -1)




@export("unfold", namespace=None, method=True, opdef_of=_unfold)
def unfold(input, dimension, size, step):
    """Tensor.unfold: a view of all windows of ``size`` along ``dimension`` every ``step``."""
    return _unfold(input, _as_int(dimension), _as_int(size), _as_int(step))


# ------------------------------------------------------------------------------ as_strided
def _as_strided_rule(shape, st, off, out_shape, idx, size, stride, storage_offset):
    return tuple(stride), storage_offset  # its input is always the storage owner (the base)


def _strided_read(x, size, stride, storage_offset):
    """The elements of ``x`` (read as its flat storage) at ``size``/``stride``/offset."""
    index = np.full(size, storage_offset, np.int64)
    for d, (n, s) in enumerate(zip(size, stride)):
        shape = [1] * len(size)
        shape[d] = n
        index = index + np.arange(n).reshape(shape) * s
    return x.reshape(-1)[index]


@op("as_strided", method=False, out=False, is_view=True, saves=False,
    stride_rule=_as_strided_rule, namespace=None)
def _as_strided(input, size, stride, storage_offset):
    return _strided_read(input, size, stride, storage_offset)


@op("as_strided_scatter", **_SCATTER)
def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """A copy of ``input`` with ``src`` embedded at the elements ``as_strided(size, stride,
    storage_offset)`` reads of it (``input`` read as a contiguous storage)."""
    size, stride = tuple(size), tuple(stride)
    offset = 0 if storage_offset is None else storage_offset
    need = 0 if 0 in size else offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
    if need > input.size:
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage "
                           f"offset {offset}, and itemsize {input.dtype.itemsize} requiring a "
                           f"storage size of {need * input.dtype.itemsize} are out of bounds "
                           f"for storage of size {input.size * input.dtype.itemsize}")
    return _scatter_through(input, src, lambda x: _strided_read(x, size, stride, offset))


@export("as_strided", method=True, opdef_of=_as_strided)
def as_strided(input, size, stride, storage_offset=None):
    """A view of ``input``'s storage (its base's elements, in order) with the given sizes,
    strides and offset; as PyTorch, writes are refused when a stride-0 dim repeats elements."""

    size, stride = tuple(_as_int(s) for s in size), tuple(_as_int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, got "
                           f"strides: {list(stride)}")
    base = storage_root(input)
    off = input.storage_offset() if storage_offset is None else _as_int(storage_offset)
    need = 0 if 0 in size else off + 1 + sum((n - 1) * s for n, s in zip(size, stride))
    if need > base.numel():
        item = input.element_size()
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage "
                           f"offset {off}, and itemsize {item} requiring a storage size of "
                           f"{need * item} are out of bounds for storage of size "
                           f"{base.numel() * item}")
    if input._detached:
        with grad_mode(False):
            r = _as_strided(base, size, stride, off)
        r._detached, r._data_alias = True, input._data_alias
    else:
        r = _as_strided(base, size, stride, off)
    r._overlap = 0 not in size and any(s == 0 and n > 1 for n, s in zip(size, stride))
    return r
