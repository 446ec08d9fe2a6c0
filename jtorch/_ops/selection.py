"""Selection ops: sort, argsort, msort, topk, kthvalue, unique, unique_consecutive, bincount,
histc, histogram, searchsorted, bucketize, nn.functional.one_hot.

Sorting is always stable (PyTorch's ``stable=False`` leaves the order of ties unspecified; a
stable order is one of the valid ones, and ties in topk/kthvalue pick the lowest index). NaN
sorts as the largest value, as in PyTorch. Gradients of sort/topk/kthvalue flow to the selected
positions (JAX's transpose of the gather). unique, unique_consecutive, bincount and one_hot with
``num_classes=-1`` have value-dependent output shapes: they read concrete values (eager only;
under tracing they raise jtorch's concretization error).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .._core import dtypes
from .._core.dispatch import dispatch
from .._core.kernel import OpDef
from .._core.tensor_base import TensorBase
from ._index_util import concrete, need_concrete
from ._registry import export, op
from ._util import type_name, wrap_dim
from .creation import place


def _argsort(x, d, descending):
    return jnp.argsort(x, axis=d, stable=True, descending=descending)


def _sorted(input, dim, descending):
    d = wrap_dim(dim, input.ndim)
    if input.ndim == 0:
        return input, jnp.zeros((), jnp.int64)
    idx = _argsort(input, d, descending)
    return jnp.take_along_axis(input, idx, axis=d), idx.astype(jnp.int64)


# ------------------------------------------------------------------------------ sorting
@op("sort", returns=("values", "indices"), saves=False)
def sort(input, dim=-1, descending=False, *, stable=False):
    return _sorted(input, dim, descending)


@op("argsort", differentiable=False, out=False)
def argsort(input, dim=-1, descending=False, *, stable=False):
    d = wrap_dim(dim, input.ndim)
    if input.ndim == 0:
        return jnp.zeros((), jnp.int64)
    return _argsort(input, d, descending).astype(jnp.int64)


@op("msort", saves=False, grad_name="SortBackward0")
def msort(input):
    return _sorted(input, 0, False)[0]


def _k_check(k, size, msg):
    if not 0 <= k <= size:
        raise RuntimeError(msg)


@op("topk", returns=("values", "indices"), saves=False)
def topk(input, k, dim=-1, largest=True, sorted=True):
    d = wrap_dim(dim, input.ndim)
    size = input.shape[d] if input.ndim else 1
    _k_check(k, size, "selected index k out of range")
    if input.ndim == 0:
        return input, jnp.zeros((), jnp.int64)
    idx = jax.lax.slice_in_dim(_argsort(input, d, largest), 0, k, axis=d)
    return jnp.take_along_axis(input, idx, axis=d), idx.astype(jnp.int64)


@op("kthvalue", returns=("values", "indices"), saves=False)
def kthvalue(input, k, dim=-1, keepdim=False):
    d = wrap_dim(dim, input.ndim)
    size = input.shape[d] if input.ndim else 1
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if input.ndim == 0:
        return input, jnp.zeros((), jnp.int64)
    idx = jax.lax.slice_in_dim(_argsort(input, d, False), k - 1, k, axis=d)
    vals = jnp.take_along_axis(input, idx, axis=d)
    if not keepdim:
        vals, idx = jnp.squeeze(vals, d), jnp.squeeze(idx, d)
    return vals, idx.astype(jnp.int64)


# ------------------------------------------------------------------------------ unique
def _place(arr, like):
    return place(np.asarray(arr), like.device)


def _unique_outputs(like, vals, inverse, counts, return_inverse, return_counts):
    out = [_place(vals, like)]
    if return_inverse:
        out.append(_place(inverse.astype(np.int64), like))
    if return_counts:
        out.append(_place(counts.astype(np.int64), like))
    return out[0] if len(out) == 1 else tuple(out)


@export("unique", method=True)
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """Unique elements (always sorted, as PyTorch's CPU kernel); eager only."""
    a = need_concrete(input, "torch.unique (its output shape depends on the values)")
    if dim is None:
        flat = a.reshape(-1)
        vals, inv, cnt = np.unique(flat, return_inverse=True, return_counts=True,
                                   equal_nan=False)
        if a.ndim == 0:
            inv = inv.reshape(())
        return _unique_outputs(input, vals, inv.reshape(a.shape), cnt, return_inverse,
                               return_counts)
    d = wrap_dim(dim, a.ndim)
    vals, inv, cnt = np.unique(a, return_inverse=True, return_counts=True, axis=d)
    return _unique_outputs(input, vals, inv.reshape(-1), cnt, return_inverse, return_counts)


@export("unique_consecutive", method=True)
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapses runs of equal consecutive elements (slices along ``dim``); eager only."""
    a = need_concrete(input, "torch.unique_consecutive (its output shape depends on the "
                             "values)")
    if dim is None:
        x = a.reshape(-1, 1)
        d, shape = 0, a.shape
    else:
        d = wrap_dim(dim, a.ndim)
        x = np.moveaxis(a, d, 0).reshape(a.shape[d] if a.ndim else 1, -1)
        shape = (x.shape[0],)
    n = x.shape[0]
    change = np.ones(n, bool)
    if n > 1:
        change[1:] = np.any(x[1:] != x[:-1], axis=1)
    starts = np.nonzero(change)[0]
    inv = (np.cumsum(change) - 1).reshape(shape)
    cnt = np.diff(np.append(starts, n))
    if dim is None:
        vals = a.reshape(-1)[starts]
    else:
        vals = np.take(a, starts, axis=d)
    return _unique_outputs(input, vals, inv, cnt, return_inverse, return_counts)


# ------------------------------------------------------------------------------ counting
def _bincount_body(input, weights, length):
    if weights is None:
        return jnp.zeros(length, jnp.int64).at[input].add(1)
    w = weights.astype(weights.dtype if weights.dtype == jnp.float32 else jnp.float64)
    return jnp.zeros(length, w.dtype).at[input].add(w)


_BINCOUNT = OpDef("bincount", _bincount_body, tensors=("input", "weights"),
                  differentiable=False)


@export("bincount", method=True)
def bincount(input, weights=None, minlength=0):
    """Counts of each non-negative int (weighted sums with ``weights``); eager only."""

    if input.dtype.category != dtypes.INT:
        raise NotImplementedError(f'"bincount_cpu" not implemented for '
                                  f"'{input.dtype.scalar_name}'")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if input.ndim != 1:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and (weights.ndim != 1 or weights.shape[0] != input.shape[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    a = need_concrete(input, "torch.bincount (its output length depends on the values)")
    if a.size and a.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    length = max(int(a.max()) + 1 if a.size else 0, minlength)
    return dispatch(_BINCOUNT, (input, weights, length), {})


def _hist_float_check(input, name):
    if not jnp.issubdtype(input.dtype, jnp.floating):
        raise NotImplementedError(f'"{name}" not implemented for \'{type_name(input)}\'')


def _bins_of(x, edges, valid):
    """Bin of each x for increasing ``edges`` (last edge inclusive); -1 outside."""
    n = edges.shape[0] - 1
    pos = jnp.searchsorted(edges, x, side="right") - 1
    pos = jnp.where(x == edges[-1], n - 1, pos)
    return jnp.where(valid & (x >= edges[0]) & (x <= edges[-1]), pos, -1)


def _accumulate(pos, w, bins, dtype):
    w = jnp.ones(pos.shape, dtype) if w is None else w.astype(dtype)
    return jnp.zeros(bins + 1, dtype).at[jnp.where(pos < 0, bins, pos)].add(w)[:bins]


@op("histc", differentiable=False)
def histc(input, bins=100, min=0, max=0):
    _hist_float_check(input, "histogram_cpu")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension "
                           "0")
    if min > max:
        raise RuntimeError("torch.histc: max must be larger than min")
    x = input.reshape(-1)
    lo, hi = jnp.asarray(min, input.dtype), jnp.asarray(max, input.dtype)
    if min == max and x.size:
        lo, hi = x.min(), x.max()
    same = lo == hi
    lo, hi = jnp.where(same, lo - 1, lo), jnp.where(same, hi + 1, hi)
    pos = ((x - lo) * bins / (hi - lo)).astype(jnp.int64)
    pos = jnp.where(pos == bins, bins - 1, pos)
    pos = jnp.where((x >= lo) & (x <= hi), pos, -1)
    return _accumulate(pos, None, bins, input.dtype)


@op("histogram", returns=("hist", "bin_edges"), differentiable=False, tensors=("input",))
def histogram(input, bins, *, range=None, weight=None, density=False):
    _hist_float_check(input, "histogramdd")
    x = input.reshape(-1)
    if isinstance(bins, int):
        if bins <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for "
                               "dimension 0")
        if range is not None:
            lo, hi = (jnp.asarray(r, input.dtype) for r in range)
        elif x.size:
            lo, hi = x.min(), x.max()
        else:
            lo, hi = jnp.zeros((), input.dtype), jnp.zeros((), input.dtype)
        same = lo == hi
        lo, hi = jnp.where(same, lo - 0.5, lo), jnp.where(same, hi + 0.5, hi)
        edges = jnp.linspace(lo, hi, bins + 1, dtype=input.dtype)
    else:
        if bins.dtype != input.dtype:
            raise RuntimeError("torch.histogramdd: input tensor and bins tensors should have "
                               f"the same dtype, but got input with dtype {_c_name(input)} "
                               f"and bins for dimension 0 with dtype {_c_name(bins)}")
        edges = bins.reshape(-1)
    n = edges.shape[0] - 1
    pos = _bins_of(x, edges, jnp.ones(x.shape, bool))
    w = None if weight is None else weight.reshape(-1)
    hist = _accumulate(pos, w, n, input.dtype)
    if density:
        hist = hist / (hist.sum() * jnp.diff(edges))
    return hist, edges


def _c_name(a):
    return {"float32": "float", "float64": "double"}.get(a.dtype.name, a.dtype.name)


# ------------------------------------------------------------------------------ searching
def _ss_shapes(seq, x, name):
    if seq.ndim == 0:
        raise RuntimeError(f"{name}: boundaries tensor should have positive dimension, but got "
                           "0 dimension")
    if seq.ndim > 1:
        if x.ndim == 0:
            raise RuntimeError(f"{name}: input value can be a scalar only when boundaries "
                               f"tensor dimension is 1, but we got boundaries tensor dim("
                               f"{seq.ndim}) and input value's dim(0) numel(1)")
        if seq.shape[:-1] != x.shape[:-1] or seq.ndim != x.ndim:
            raise RuntimeError(f"{name}: boundaries tensor should be 1 dimension or the first "
                               "N-1 dimensions of boundaries tensor and input value tensor "
                               f"must match, but we got boundaries tensor {list(seq.shape)} "
                               f"and input value tensor {list(x.shape)}")


def _search(seq, x, side, out_int32):
    dt = jnp.promote_types(seq.dtype, x.dtype)
    seq, x = seq.astype(dt), x.astype(dt)
    if seq.ndim == 1:
        res = jnp.searchsorted(seq, x, side=side)
    else:
        s2 = seq.reshape(-1, seq.shape[-1])
        x2 = x.reshape(-1, x.shape[-1])
        res = jax.vmap(lambda s, v: jnp.searchsorted(s, v, side=side))(s2, x2).reshape(x.shape)
    return res.astype(jnp.int32 if out_int32 else jnp.int64)


@op("searchsorted", method=False, differentiable=False,
    tensors=("sorted_sequence", "input"))
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
                 sorter=None):
    name = "torch.searchsorted()"
    if side is not None and side not in ("left", "right"):
        raise RuntimeError(f"{name}: side can only be 'left' or 'right' but got {side}")
    if side is not None and right and side == "left":
        raise RuntimeError(f"{name}: side and right can't be set to opposites, got side of "
                           "left while right was True")
    _ss_shapes(sorted_sequence, input, name)
    seq = sorted_sequence
    if sorter is not None:
        if sorter.shape != seq.shape:
            raise RuntimeError(f"{name}: boundary and sorter must have the same size, but got "
                               f"boundary tensor {list(seq.shape)}and got sorter tensor "
                               f"{list(sorter.shape)}")
        seq = jnp.take_along_axis(seq, sorter, axis=-1)
    side = side or ("right" if right else "left")
    return _search(seq, input, side, out_int32)


@op("bucketize", method=False, differentiable=False, tensors=("input", "boundaries"))
def bucketize(input, boundaries, *, out_int32=False, right=False):
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim("
                           f"{boundaries.ndim})")
    return _search(boundaries, input, "right" if right else "left", out_int32)


# ------------------------------------------------------------------------------ one_hot
def _one_hot_body(input, num_classes):
    return (input[..., None] == jnp.arange(num_classes)).astype(jnp.int64)


_ONE_HOT = OpDef("one_hot", _one_hot_body, differentiable=False)


@export("one_hot", namespace="nn.functional")
def one_hot(tensor, num_classes=-1):
    """``torch.nn.functional.one_hot``; ``num_classes=-1`` reads the values (eager only)."""

    if not isinstance(tensor, TensorBase) or tensor.dtype.name != "int64":
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    a = concrete(tensor)
    if num_classes == -1:
        a = need_concrete(tensor, "one_hot with num_classes=-1 (its output shape depends on "
                                  "the values)")
        if a.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(a.max()) + 1
    if a is not None and a.size:
        if a.min() < 0:
            raise RuntimeError("Class values must be non-negative.")
        if a.max() >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    return dispatch(_ONE_HOT, (tensor, num_classes), {})
