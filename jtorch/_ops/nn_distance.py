"""Distances and normalisation: ``F.cosine_similarity``, ``F.pairwise_distance``, ``F.pdist``
(also ``torch.*``) and ``F.normalize``.

p-norms go through :func:`pnorm`, whose gradient at a zero vector is 0 (PyTorch's norm
backward masks it) instead of JAX's NaN. ``cosine_similarity`` follows PyTorch 2.13: each input
is divided by its norm clamped to ``eps``, the clamp made without grad (the gradient flows as
if through the unclamped norm).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .._core import dtypes
from .._core.kernel import opmath, rounded_to
from ._elementwise import category, common_dtype, default_float
from ._registry import op
from ._util import check_broadcast, type_name, wrap_dim


def pnorm(x, p, axis, keepdims=False):
    """``||x||_p`` over ``axis`` with PyTorch's gradient (0 where the norm is 0)."""
    a = jnp.abs(x)
    if p == float("inf"):
        return jnp.max(a, axis=axis, keepdims=keepdims)
    if p == float("-inf"):
        return jnp.min(a, axis=axis, keepdims=keepdims)
    if p == 0:
        return jnp.sum(jax.lax.stop_gradient(a) != 0, axis=axis, keepdims=keepdims).astype(x.dtype)
    if p == 1:
        return jnp.sum(a, axis=axis, keepdims=keepdims)
    if p == 2:
        s = jnp.sum(x * x, axis=axis, keepdims=keepdims)
    else:
        zero = a == 0
        s = jnp.sum(jnp.where(zero, 0, jnp.where(zero, 1, a) ** p), axis=axis, keepdims=keepdims)
    zero = s == 0
    safe = jnp.where(zero, 1, s)
    root = jnp.sqrt(safe) if p == 2 else safe ** (1.0 / p)
    return jnp.where(zero, 0, root)


def _cos_name(x1, x2, dim=1, eps=1e-8):
    return "SumBackward1"


@op("cosine_similarity", namespace="nn.functional,", method=False, out=False,
    tensors=("x1", "x2"), grad_name=_cos_name)
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """Cosine of the angle between ``x1`` and ``x2`` along ``dim`` (broadcasting). As in
    PyTorch, each input is normalised in its own dtype (integers: the common dtype) before the
    product promotes."""
    common = common_dtype(x1, x2)
    if common.category < dtypes.FLOAT:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is "
                           f"{common.scalar_name}")
    x1, x2 = (x.astype(common.np) if category(x) < dtypes.FLOAT else x for x in (x1, x2))
    check_broadcast(x1.shape, x2.shape)
    shape = jnp.broadcast_shapes(x1.shape, x2.shape)
    x1, x2 = jnp.broadcast_to(x1, shape), jnp.broadcast_to(x2, shape)
    d = wrap_dim(dim, len(shape))

    def unit(x):   # each step rounded to a half type, as PyTorch's ops (norm, div, mul, sum)
        n = rounded_to(pnorm(opmath(x), 2, d, keepdims=True), x.dtype)
        n = n + jax.lax.stop_gradient(jnp.maximum(n, eps) - n)
        return rounded_to(opmath(x) / n, x.dtype)

    prod = rounded_to(unit(x1) * unit(x2), jnp.result_type(x1, x2))
    return jnp.sum(prod, axis=d).astype(common.np)


def _pd_name(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    return "NormBackward1"


@op("pairwise_distance", namespace="nn.functional,", method=False, out=False,
    tensors=("x1", "x2"), promote="common", grad_name=_pd_name)
def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """``||x1 - x2 + eps||_p`` over the last dim."""
    check_broadcast(x1.shape, x2.shape)
    if category(x1) < dtypes.FLOAT:   # ints: x1 - x2 + eps is a default-float tensor
        x1, x2 = x1.astype(default_float()), x2.astype(default_float())
    diff = x1 - x2 + eps
    nd = max(x1.ndim, x2.ndim)
    axis = nd - 1 if nd else None
    return pnorm(diff, p, axis, keepdims=keepdim and nd > 0)


@op("pdist", namespace="nn.functional,", method=False, out=False, grad_name="PdistBackward0")
def pdist(input, p=2):
    """The p-norm distances between all pairs of rows (the upper triangle, row by row)."""
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if category(input) < dtypes.FLOAT:
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    i, j = np.triu_indices(input.shape[0], 1)
    if i.size == 0:
        return jnp.zeros((0,), input.dtype)
    return pnorm(input[i] - input[j], p, -1)


@op("normalize", namespace="nn.functional", method=False, grad_name="DivBackward0")
def normalize(input, p=2.0, dim=1, eps=1e-12):
    """``input / max(||input||_p, eps)`` along ``dim``."""
    if category(input) < dtypes.FLOAT:
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {type_name(input)}")
    d = wrap_dim(dim, input.ndim)
    x = opmath(input)   # PyTorch's norm, its clamp and the division each round to a half type
    n = rounded_to(pnorm(x, p, d if input.ndim else None, keepdims=True), input.dtype)
    return (x / jnp.where(n >= eps, n, eps)).astype(input.dtype)
