"""Indexing: ``Tensor.__getitem__`` (writes: ``indexing_put``), ``nonzero``, ``argwhere``,
``masked_select``.

An index is read left to right as PyTorch does. Ints, slices, ``None``, ``...`` and Python bools
form the *basic* part, applied as ONE view op (so ``stride()``/``storage_offset()`` and writes
through the result behave as in PyTorch); its ints and slice starts are traced values, so
``x[i]`` for every ``i`` reuses one compiled kernel. Tensor, list and NumPy-array indices
(*advanced*) then index that view as one gathering op (``IndexBackward0``), so advanced dims are
placed by NumPy's rule applied after the ints were consumed (PyTorch's rule, which differs from
NumPy's when ints sit between advanced indices). Boolean masks become the integer indices of
their ``True`` entries; that needs their values, so it runs eagerly (under tracing it raises
jtorch's concretization error). Index bounds are checked eagerly from the concrete index values;
under tracing they are not checked (JAX clamps gathers and drops out-of-range scatters).
"""

from __future__ import annotations

import operator
import warnings

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.core import max_dim, min_dim
from jax.export import is_symbolic_dim

from .._core import torch_function
from .._core.dispatch import dispatch
from .._core.kernel import PROMOTED, OpDef, template
from .._core.strides import attach_view
from .._core.tensor_base import TensorBase
from .._core.views import assign_out
from ._index_util import concrete, first_oob, need_concrete
from ._registry import export, op
from ._util import check_broadcast
from .creation import _caller_level, place

_BAD_TYPE = ("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
             "are valid indices (got {})")
_BAD_DTYPE = "tensors used as indices must be long, int, byte or bool tensors"
_SEQ_WARNING = ("Using a non-tuple sequence for multidimensional indexing is deprecated and will "
                "be changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 "
                "this will be interpreted as tensor index, x[torch.tensor(seq)], which will "
                "result either in an error or a different result")


# ------------------------------------------------------------------------------ parsing
def _as_tuple(index):
    """PyTorch's treatSequenceAsTuple: short sequences holding slices, None, ..., tensors or
    sequences are read as a tuple of indices (with a deprecation warning)."""
    if isinstance(index, tuple):
        return index
    if isinstance(index, list) and len(index) < 32 and any(
            e is None or e is Ellipsis
            or isinstance(e, (slice, list, tuple, TensorBase, np.ndarray)) for e in index):
        warnings.warn(_SEQ_WARNING, UserWarning, stacklevel=_caller_level())
        return tuple(index)
    return (index,)


def _norm_slice(s):
    def ix(v):
        if v is None:
            return None
        try:
            return operator.index(v)
        except TypeError:
            if is_symbolic_dim(v):   # a size read while exporting (jax.export), e.g. x.shape[0]
                return v
            raise TypeError("slice indices must be integers or None or have an __index__ "
                            "method") from None

    start, stop, step = ix(s.start), ix(s.stop), ix(s.step)
    if step is not None:
        if step == 0:
            raise ValueError("slice step cannot be zero")
        if step < 0:
            raise ValueError("step must be greater than zero")
    return slice(start, stop, step)


def _array_item(v, dtype_name, dyn_ints):
    """An index given as an array (jax or NumPy) of dtype ``dtype_name``; 0-d integer arrays act
    as ints (``dyn_ints``: kept as arrays, never read)."""
    if dtype_name == "uint8":
        warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use a dtype "
                      "torch.bool instead.", UserWarning, stacklevel=_caller_level())
        dtype_name = "bool"
    if dtype_name == "bool":
        if v.ndim == 0:
            return ("bool", bool(need_concrete(v, "indexing with a 0-d boolean tensor")))
        return ("m", v)
    if dtype_name not in ("int64", "int32"):
        raise IndexError(_BAD_DTYPE)
    if v.ndim == 0:
        c = None if dyn_ints else concrete(v)
        return ("dyn", v) if c is None else ("int", int(c))
    return ("t", v)


