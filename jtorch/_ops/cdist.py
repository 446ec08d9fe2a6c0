"""``torch.cdist``: the p-norm distance between every pair of rows of two batches of matrices.

Two computations, chosen as ATen chooses: for ``p == 2`` with
``compute_mode="use_mm_for_euclid_dist"``, or the default mode and more than 25 rows on either
side, ATen's matrix-product formula (``sqrt(clamp(|x|^2 - 2 x.y + |y|^2, 0))``, whose rounding
differs from the direct one); otherwise the direct norm of each difference. Both carry ATen's
backward formulas as custom vjps, so the gradients are PyTorch's where the norm has a kink: 0
where a distance is 0 (p > 0), 0 for p = 0, ``sign(diff)`` for p = 1 (0 at a zero difference,
and for p < 1 too), and for p = inf the full gradient to EVERY coordinate attaining the
maximum (JAX's max would split it among ties).

Differences from PyTorch:
    - grad_fn is ``CdistBackward0`` on the matrix-product path too (PyTorch's result there is a
      view: ``ViewBackward0``).
"""

from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp

from .._core import dtypes
from ._elementwise import category
from ._registry import op
from ._util import check_broadcast, cpp_name, type_name
from .linalg import prod_

_MODES = {"use_mm_for_euclid_dist_if_necessary": 0, "use_mm_for_euclid_dist": 1,
          "donot_use_mm_for_euclid_dist": 2}


# ------------------------------------------------------------------ the direct computation
def _norms(a, p):
    """The p-norm over the last dim of ``a = |x1 - x2|`` (ATen's dist_calc reductions)."""
    if p == 0:
        return jnp.sum(a != 0, axis=-1).astype(a.dtype)
    if p == 1:
        return jnp.sum(a, axis=-1)
    if p == 2:
        return jnp.sqrt(jnp.sum(a * a, axis=-1))
    if math.isinf(p):
        return jnp.max(a, axis=-1)
    return jnp.sum(a ** p, axis=-1) ** (1.0 / p)


def _pair_differences(x1, x2):
    return x1[..., :, None, :] - x2[..., None, :, :]


@functools.partial(jax.custom_vjp, nondiff_argnums=(2,))
def _direct(x1, x2, p):
    return _norms(jnp.abs(_pair_differences(x1, x2)), p)


def _direct_fwd(x1, x2, p):
    dist = _direct(x1, x2, p)
    return dist, (x1, x2, dist)


def _direct_bwd(p, res, grad):
    """ATen's _cdist_backward: per pair and coordinate, the derivative of the distance."""
    x1, x2, dist = res
    diff = _pair_differences(x1, x2)
    d, g = dist[..., None], grad[..., None]
    zero = d == 0
    safe = jnp.where(zero, 1, d)
    sign = jnp.sign(diff)
    if p == 0:
        t = jnp.zeros_like(diff)
    elif p == 1:
        t = g * sign
    elif p < 2:
        t = jnp.where(zero, 0, sign * jnp.abs(diff) ** (p - 1) * g / safe ** (p - 1))
        if p < 1:
            t = jnp.where(diff == 0, 0, t)
    elif p == 2:
        t = jnp.where(zero, 0, g * diff / safe)
    elif math.isinf(p):
        t = g * sign * (1 - jnp.minimum(1, jnp.ceil(jnp.abs(jnp.abs(diff) - d))))
    else:
        t = jnp.where(zero, 0, diff * jnp.abs(diff) ** (p - 2) * g / safe ** (p - 1))
    return t.sum(-2), -t.sum(-3)


_direct.defvjp(_direct_fwd, _direct_bwd)


