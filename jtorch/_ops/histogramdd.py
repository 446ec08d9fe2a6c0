"""``torch.histogramdd``: the D-dimensional histogram of the rows of an ``(..., D)`` tensor.

Two kernels, neither differentiable (as PyTorch's): one makes each dimension's bin edges when
``bins`` are counts (``D + 1`` evenly spaced edges from ``range`` or the data's min and max,
the same rule as ``torch.histogram``), one counts (or sums ``weight``) into the bins given the
edges. Both run on traced values: the shapes depend only on the bin counts.
"""

from __future__ import annotations

import math
import operator

import jax.numpy as jnp

from .._core import dtypes
from .._core.dispatch import dispatch
from .._core.kernel import OpDef, return_type
from .._core.tensor_base import TensorBase
from ._registry import export
from ._util import type_name
from .selection import _bins_of, _c_name

_RESULT = return_type("histogramdd", ("hist", "bin_edges"))


def _edges_body(input, bins, range):
    x = input.reshape(-1, input.shape[-1])
    edges = []
    for d, b in enumerate(bins):
        col = x[:, d]
        if range is not None:
            lo, hi = (jnp.asarray(r, input.dtype) for r in range[2 * d:2 * d + 2])
        elif col.size:
            lo, hi = col.min(), col.max()
        else:   # no data: PyTorch's edges span [0, 1]
            lo, hi = jnp.zeros((), input.dtype), jnp.ones((), input.dtype)
        same = lo == hi
        lo, hi = jnp.where(same, lo - 0.5, lo), jnp.where(same, hi + 0.5, hi)
        edges.append(jnp.linspace(lo, hi, b + 1, dtype=input.dtype))
    return tuple(edges)


def _hist_body(input, edges, weight, density):
    x = input.reshape(-1, input.shape[-1])
    counts = tuple(e.shape[0] - 1 for e in edges)
    valid = jnp.ones(x.shape[0], bool)
    pos = []
    for d, e in enumerate(edges):
        p = _bins_of(x[:, d], e, valid)
        valid = valid & (p >= 0)
        pos.append(p)
    flat = jnp.zeros(x.shape[0], jnp.int64)
    for p, n in zip(pos, counts):
        flat = flat * n + jnp.maximum(p, 0)
    total = math.prod(counts)
    flat = jnp.where(valid, flat, total)   # out-of-range rows land in a dropped extra bin
    w = jnp.ones(x.shape[0], input.dtype) if weight is None else \
        weight.reshape(-1).astype(input.dtype)
    hist = jnp.zeros(total + 1, input.dtype).at[flat].add(w)[:total].reshape(counts)
    if density:
        widths = 1
        for d, e in enumerate(edges):
            shape = [1] * len(edges)
            shape[d] = counts[d]
            widths = widths * jnp.diff(e).reshape(shape)
        hist = hist / (hist.sum() * widths)
    return hist


_EDGES = OpDef("_histogramdd_edges", _edges_body, differentiable=False, saves=False)
_HIST = OpDef("_histogramdd", _hist_body, tensors=("input", "edges", "weight"),
              differentiable=False, saves=False)


def _too_few(n, d):
    raise RuntimeError("torch.histogramdd: bins tensor should have at least 1 element, but got "
                       f"{n} elements in the bins tensor for dimension {d}")


def _fmt(v):
    return f"{v:g}"


def _check(input, bins, rng, weight):
    if input.dtype.category != dtypes.FLOAT:
        raise NotImplementedError('"histogramdd" not implemented for '
                                  f"'{input.dtype.scalar_name}'")
    if input.ndim < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    n = input.shape[-1]
    if len(bins) != n:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost "
                           "dimension of the input.")
    if weight is not None and tuple(weight.shape) != tuple(input.shape[:-1]):
        raise RuntimeError("torch.histogramdd: if weight tensor is provided it should have the "
                           "same shape as the input tensor excluding its innermost dimension, "
                           f"but got input with shape {list(input.shape)} and weight with "
                           f"shape {list(weight.shape)}")
    if weight is not None and weight.dtype is not input.dtype:
        raise RuntimeError("torch.histogramdd: if weight tensor is provided, input tensor and "
                           "weight tensor should have the same dtype, but got input("
                           f"{_c_name(input)}), and weight({_c_name(weight)})")
    if rng is not None:
        if len(rng) != 2 * n:
            raise RuntimeError(f"torch.histogramdd: for a {n}-dimensional histogram range "
                               f"should have {2 * n} elements, but got {len(rng)}")
        for d in range(n):
            lo, hi = rng[2 * d], rng[2 * d + 1]
            if lo > hi:
                raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got "
                                   f"min {_fmt(lo)} max {_fmt(hi)} for dimension {d}")
            if not (math.isfinite(lo) and math.isfinite(hi)):
                raise RuntimeError(f"torch.histogramdd: range of [{_fmt(lo)}, {_fmt(hi)}] in "
                                   f"dimension {d} is not finite")



@export()
def histogramdd(input, bins, *, range=None, weight=None, density=False):
    """The histogram of the rows of ``input`` (``(..., D)``: each row one point in D
    dimensions). ``bins``: a count for every dimension, a list of D counts, or a list of D
    increasing 1-d edge tensors; ``range``: ``[min_0, max_0, ..., min_{D-1}, max_{D-1}]`` (with
    counts; default the data's extent); ``weight``: one weight per row; ``density``: divide by
    the total times each bin's volume. Returns ``(hist, bin_edges)``, ``bin_edges`` a tuple of
    D tensors."""
    if not isinstance(input, TensorBase):
        raise TypeError(f"histogramdd(): argument 'input' (position 1) must be Tensor, not "
                        f"{type_name(input)}")
    n = input.shape[-1] if input.ndim else 0
    if isinstance(bins, TensorBase) and bins.ndim == 0:
        bins = int(bins)
    if isinstance(bins, int):
        bins = [bins] * n
    bins = list(bins)
    rng = None if range is None else tuple(float(r) for r in range)
    _check(input, bins, rng, weight)
    if bins and all(isinstance(b, TensorBase) for b in bins):
        for d, b in enumerate(bins):
            if b.ndim != 1:
                raise RuntimeError("torch.histogramdd: bins tensor should have one dimension, "
                                   f"but got {b.ndim} dimensions in the bin tensor for "
                                   f"dimension {d}")
            if b.shape[0] == 0:
                _too_few(0, d)
            if b.dtype is not input.dtype:
                raise RuntimeError("torch.histogramdd: input tensor and bins tensors should "
                                   "have the same dtype, but got input with dtype "
                                   f"{_c_name(input)} and bins for dimension {d} with dtype "
                                   f"{_c_name(b)}")
        edges = tuple(bins)
    else:
        counts = tuple(operator.index(b) for b in bins)
        for d, b in enumerate(counts):
            if b < 0:
                _too_few(b + 1, d)
            if b == 0:
                raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {b} for "
                                   f"dimension {d}")
        edges = dispatch(_EDGES, (input, counts, rng), {})
    hist = dispatch(_HIST, (input, edges, weight, bool(density)), {})
    return _RESULT(hist, tuple(edges))