def _item(it, dyn_ints):
    if it is None:
        return ("none", None)
    if it is Ellipsis:
        return ("ell", None)
    if isinstance(it, (bool, np.bool_)):
        return ("bool", bool(it))
    if isinstance(it, (int, np.integer)):
        return ("int", int(it))
    if isinstance(it, slice):
        return ("slice", _norm_slice(it))
    if isinstance(it, TensorBase):
        return _array_item(it._value, it.dtype.name, dyn_ints)
    if isinstance(it, (np.ndarray, jax.Array)):
        return _array_item(it, np.dtype(it.dtype).name, dyn_ints)
    if isinstance(it, (list, tuple, range)):   # a sequence of indices (PyTorch takes range)
        a = np.asarray(it)
        if a.size == 0:
            a = a.astype(np.int64)
        if a.dtype.kind in "iu" and a.dtype != np.int32:
            a = a.astype(np.int64)
        return _array_item(a, a.dtype.name, dyn_ints)
    if isinstance(it, str):
        raise TypeError("new(): invalid data type 'str'")
    if isinstance(it, float):
        raise IndexError(_BAD_TYPE.format("float"))
    if hasattr(it, "__index__"):
        return ("int", operator.index(it))
    if is_symbolic_dim(it):   # a size read while exporting (jax.export), e.g. x.shape[0] - 1
        return ("int", it)
    raise IndexError(_BAD_TYPE.format(type(it).__name__))


def _symbolic_slice(s, size):
    """``s.indices(size)`` and the slice's length where the size or a bound is a symbolic
    dimension (jax.export): clamped with ``max_dim``/``min_dim``, the step is positive. A bound
    whose sign JAX cannot decide raises its InconclusiveDimensionOperation."""
    step = 1 if s.step is None else s.step

    def clamp(i, default):
        if i is None:
            return default
        return min_dim(size, i) if i >= 0 else max_dim(0, size + i)

    start, stop = clamp(s.start, 0), clamp(s.stop, size)
    return start, stop, step, max_dim(0, stop - start + step - 1) // step


class _Parsed:
    """basic: static tuple for the view op (None: no view); kind: its grad_fn name;
    struct/starts: the same index with int positions and slice starts lifted out (so one
    compiled kernel serves x[0], x[1]...); adv: [(dim in the view, kind, value)];
    yshape: shape of the view."""

    __slots__ = ("basic", "kind", "adv", "yshape", "struct", "starts")


def _parse(t, index, set_mode=False, dyn_ints=False):
    shape = tuple(t.shape)
    ndim = len(shape)
    if ndim == 0 and not isinstance(index, tuple):
        if isinstance(index, (int, np.integer)) and not isinstance(index, (bool, np.bool_)):
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                             "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
        if isinstance(index, slice) and not set_mode:
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    bare_slice = isinstance(index, slice) and not set_mode
    items = [_item(it, dyn_ints) for it in _as_tuple(index)]
    spec = sum(1 if k in ("int", "slice", "t", "dyn") else (v.ndim if k == "m" else 0)
               for k, v in items)
    if spec > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    basic, adv, yshape, struct, starts = [], [], [], [], []
    d, kind = 0, None
    for k, v in items:
        if k == "int":
            size = shape[d]
            if not -size <= v < size:
                raise IndexError(f"index {v} is out of bounds for dimension {d} with size {size}")
            basic.append(v)
            struct.append("i")
            starts.append(v % size)
            d += 1
            kind = "SelectBackward0"
        elif k == "slice":
            size = shape[d]
            if v == slice(None):   # the whole dimension (its size may be symbolic: jax.export)
                start, stop, step = 0, size, 1
                yshape.append(size)
            else:
                try:
                    start, stop, step = v.indices(size)
                    yshape.append(len(range(start, stop, step)))
                except TypeError:   # a symbolic size or bound (jax.export)
                    start, stop, step, length = _symbolic_slice(v, size)
                    yshape.append(length)
            if bare_slice or not (start == 0 and stop == size and step == 1):
                basic.append(v)
                struct.append(("s", yshape[-1], step))
                starts.append(start)
                kind = "SliceBackward0"
            else:
                basic.append(slice(None))
                struct.append(slice(None))
            d += 1
        elif k == "none":
            basic.append(None)
            struct.append(None)
            yshape.append(1)
            kind = "UnsqueezeBackward0"
        elif k == "ell":
            n = ndim - spec
            basic.extend([slice(None)] * n)
            struct.extend([slice(None)] * n)
            yshape.extend(shape[d:d + n])
            d += n
        elif k == "bool":
            basic.append(None)
            struct.append(None)
            adv.append((len(yshape), "t", np.zeros(int(v), np.int64)))
            yshape.append(1)
            kind = "UnsqueezeBackward0"
        elif k == "m":
            adv.append((len(yshape), "m", v))
            basic.extend([slice(None)] * v.ndim)
            struct.extend([slice(None)] * v.ndim)
            yshape.extend(shape[d:d + v.ndim])
            d += v.ndim
        else:  # "t", "dyn"
            adv.append((len(yshape), k, v))
            basic.append(slice(None))
            struct.append(slice(None))
            yshape.append(shape[d])
            d += 1
    yshape.extend(shape[d:])
    for yd, k, v in adv:
        if k == "m":
            for j, s in enumerate(v.shape):
                if s != yshape[yd + j]:
                    raise IndexError(f"The shape of the mask {list(v.shape)} at index {j} does "
                                     f"not match the shape of the indexed tensor {yshape} at "
                                     f"index {yd + j}")
    while basic and basic[-1] == slice(None):
        basic.pop()
        struct.pop()
    p = _Parsed()
    p.basic = tuple(basic) if kind is not None else None
    p.kind, p.adv, p.yshape = kind, adv, tuple(yshape)
    p.struct, p.starts = tuple(struct), tuple(starts)
    return p


