"""Order statistics: median, nanmedian, mode, quantile, nanquantile.

All are computed from a stable sort (NaNs sort last), which reproduces PyTorch's CPU choice of
index among ties: the median is the stable-sort position ``(n - 1) // 2`` (the first NaN when a
row has one), the mode is the smallest most frequent value at its last occurrence.
"""

from __future__ import annotations

import jax.numpy as jnp
from jax import lax

from ._registry import op
from ._util import wrap_dim
from .reduction import check_nonempty_dim, even_ties, inexact, reduced_shape, select_along

_IDX = {"returns": ("values", "indices")}


def _nan_count(x, axis):
    if not inexact(x):
        return jnp.zeros(x.shape[:axis] + (1,) + x.shape[axis + 1:] if x.ndim else (),
                         jnp.int64)
    return jnp.sum(jnp.isnan(x), axis=axis, keepdims=True)


def _degenerate_dim(x, dim, keepdim, name):
    """``(d, result)``: ``dim`` wrapped, and the (values, indices) of ``name`` for a 0-d input or
    an empty one along ``d`` (None when the input is neither; an empty ``d`` raises)."""
    d = wrap_dim(dim, x.ndim)
    if x.ndim == 0:
        return d, select_along(x, jnp.zeros((), jnp.int64), 0, keepdim)
    check_nonempty_dim(name, x, d)
    if x.size == 0:
        shape = reduced_shape(x.shape, (d,), keepdim)
        return d, (jnp.zeros(shape, x.dtype), jnp.zeros(shape, jnp.int64))
    return d, None


def _median(x, dim, keepdim, ignore_nan):
    if x.dtype == jnp.bool_:
        impl = "median_cpu" if dim is None else "median_out"
        raise NotImplementedError(f"\"{impl}\" not implemented for 'Bool'")
    if dim is None:
        flat = x.reshape(-1)
        if flat.size == 0:
            return jnp.full((), jnp.nan, x.dtype)
        s = jnp.sort(flat)
        nans = _nan_count(flat, 0)[0]
        n = flat.size
        if ignore_nan:
            k = jnp.maximum((n - nans - 1) // 2, 0)
        else:
            k = jnp.where(nans > 0, n - nans, (n - 1) // 2)
        return even_ties(flat, s[k], (0,), False)
    d, trivial = _degenerate_dim(x, dim, keepdim, "median")
    if trivial is not None:
        return trivial
    n = x.shape[d]
    order = jnp.argsort(lax.stop_gradient(x), axis=d, stable=True)
    nans = _nan_count(x, d)
    if ignore_nan:
        pos = jnp.maximum((n - nans - 1) // 2, 0)
    else:
        pos = jnp.where(nans > 0, n - nans, (n - 1) // 2)
    return select_along(x, jnp.take_along_axis(order, pos, axis=d), d, keepdim)


@op("median", **_IDX)
def median(input, dim=None, keepdim=False):
    return _median(input, dim, keepdim, False)


@op("nanmedian", **_IDX)
def nanmedian(input, dim=None, keepdim=False):
    return _median(input, dim, keepdim, True)


@op("mode", **_IDX)
def mode(input, dim=-1, keepdim=False):
    x = input
    d, trivial = _degenerate_dim(x, dim, keepdim, "mode")
    if trivial is not None:
        return trivial
    xt = jnp.moveaxis(lax.stop_gradient(x), d, -1)
    order = jnp.argsort(xt, axis=-1, stable=True)
    s = jnp.take_along_axis(xt, order, axis=-1)
    first = jnp.ones(s.shape[:-1] + (1,), bool)
    new_run = jnp.concatenate([first, s[..., 1:] != s[..., :-1]], axis=-1)
    pos = lax.broadcasted_iota(jnp.int64, s.shape, s.ndim - 1)
    run_len = pos - lax.cummax(jnp.where(new_run, pos, 0), axis=s.ndim - 1) + 1
    # the first longest run in sorted order (smallest value) ends at its last occurrence
    end = jnp.argmax(run_len, axis=-1, keepdims=True)
    idx = jnp.moveaxis(jnp.take_along_axis(order, end, axis=-1), -1, d)
    return select_along(x, idx, d, keepdim)


_INTERP = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(name, x, q, dim, keepdim, interpolation, ignore_nan):
    if x.dtype not in (jnp.float32, jnp.float64):
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if isinstance(q, tuple):
        raise TypeError(f"{name}(): argument 'q' must be a float or a Tensor, not list")
    scalar_q = isinstance(q, (int, float))
    if scalar_q:
        if not 0 <= q <= 1:
            raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {q}")
        q = jnp.asarray(q, x.dtype)
    else:
        if q.ndim > 1:
            raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
        if q.dtype != x.dtype:
            raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
    if x.size == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    if interpolation not in _INTERP:
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest, but got {interpolation}")
    if dim is None:
        xs, kept = x.reshape(-1), ((1,) * x.ndim if keepdim else ())
    else:
        d = wrap_dim(dim, x.ndim)
        xs = jnp.moveaxis(x, d, -1) if x.ndim else x.reshape(1)
        kept = reduced_shape(x.shape, (d,), keepdim) if x.ndim else ()
    s = jnp.sort(xs, axis=-1)
    last = s.shape[-1] - 1
    nans = _nan_count(s, s.ndim - 1)
    qb = q.reshape(q.shape + (1,) * s.ndim)
    if ignore_nan:
        ranks = qb * (s.shape[-1] - nans - 1).astype(x.dtype)
        ranks = jnp.where(ranks < 0, last, ranks)
    else:
        ranks = jnp.where(nans > 0, last, qb * last)
    if interpolation in ("lower", "higher", "nearest"):
        ranks = {"lower": jnp.floor, "higher": jnp.ceil, "nearest": jnp.round}[interpolation](
            ranks)
    ranks = lax.stop_gradient(ranks)
    below = jnp.floor(ranks).astype(jnp.int64)
    above = jnp.minimum(jnp.ceil(ranks).astype(jnp.int64), last)
    sb = jnp.broadcast_to(s, q.shape + s.shape)
    vb = jnp.take_along_axis(sb, below, axis=-1)
    va = jnp.take_along_axis(sb, above, axis=-1)
    w = ranks - below
    if interpolation == "midpoint":
        w = jnp.where(above > below, 0.5, 0.0).astype(x.dtype)
    # PyTorch's lerp: exact at both ends
    r = jnp.where(w < 0.5, vb + w * (va - vb), va - (va - vb) * (1 - w))
    return r.reshape(q.shape + kept)


@op("quantile")
def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    return _quantile("quantile", input, q, dim, keepdim, interpolation, False)


@op("nanquantile")
def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    return _quantile("quantile", input, q, dim, keepdim, interpolation, True)
