"""Householder reflectors: ``torch.geqrf`` (LAPACK's compact QR: R above the diagonal, the
reflectors below it, and their scales ``tau``), ``linalg.householder_product`` (``orgqr``: Q
from them) and ``ormqr`` (Q, or its adjoint, times a matrix).

geqrf is JAX's QR in "raw" mode (LAPACK's geqrf, so PyTorch's values). The products are written
here as the reflectors applied one after another, ``H_i = I - tau_i v_i v_i^H``, so that JAX
differentiates them (its own householder_product and ormqr have no derivative); their values
agree with LAPACK's to rounding.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from ._registry import export, op
from ._util import type_name
from .linalg_decomp import _LOW


def _check_lapack_float(x, fn, kernel):
    if not jnp.issubdtype(x.dtype, jnp.inexact) or x.dtype in _LOW:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{type_name(x)}'")


@jax.custom_vjp
def _geqrf(x):
    h, tau = jnp.linalg.qr(x, mode="raw")
    return jnp.swapaxes(h, -1, -2), tau


def _geqrf_backward(_, g):
    raise NotImplementedError("the derivative for 'geqrf' is not implemented.")


_geqrf.defvjp(lambda x: (_geqrf(x), None), _geqrf_backward)


@op("geqrf", returns=("a", "tau"), grad_name="GeqrfBackward0")
def geqrf(input):
    if input.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    _check_lapack_float(input, "geqrf", "geqrf_cpu")
    return _geqrf(input)


def _reflector(A, i):
    """v_i: 1 at row i, A's column i below it, zeros above."""
    m = A.shape[-2]
    rows = jnp.arange(m)
    return jnp.where(rows > i, A[..., :, i], jnp.where(rows == i, 1, 0).astype(A.dtype))


def _apply(A, tau, order, M, adjoint, left):
    """The reflectors ``H_i`` (their adjoints with ``adjoint``) applied to ``M`` in ``order``,
    from the left (``H M``) or the right (``M H``)."""
    for i in order:
        v = _reflector(A, i)
        t = tau[..., i, None, None]
        t = jnp.conj(t) if adjoint else t
        if left:   # H M = M - t v (v^H M)
            M = M - t * v[..., :, None] * jnp.sum(jnp.conj(v)[..., :, None] * M, -2,
                                                 keepdims=True)
        else:      # M H = M - t (M v) v^H
            M = M - t * jnp.sum(M * v[..., None, :], -1, keepdims=True) * \
                jnp.conj(v)[..., None, :]
    return M


@op("linalg.householder_product", tensors=("A", "tau"), method=False, namespace="linalg",
    grad_name="LinalgHouseholderProductBackward0")
def householder_product(A, tau):
    fn = "torch.linalg.householder_product"
    if A.ndim < 2:
        raise RuntimeError(f"{fn}: input must have at least 2 dimensions.")
    if A.shape[-2] < A.shape[-1]:
        raise RuntimeError(f"{fn}: input.shape[-2] must be greater than or equal to "
                           "input.shape[-1]")
    if A.shape[-1] < tau.shape[-1]:
        raise RuntimeError(f"{fn}: input.shape[-1] must be greater than or equal to "
                           "tau.shape[-1]")
    _check_lapack_float(A, fn, "orgqr_cpu")
    m, n = A.shape[-2:]
    eye = jnp.broadcast_to(jnp.eye(m, n, dtype=A.dtype), A.shape)
    return _apply(A, tau, reversed(range(tau.shape[-1])), eye, False, True)


export("orgqr", method=True)(householder_product)


@op("ormqr", tensors=("input", "input2", "input3"), grad_name="OrmqrBackward0")
def ormqr(input, input2, input3, left=True, transpose=False):
    A, tau, C = input, input2, input3
    m = A.shape[-2]
    if left and C.shape[-2] != m:
        raise RuntimeError("torch.ormqr: other.shape[-2] must be equal to input.shape[-2]")
    if not left and C.shape[-1] != m:
        raise RuntimeError("torch.ormqr: other.shape[-1] must be equal to input.shape[-2]")
    k = min(C.shape[-2] if left else C.shape[-1], A.shape[-1])
    if tau.shape[-1] != k:
        raise RuntimeError("torch.ormqr: tau.shape[-1] must be equal to min(other.shape"
                           f"[{-2 if left else -1}], input.shape[-1])")
    _check_lapack_float(A, "torch.ormqr", "ormqr_cpu")
    # Q = H_0 H_1 ... H_{k-1}: Q C applies the last first, Q^H C the first first; C Q the
    # first first, C Q^H the last first
    forward = range(tau.shape[-1])
    order = forward if left == transpose else reversed(forward)
    return _apply(A, tau, order, C, transpose, left)
