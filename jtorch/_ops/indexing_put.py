"""Writes by index: ``Tensor.__setitem__``, ``index_put`` / ``index_put_``.

Each write is computed out of place, then stored into the tensor with ``_views.assign`` (through
its base when the tensor is a view). A basic index (ints, slices, None, ...) is one kernel per
index *structure* (ints and slice starts are traced values), so ``x[i] = v`` in a loop compiles
once. Advanced indices scatter (``IndexPutBackward0``); a single boolean mask whose values do
not depend on how many entries it selects becomes a ``where`` (works under tracing); other
masks need their values (eager). Duplicate indices without ``accumulate``: which write wins is
unspecified (as in PyTorch); every duplicate receives its gradient (PyTorch's rule).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from .._core import dtypes
from .._core.kernel import OpDef
from .._core.tensor_base import TensorBase
from .._core.views import assign, check_inplace, check_inplace_through_view
from ._index_util import check_scalar, scatter_set
from ._registry import export
from ._util import type_name
from .indexing import (
    _adv_indices,
    _check_index_shapes,
    _dispatch,
    _dyn_body,
    _parse,
    _view,
    _wrap_neg,
)


def _strip_ones(shape):
    shape = tuple(shape)
    while shape and shape[0] == 1:
        shape = shape[1:]
    return shape


def _fit_value(values, rshape):
    vs = _strip_ones(values.shape)
    ok = len(vs) <= len(rshape) and all(a == b or a == 1 for a, b in
                                        zip(vs[::-1], rshape[::-1]))
    if not ok:
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(vs)} cannot be "
                           f"broadcast to indexing result of shape {list(rshape)}")
    return jnp.broadcast_to(values.reshape(vs), rshape)


def _put_dtype(input, values, cast):
    if cast:
        return values.astype(input.dtype)
    if values.dtype != input.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{type_name(input)} for the destination and {type_name(values)} "
                           "for the source.")
    return values


def _full_index(shape, indices):
    """All-array index for ``indices`` (PyTorch placement: 0-d arrays act as ints) and the
    indexed result's shape."""
    n = len(shape)
    sel = {d for d, i in enumerate(indices) if i is not None and i.ndim == 0}
    adv = [d for d, i in enumerate(indices) if i is not None and i.ndim > 0]
    b = tuple(_check_index_shapes([indices[d] for d in adv])) if adv else ()
    keep = [d for d in range(n) if d not in sel]
    rest = [d for d in keep if indices[d] is None]
    pos = [keep.index(d) for d in adv]
    adjacent = pos == list(range(pos[0], pos[-1] + 1)) if pos else True
    before = [d for d in rest if adjacent and pos and keep.index(d) < pos[0]]
    after = [d for d in rest if d not in before]
    rshape = tuple(shape[d] for d in before) + b + tuple(shape[d] for d in after)
    nr = len(rshape)
    out = []
    for d in range(n):
        i = indices[d]
        if d in sel:
            out.append(_wrap_neg(i, shape[d]))
        elif i is not None:
            bshape = (1,) * len(before) + b + (1,) * len(after)
            out.append(jnp.broadcast_to(i, b).reshape(bshape))
        else:
            ax = before.index(d) if d in before else len(before) + len(b) + after.index(d)
            s = [1] * nr
            s[ax] = shape[d]
            out.append(jnp.arange(shape[d]).reshape(s))
    return tuple(out), rshape


def _index_put_body(input, values, indices, accumulate=False, cast=False):
    values = _put_dtype(input, values, cast)
    indices = list(indices) + [None] * (input.ndim - len(indices))
    if any(i is not None and i.ndim == 0 for i in indices):
        idx, rshape = _full_index(input.shape, indices)
    else:
        arrays = [i for i in indices if i is not None]
        _check_index_shapes(arrays)
        idx = tuple(slice(None) if i is None else i for i in indices)
        rshape = jnp.zeros(input.shape, jnp.bool_)[idx].shape
    v = _fit_value(values, rshape)
    if accumulate:
        return input.at[idx].add(v)
    return scatter_set(input, v, idx)