def _adv_indices(p, what):
    """Per dim of the view: None or an index array (masks become their nonzero indices);
    checks bounds when the values are concrete."""
    out = [None] * len(p.yshape)
    rank = 0
    for yd, k, v in p.adv:
        if k == "m":
            m = need_concrete(v, what)
            for j, nz in enumerate(np.nonzero(m)):
                out[yd + j] = nz
            rank += v.ndim
            continue
        if k == "t":
            c = concrete(v)
            if c is not None:
                bad = first_oob(c, p.yshape[yd], True)
                if bad is not None:
                    raise IndexError(f"index {bad} is out of bounds for dimension {rank} with "
                                     f"size {p.yshape[yd]}")
            rank += 1
        out[yd] = v
    while out and out[-1] is None:
        out.pop()
    return tuple(out)


# ------------------------------------------------------------------------------ bodies
def _basic_body(input, index):
    return input[index]


def _basic_strides(shape, st, off, out_shape, idx, index):
    """PyTorch's strides for the basic index, applied step by step as PyTorch does."""
    sizes, strides = list(shape), list(st)
    d = 0
    for it in index:
        if it is None:
            strides.insert(d, sizes[d] * strides[d] if d < len(sizes) else 1)
            sizes.insert(d, 1)
            d += 1
        elif isinstance(it, slice):
            try:
                start, stop, step = it.indices(sizes[d])
                sizes[d] = len(range(start, stop, step))
            except TypeError:   # a symbolic size or bound (jax.export)
                start, stop, step, sizes[d] = _symbolic_slice(it, sizes[d])
            off += start * strides[d]
            strides[d] *= step
            d += 1
        else:   # an int (a symbolic one while exporting)
            off += (it % sizes[d]) * strides[d]
            del sizes[d], strides[d]
    return tuple(strides), off


def _dyn_body(input, struct, starts):
    """The basic index with int positions and slice starts as traced values (``starts``)."""
    it = iter(starts)
    d = 0
    for e in struct:
        if e is None:
            input = jnp.expand_dims(input, d)
            d += 1
        elif e == "i":
            input = lax.dynamic_index_in_dim(input, next(it), d, keepdims=False)
        elif isinstance(e, slice):
            d += 1
        else:
            _, size, step = e
            span = max_dim(0, (size - 1) * step + 1)   # 0 for an empty slice; size may be symbolic
            input = lax.dynamic_slice_in_dim(input, next(it), span, axis=d)
            if step > 1:
                input = lax.slice_in_dim(input, 0, span, step, axis=d)
            d += 1
    return input


# The view a basic index makes: its values and gradient come from one kernel per index
# *structure* (_DYN_VIEWS); the view's chain records the static index (_STATIC_VIEW), which
# PyTorch's strides and writes through the view are derived from.
_DYN_VIEWS = {name: OpDef("getitem", _dyn_body, tensors=("input", "starts"), saves=False,
                          grad_name=name)
              for name in ("SelectBackward0", "SliceBackward0", "UnsqueezeBackward0",
                           "AliasBackward0")}
_STATIC_VIEW = OpDef("getitem", _basic_body, is_view=True, saves=False,
                     stride_rule=_basic_strides)


def _check_index_shapes(arrays):
    try:
        return np.broadcast_shapes(*[a.shape for a in arrays])
    except ValueError:
        shapes = ", ".join(str(list(a.shape)) for a in arrays)
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together "
                         f"with shapes {shapes}") from None


def _wrap_neg(i, size):
    return jnp.where(i < 0, i + size, i)