# ------------------------------------------------------------------ the matrix-product form
@jax.custom_vjp
def _euclidean(x1, x2):
    """ATen's _euclidean_dist: one product of padded matrices."""
    n1 = jnp.sum(x1 * x1, axis=-1, keepdims=True)
    n2 = jnp.sum(x2 * x2, axis=-1, keepdims=True)
    a = jnp.concatenate([x1 * -2, n1, jnp.ones_like(n1)], axis=-1)
    b = jnp.concatenate([x2, jnp.ones_like(n2), n2], axis=-1)
    return jnp.sqrt(jnp.maximum(prod_(a, jnp.swapaxes(b, -1, -2)), 0))


def _euclidean_fwd(x1, x2):
    dist = _euclidean(x1, x2)
    return dist, (x1, x2, dist)


def _euclidean_bwd(res, grad):
    """ATen's _euclidean_dist_backward (a zero subgradient where a distance is 0)."""
    x1, x2, dist = res
    zero = dist == 0
    ratio = jnp.where(zero, 0, grad / jnp.where(zero, 1, dist))
    return (x1 * ratio.sum(-1, keepdims=True) - prod_(ratio, x2),
            x2 * ratio.sum(-2)[..., None] - prod_(jnp.swapaxes(ratio, -1, -2), x1))


_euclidean.defvjp(_euclidean_fwd, _euclidean_bwd)


# ------------------------------------------------------------------ the op
def _check(x1, x2, p, compute_mode):
    """ATen's checks in ATen's order; returns the mode's number."""
    for name, x in (("X1", x1), ("X2", x2)):
        if x.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: "
                               f"{x.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: "
                           f"{x1.shape[-1]} X2: {x2.shape[-1]}")
    for name, x in (("X1", x1), ("X2", x2)):
        if category(x) != dtypes.FLOAT:
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: "
                               f"{type_name(x)}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    check_broadcast(x1.shape[:-2], x2.shape[:-2])
    return _MODES[compute_mode]


def _validate_mode(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    # torch.functional.cdist checks the mode in Python, before anything else
    if not isinstance(compute_mode, str) or compute_mode not in _MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")


@op("cdist", method=False, out=False, tensors=("x1", "x2"), grad_name="CdistBackward0",
    check=_validate_mode)
def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The p-norm distances between the rows of ``x1`` (``(B..., P, M)``) and of ``x2``
    (``(B..., R, M)``): a ``(B..., P, R)`` tensor, the batch dims broadcast.

    Args:
        p: the norm's order, ``>= 0`` (0 counts the differing coordinates, inf is the largest
            difference).
        compute_mode: ``"use_mm_for_euclid_dist_if_necessary"`` (the matrix-product formula
            for p = 2 when either side has more than 25 rows), ``"use_mm_for_euclid_dist"``
            (always for p = 2) or ``"donot_use_mm_for_euclid_dist"``.

    Example:
        >>> torch.cdist(torch.zeros(2, 3), torch.ones(4, 3)).shape
        torch.Size([2, 4])
    """
    mode = _check(x1, x2, p, compute_mode)
    r1, r2 = x1.shape[-2], x2.shape[-2]
    batch = jnp.broadcast_shapes(x1.shape[:-2], x2.shape[:-2])
    euclid = p == 2 and (mode == 1 or (mode == 0 and (r1 > 25 or r2 > 25)))
    if x1.dtype != x2.dtype:
        if euclid:
            raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                               f"{cpp_name(x1)} != {cpp_name(x2)}")
        raise RuntimeError(f"expected scalar type {type_name(x1)} but found {type_name(x2)}")
    if x1.size == 0 or x2.size == 0:
        return jnp.zeros((*batch, r1, r2), x1.dtype)
    if not euclid and x1.dtype in (jnp.float16, jnp.bfloat16):
        raise NotImplementedError(f"\"cdist\" not implemented for '{type_name(x1)}'")
    x1 = jnp.broadcast_to(x1, (*batch, *x1.shape[-2:]))
    x2 = jnp.broadcast_to(x2, (*batch, *x2.shape[-2:]))
    return _euclidean(x1, x2) if euclid else _direct(x1, x2, float(p))