def _mask_put_body(input, values, mask, dim, vshape, accumulate=False, cast=False):
    """``input[..., mask, ...] = values`` as a where: the values do not depend on how many
    entries the mask selects (``vshape``: the values' shape aligned with input's dims)."""
    values = _put_dtype(input, values, cast).reshape(vshape)
    m = mask.reshape((1,) * dim + mask.shape + (1,) * (input.ndim - dim - mask.ndim))
    new = input + values if accumulate else values
    return jnp.where(m, new, input)


_INDEX_PUT = OpDef("index_put", _index_put_body, tensors=("input", "values"), saves=False,
                   grad_name="IndexPutBackward0")
_MASK_PUT = OpDef("index_put", _mask_put_body, tensors=("input", "values"), saves=False,
                  grad_name="IndexPutBackward0")


def _expand_body(value, shape, dtype):
    """A value for ``copy_`` into a view of ``shape``: PyTorch drops leading 1s, then expands."""
    vs = _strip_ones(value.shape)
    if len(vs) > len(shape):
        raise RuntimeError(f"expand(torch.{type_name(value)}Tensor{{{list(vs)}}}, size="
                           f"{list(shape)}): the number of sizes provided ({len(shape)}) must be "
                           f"greater or equal to the number of dimensions in the tensor "
                           f"({len(vs)})")
    off = len(shape) - len(vs)
    for i, s in enumerate(vs):
        if s != 1 and s != shape[off + i]:
            raise RuntimeError(f"The expanded size of the tensor ({shape[off + i]}) must match "
                               f"the existing size ({s}) at non-singleton dimension {off + i}.  "
                               f"Target sizes: {list(shape)}.  Tensor sizes: {list(vs)}")
    return jnp.broadcast_to(value.reshape(vs), shape).astype(dtype.np)


_EXPAND = OpDef("expand", _expand_body, tensors=("value",), saves=False,
                grad_name="ExpandBackward0")


def _copy_body(input, value):
    """``t[...] = value``: all of ``t`` is overwritten (its gradient is zero)."""
    return _expand_body(value, input.shape, dtypes.from_np(input.dtype))


def _basic_grid(shape, struct, starts):
    """Index arrays addressing the basic index's elements (None dims left out), broadcasting
    to the indexed shape; ints and slice starts are traced values."""
    it = iter(starts)
    entries, d = [], 0
    for e in struct:
        if e is None:
            continue
        if e == "i":
            entries.append(next(it))
        elif isinstance(e, slice):
            entries.append(jnp.arange(shape[d]))
        else:
            entries.append(next(it) + e[2] * jnp.arange(e[1]))
        d += 1
    entries.extend(jnp.arange(n) for n in shape[d:])
    naxes = sum(1 for a in entries if a.ndim)
    out, ax = [], 0
    for a in entries:
        if a.ndim:
            s = [1] * naxes
            s[ax] = a.shape[0]
            a = a.reshape(s)
            ax += 1
        out.append(a)
    return tuple(out)


def _set_basic_body(input, value, struct, starts):
    """``input[basic] = value`` out of place (PyTorch: copy_ into the view, casting)."""
    vshape = _dyn_body(input, struct, starts).shape
    v = _expand_body(value, vshape, dtypes.from_np(input.dtype))
    keep, vd = [], 0
    for e in struct:  # the view dims that None inserted are dropped (size 1)
        if e is None:
            vd += 1
        elif e != "i":
            keep.append(vd)
            vd += 1
    keep.extend(range(vd, len(vshape)))
    v = v.reshape(tuple(vshape[i] for i in keep))
    return scatter_set(input, v, _basic_grid(input.shape, struct, starts))


_SET_BASIC = OpDef("copy_slices", _set_basic_body, tensors=("input", "value", "starts"),
                   saves=False, grad_name="CopySlices")
_COPY = OpDef("copy", _copy_body, tensors=("input", "value"), saves=False,
              grad_name="CopyBackwards")
_FILL = OpDef("fill", _copy_body, tensors=("input", "value"), saves=False,
              grad_name="FillBackward3")


def _value_arg(t, value):
    if isinstance(value, TensorBase):
        return value, False
    if isinstance(value, (bool, int, float, complex, np.number, np.bool_)):
        check_scalar(value, t.dtype)
        return (value.item() if isinstance(value, np.generic) else value), True
    raise TypeError(f"can't assign a {_type_path(value)} to a torch.{t.dtype.scalar_name}Tensor")


