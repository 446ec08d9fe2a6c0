"""The LU family (``linalg.lu_factor``, ``lu_factor_ex``, ``lu``, ``lu_solve``; the older
``torch.lu``, ``lu_unpack``, ``lu_solve``) and the ``_ex`` forms of inv, solve and cholesky,
whose ``info`` reports what PyTorch's LAPACK calls report.

LU is LAPACK's partial pivoting (``jax.lax.linalg.lu``): the same factors as PyTorch's
``getrf``, pivots 1-based int32 as PyTorch gives them. Gradients are JAX's derivatives. As
elsewhere in jtorch's linalg (linalg_decomp.py), a singular input does not raise: the factors
hold the zero pivot and ``info`` says where it is.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from .._core.warn_once import warn_once
from ._registry import export, op
from ._util import type_name
from .linalg_decomp import (
    _LA,
    _check_float,
    _check_square,
    _cholesky,
    _mH,
    inv,
    solve,
)


def _check_lu_input(A, fn):
    if A.ndim < 2:
        raise RuntimeError(f"torch.{fn}: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(A.shape)} instead")
    if not jnp.issubdtype(A.dtype, jnp.inexact):   # (getrf's dispatch names the kernel)
        raise NotImplementedError(f"\"lu_cpu\" not implemented for '{type_name(A)}'")
    _check_float(A, f"linalg.{fn}", "lu_cpu")


def _check_pivot(pivot, fn):
    if not pivot:
        raise RuntimeError(f"linalg.{fn}: LU without pivoting is not implemented on the CPU")


def _zero_pivot_info(U):
    """LAPACK getrf's info: the 1-based index of the first exactly zero diagonal entry of U,
    0 when there is none."""
    d = jnp.diagonal(U, axis1=-2, axis2=-1)
    zero = d == 0
    return jnp.where(zero.any(-1), jnp.argmax(zero, -1) + 1, 0).astype(jnp.int32)


def _lu_factor(A):
    lu, piv, _ = jax.lax.linalg.lu(A)
    return lu, (piv + 1).astype(jnp.int32)


@op("linalg.lu_factor_ex", returns=("LU", "pivots", "info"),
    grad_name="LinalgLuFactorExBackward0", **_LA)
def lu_factor_ex(A, *, pivot=True, check_errors=False):
    _check_lu_input(A, "lu_factor_ex")
    _check_pivot(pivot, "lu_factor_ex")
    lu, pivots = _lu_factor(A)
    return lu, pivots, _zero_pivot_info(lu)


@op("linalg.lu_factor", returns=("LU", "pivots"), grad_name="LinalgLuFactorExBackward0", **_LA)
def lu_factor(A, *, pivot=True):
    _check_lu_input(A, "lu_factor")
    _check_pivot(pivot, "lu_factor")
    return _lu_factor(A)


def _unpack(lu, perm, m, n):
    """(P, L, U) of a packed LU and its row permutation: A = P @ L @ U."""
    k = min(m, n)
    L = jnp.tril(lu[..., :, :k], -1) + jnp.eye(m, k, dtype=lu.dtype)
    U = jnp.triu(lu[..., :k, :])
    P = jnp.swapaxes(jnp.eye(m, dtype=lu.dtype)[perm], -1, -2)
    return P, L, U


@op("linalg.lu", returns=("P", "L", "U"), grad_name="LinalgLuBackward0",
    **{**_LA, "namespace": None})
def _lu(A, *, pivot=True):
    _check_lu_input(A, "lu")
    _check_pivot(pivot, "lu_factor")
    lu_, _, perm = jax.lax.linalg.lu(A)
    return _unpack(lu_, perm, A.shape[-2], A.shape[-1])


def _constant_P(res):
    """PyTorch's P is not differentiable (no grad_fn): detached here."""
    return type(res)(res.P.detach(), res.L, res.U)


@export("lu", namespace="linalg", opdef_of=_lu)
def lu(A, *, pivot=True, out=None):
    """``torch.linalg.lu``: ``(P, L, U)`` with ``A = P @ L @ U``."""
    return _constant_P(_lu(A, pivot=pivot, out=out))


def _permutation(pivots, m):
    return jax.lax.linalg.lu_pivots_to_permutation(pivots.astype(jnp.int32) - 1, m)


@op("lu_unpack", tensors=("LU_data", "LU_pivots"), method=False, namespace=None,
    returns=("P", "L", "U"), grad_name="LuUnpackBackward0")
def _lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    m, n = LU_data.shape[-2:]
    P, L, U = _unpack(LU_data, _permutation(LU_pivots, m), m, n)
    empty = jnp.zeros((0,), LU_data.dtype)
    return (P if unpack_pivots else empty, L if unpack_data else empty,
            U if unpack_data else empty)


@export("lu_unpack", opdef_of=_lu_unpack)
def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """``torch.lu_unpack``: ``(P, L, U)`` of ``lu_factor``'s result."""
    return _constant_P(_lu_unpack(LU_data, LU_pivots, unpack_data, unpack_pivots, out=out))


