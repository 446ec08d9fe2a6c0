"""Cumulative (scan) ops along one dim: cumsum, cumprod, cummax, cummin, logcumsumexp."""

from __future__ import annotations

import jax.numpy as jnp
from jax import lax

from ._registry import op
from ._util import wrap_dim
from .reduction import cast, inexact, select_along, type_name


def _acc(x, dtype):
    if dtype is not None:
        return dtype.np
    return x.dtype if inexact(x) else jnp.int64


def _running(jnp_fn, input, dim, dtype):
    """``jnp_fn`` (``jnp.cumsum``/``jnp.cumprod``) along ``dim`` in the accumulation dtype."""
    x = cast(input, dtype)
    d = wrap_dim(dim, x.ndim)
    if x.ndim == 0:
        return x.astype(_acc(x, dtype))
    return jnp_fn(x, axis=d, dtype=_acc(x, dtype))


@op("cumsum", inplace=True, saves=False, opmath=True)
def cumsum(input, dim, *, dtype=None):
    return _running(jnp.cumsum, input, dim, dtype)


@op("cumprod", inplace=True)
def cumprod(input, dim, *, dtype=None):
    return _running(jnp.cumprod, input, dim, dtype)


def _cum_extreme(x, dim, big):
    """(values, indices) of the running max (min): a later element wins ties, a NaN wins over
    everything and stays until the next NaN (PyTorch's CPU rule); the gradient goes to the
    index."""
    d = wrap_dim(dim, x.ndim)
    if x.ndim == 0 or x.size == 0:
        return x, jnp.zeros(x.shape, jnp.int64)
    nan = inexact(x)

    def combine(a, b):
        (av, ai), (bv, bi) = a, b
        take = (bv >= av) if big else (bv <= av)
        if nan:
            take = take | jnp.isnan(bv)
        return jnp.where(take, bv, av), jnp.where(take, bi, ai)

    iota = lax.broadcasted_iota(jnp.int64, x.shape, d)
    _, idx = lax.associative_scan(combine, (lax.stop_gradient(x), iota), axis=d)
    return select_along(x, idx, d, True)


_IDX = {"returns": ("values", "indices")}


@op("cummax", **_IDX)
def cummax(input, dim):
    return _cum_extreme(input, dim, True)


@op("cummin", **_IDX)
def cummin(input, dim):
    return _cum_extreme(input, dim, False)


@op("logcumsumexp")
def logcumsumexp(input, dim):
    if not inexact(input):
        raise NotImplementedError(f'"logcumsumexp_out_cpu" not implemented for '
                                  f"'{type_name(input)}'")
    d = wrap_dim(dim, input.ndim)
    if input.ndim == 0 or input.size == 0:
        return input
    return lax.cumlogsumexp(input, axis=d)