def _type_path(v):
    m = type(v).__module__
    return type(v).__name__ if m == "builtins" else f"{m}.{type(v).__name__}"


def _mask_vshape(p, value):
    """The values' shape for the where form of a single-mask put, or None when the values
    depend on the number of selected entries."""
    if len(p.adv) != 1 or p.adv[0][1] != "m" or p.adv[0][2].ndim == 0:
        return None
    yd, _, m = p.adv[0]
    k = m.ndim
    vs = _strip_ones(value.shape) if isinstance(value, TensorBase) else ()
    nt = len(p.yshape) - yd - k
    if len(vs) > nt:
        if vs[len(vs) - nt - 1] != 1:
            return None
        vs = vs[:len(vs) - nt - 1] + (1,) * k + vs[len(vs) - nt:]
    if len(vs) > len(p.yshape):
        return None
    full = (1,) * (len(p.yshape) - len(vs)) + vs
    if any(a != 1 and a != b for a, b in zip(full, p.yshape)):
        return None
    return full


def _put(y, p, value, accumulate, cast):
    vshape = _mask_vshape(p, value)
    kw = {"accumulate": accumulate, "cast": cast}
    if vshape is not None:
        yd, _, m = p.adv[0]
        return _dispatch(_MASK_PUT, (y, value, m, yd, vshape), kw)
    idx = _adv_indices(p, "index_put/__setitem__ with a boolean mask whose selected count "
                          "changes the values' shape")
    return _dispatch(_INDEX_PUT, (y, value, idx), kw)


def setitem(t, index, value):
    """``Tensor.__setitem__``: computes the new values out of place, then writes them into
    ``t`` (through its base when ``t`` or the indexed part is a view)."""

    p = _parse(t, index, set_mode=True)
    value, cast = _value_arg(t, value)
    if p.basic is None and not p.adv:
        check_inplace(t)
        assign(t, _dispatch(_FILL if cast else _COPY, (t, value)))
        return
    if not p.adv and not t._overlap:
        check_inplace_through_view(t)
        assign(t, _dispatch(_SET_BASIC, (t, value, p.struct, p.starts)))
        return
    y = t if p.basic is None else _view(t, p)
    check_inplace(y)
    if not p.adv:
        assign(y, _dispatch(_EXPAND, (value, tuple(y.shape), y.dtype)))
        return
    if _mask_vshape(p, value) is not None and (cast or value.ndim == 0):
        cast = True  # PyTorch writes a 0-d value through a mask with masked_fill_ (casting)
    assign(y, _put(y, p, value, False, cast))


def _index_put_impl(input, indices, values, accumulate):
    p = _parse_put_indices(input, indices)
    if not p.adv:  # no indices: the whole tensor
        return input + values if accumulate else _dispatch(_COPY, (input, values))
    return _put(input, p, values, accumulate, False)


def _parse_put_indices(input, indices):
    """index_put's indices: tensors (0-d ones act as ints, as in indexing, but never make a
    view)."""
    if not isinstance(indices, (tuple, list)):
        raise TypeError("index_put(): argument 'indices' must be tuple of Tensors, not "
                        f"{type(indices).__name__}")
    for n, i in enumerate(indices):
        if not isinstance(i, TensorBase):
            raise TypeError(f"expected Tensor as element {n} in argument 1, but got "
                            f"{type(i).__name__}")
    p = _parse(input, tuple(indices), set_mode=True, dyn_ints=True)
    if p.basic is not None:
        raise NotImplementedError("jtorch does not implement torch.index_put with 0-d boolean "
                                  "indices yet")
    return p


@export("index_put", method=True)
def index_put(input, indices, values, accumulate=False):
    """Out-of-place ``input[indices] = values`` (``+=`` with ``accumulate``)."""
    return _index_put_impl(input, indices, values, accumulate)


@export("index_put_", method=True)
def index_put_(input, indices, values, accumulate=False):
    check_inplace(input)
    assign(input, _index_put_impl(input, indices, values, accumulate))
    return input


