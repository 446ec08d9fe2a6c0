"""Reductions: sum, mean, prod, std/var, min/max, norms, cumulative ops, softmax..."""

from __future__ import annotations

import jax.numpy as jnp

from ._registry import op


def _dims(dim, ndim):
    from ._util import wrap_dim

    if dim is None:
        return None
    if isinstance(dim, int):
        return (wrap_dim(dim, ndim),)
    return tuple(wrap_dim(d, ndim) for d in dim) or None


def _acc_dtype(x, dtype):
    if dtype is not None:
        return dtype.np
    if jnp.issubdtype(x.dtype, jnp.integer) or x.dtype == jnp.bool_:
        return jnp.int64
    return x.dtype


@op("sum", saves=False)
def sum(input, dim=None, keepdim=False, *, dtype=None):
    return jnp.sum(input, axis=_dims(dim, input.ndim), keepdims=keepdim,
                   dtype=_acc_dtype(input, dtype))


@op("mean", saves=False)
def mean(input, dim=None, keepdim=False, *, dtype=None):
    return jnp.mean(input, axis=_dims(dim, input.ndim), keepdims=keepdim,
                    dtype=None if dtype is None else dtype.np)