def _index_body(input, indices):
    """Advanced indexing of the basic view; 0-d index arrays (tensors seen while tracing) act
    as ints, as in PyTorch."""
    indices = list(indices) + [None] * (input.ndim - len(indices))
    for d in reversed(range(len(indices))):
        i = indices[d]
        if i is not None and i.ndim == 0:
            input = lax.dynamic_index_in_dim(input, _wrap_neg(i, input.shape[d]), d,
                                             keepdims=False)
            del indices[d]
    arrays = [i for i in indices if i is not None]
    if not arrays:
        return input
    _check_index_shapes(arrays)
    return input[tuple(slice(None) if i is None else i for i in indices)]


_INDEX = OpDef("index", _index_body, saves=False, grad_name="IndexBackward0")


# ------------------------------------------------------------------------------ public
def _dispatch(opdef, args, kwargs=None):
    return dispatch(opdef, args, kwargs or {})


def _view(t, p):
    """A basic-index view: computed by the dynamic-start kernel (one compile for every
    position), linked to ``t`` as the static view it is (for strides and writes)."""

    v = _dispatch(_DYN_VIEWS[p.kind], (t, p.struct, p.starts))
    if v._node is not None:   # its _saved_start/_end/_step/_dim (core/saved_attrs.py)
        v._node.index_args = (tuple(t.shape), p.basic)
    static_key = ((PROMOTED, template(p.basic, False, [], [])), (), None)
    attach_view(v, t, _STATIC_VIEW.kernel(static_key), None)
    return v


_ALIAS = _Parsed()
_ALIAS.kind, _ALIAS.basic, _ALIAS.struct, _ALIAS.starts = "AliasBackward0", (), (), ()


def getitem(t, index):
    """``Tensor.__getitem__``."""
    p = _parse(t, index)
    y = t if p.basic is None else _view(t, p)
    if not p.adv:
        if p.basic is None:
            return _view(t, _ALIAS)
        return y
    idx = _adv_indices(p, "boolean-mask indexing (its output shape depends on the mask's "
                          "values)")
    return _dispatch(_INDEX, (y, idx))


# ------------------------------------------------------------------ data-dependent selection
def _place(arr, like):
    return place(arr, like.device)


@export("nonzero", method=True)
def nonzero(input, *, out=None, as_tuple=False):
    """Indices of the non-zero elements (eager only: the output size depends on values)."""
    a = need_concrete(input, "torch.nonzero (its output shape depends on the values)")
    nz = np.nonzero(a.reshape(1) if a.ndim == 0 else a)
    if as_tuple:
        return tuple(_place(i.astype(np.int64), input) for i in nz)
    res = np.stack(nz, axis=1).astype(np.int64) if a.ndim else np.zeros((len(nz[0]), 0),
                                                                         np.int64)
    res = _place(res, input)
    if out is not None:
        assign_out(out, res)
        return out
    return res


@op("nonzero_static", differentiable=False, saves=False)
def nonzero_static(input, *, size, fill_value=-1):
    """``nonzero`` with a fixed number of rows, ``size``: the first ``size`` indices, the rest
    ``fill_value`` (its shape does not depend on the values, so it runs under jit)."""
    if not isinstance(size, int) or size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    if input.ndim == 0:
        return jnp.zeros((size, 0), jnp.int64)
    idx = jnp.nonzero(input, size=size, fill_value=fill_value)
    return jnp.stack(idx, axis=1).astype(jnp.int64)


@export("argwhere", method=True)
def argwhere(input):
    """``torch.argwhere``: ``nonzero(input)``."""
    return nonzero(input)


def _masked_select_body(input, idx, shape):
    return jnp.broadcast_to(input, shape)[idx]


_MASKED_SELECT = OpDef("masked_select", _masked_select_body, saves=False)


@export("masked_select", method=True)
@torch_function.input_overridable("torch.masked_select")
def masked_select(input, mask, *, out=None):
    """The elements of ``input`` where the (broadcast) ``mask`` is True, as a 1-D tensor."""
    if not isinstance(mask, TensorBase) or mask.dtype.name != "bool":
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    check_broadcast(tuple(mask.shape), tuple(input.shape))
    shape = tuple(np.broadcast_shapes(tuple(input.shape), tuple(mask.shape)))
    m = need_concrete(mask, "torch.masked_select (its output shape depends on the mask)")
    idx = np.nonzero(np.broadcast_to(m, shape))
    res = _dispatch(_MASKED_SELECT, (input, idx, shape))
    if out is not None:
        assign_out(out, res)
        return out
    return res


from .indexing_put import index_put, setitem  # noqa: E402 - writes, which use the parser above

__all__ = ["getitem", "setitem", "index_put", "nonzero", "argwhere", "masked_select"]