def _lu_solve(LU, pivots, B, left, adjoint):
    n = LU.shape[-1]
    if not left:   # X A = B  <=>  A^H X^H = B^H (adjoint: A X^H = B^H)
        return _mH(_lu_solve(LU, pivots, _mH(B), True, not adjoint))
    batch = jnp.broadcast_shapes(LU.shape[:-2], B.shape[:-2], pivots.shape[:-1])
    LU = jnp.broadcast_to(LU, batch + LU.shape[-2:])
    B = jnp.broadcast_to(B, batch + B.shape[-2:])
    perm = jnp.broadcast_to(_permutation(pivots, n), batch + (n,))
    tri = jax.lax.linalg.triangular_solve
    if not adjoint:   # A = P L U: X = U^-1 L^-1 P^T B
        Y = jnp.take_along_axis(B, perm[..., :, None], axis=-2)
        Y = tri(LU, Y, left_side=True, lower=True, unit_diagonal=True)
        return tri(LU, Y, left_side=True, lower=False)
    # A^H = U^H L^H P^T: X = P L^-H U^-H B
    Y = tri(LU, B, left_side=True, lower=False, transpose_a=True, conjugate_a=True)
    Y = tri(LU, Y, left_side=True, lower=True, unit_diagonal=True, transpose_a=True,
            conjugate_a=True)
    inverse = jnp.argsort(perm, axis=-1)
    return jnp.take_along_axis(Y, inverse[..., :, None], axis=-2)


@op("linalg.lu_solve", tensors=("LU", "pivots", "B"), method=False, namespace="linalg",
    grad_name="LinalgLuSolveBackward0")
def linalg_lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    if B.ndim < 2:
        raise RuntimeError("linalg.lu_solve: The input tensor B must have at least 2 "
                           "dimensions.")
    _check_square(LU, "linalg.lu_solve")
    if LU.dtype != B.dtype:
        raise RuntimeError("linalg.lu_solve: Expected LU and B to have the same dtype, but "
                           f"found LU of type {LU.dtype} and B of type {B.dtype} instead")
    return _lu_solve(LU, pivots, B, left, adjoint)


@export("lu_solve", method=True)
def lu_solve(input, LU_data, LU_pivots, *, out=None):
    """``torch.lu_solve(b, LU_data, LU_pivots)``: ``linalg.lu_solve(LU_data, LU_pivots, b)``."""
    return linalg_lu_solve(LU_data, LU_pivots, input, out=out)


_LU_DEPRECATED = (
    "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and "
    "will be removed in a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\n"
    "should be replaced with\nLU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\n"
    "LU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)\nshould be replaced with\n"
    "LU, pivots, info = torch.linalg.lu_factor_ex(A, compute_pivots)")


@export("lu", method=True)
def torch_lu(A, pivot=True, get_infos=False, out=None):
    """``torch.lu`` (deprecated, as PyTorch says once): ``(LU, pivots)``, with ``infos`` when
    ``get_infos``."""
    warn_once("torch.lu", _LU_DEPRECATED, stacklevel=3)   # (under its overridable wrapper)
    res = lu_factor_ex(A, pivot=pivot)
    return tuple(res) if get_infos else (res.LU, res.pivots)


# ------------------------------------------------------------------ the _ex forms
@op("linalg.inv_ex", returns=("inverse", "info"), grad_name="LinalgInvExBackward0", **_LA)
def inv_ex(A, *, check_errors=False):
    _check_square(A, "linalg.inv")
    return inv._opdef.fn(A), _zero_pivot_info(jax.lax.linalg.lu(A)[0])


@op("linalg.solve_ex", returns=("result", "info"), method=False, namespace="linalg",
    tensors=("A", "B"), grad_name="LinalgSolveExBackward0")
def solve_ex(A, B, *, left=True, check_errors=False):
    X = solve._opdef.fn(A, B, left=left)
    return X, _zero_pivot_info(jax.lax.linalg.lu(A)[0])


def _cholesky_failure(A, upper):
    """LAPACK potrf's info for one matrix: the order of the first leading minor that is not
    positive definite (0 when all are), by an unblocked Cholesky on the triangle PyTorch
    reads."""
    a = _mH(A) if upper else A
    n = a.shape[-1]
    idx = jnp.arange(n)

    def step(k, carry):
        L, info = carry
        row = jnp.where(idx < k, L[k], 0)
        d = jnp.real(a[k, k]) - jnp.sum(jnp.abs(row) ** 2)
        bad = ~(d > 0)
        info = jnp.where((info == 0) & bad, k + 1, info)
        dk = jnp.sqrt(jnp.where(bad, 1.0, d)).astype(a.dtype)
        col = (a[:, k] - L @ jnp.conj(row)) / dk
        L = L.at[:, k].set(jnp.where(idx > k, col, jnp.where(idx == k, dk, 0)))
        return L, info

    return jax.lax.fori_loop(0, n, step, (jnp.zeros_like(a), jnp.int32(0)))[1]


@op("linalg.cholesky_ex", returns=("L", "info"), grad_name="LinalgCholeskyExBackward0", **_LA)
def cholesky_ex(A, *, upper=False, check_errors=False):
    _check_square(A, "linalg.cholesky")
    _check_float(A, "linalg.cholesky", "cholesky_cpu")
    L = _cholesky(A, upper)
    failed = jnp.isnan(L).any((-2, -1))
    flat = A.reshape((-1,) + A.shape[-2:])
    info = jax.lax.cond(failed.any(),
                        lambda: jax.vmap(lambda a: _cholesky_failure(a, upper))(flat),
                        lambda: jnp.zeros(flat.shape[:1], jnp.int32))
    return L, jax.lax.stop_gradient(info.reshape(A.shape[:-2]))
