"""torch.linalg matrix functions and helpers: matrix_power, matrix_exp, cond, vander,
tensorinv, tensorsolve, diagonal; the rest of the torch.linalg API raises NotImplementedError."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp

from ._registry import export, op
from ._util import published_stand_ins, type_name
from .linalg import no_bool, prod_
from .linalg_decomp import _LA, _LOW, _check_float, _check_square
from .shape_slice import diagonal

# --- powers, exponential, diagonal -----------------------------------------------------------

@op(("linalg.matrix_power", "matrix_power"), namespace=",linalg", method="matrix_power",
    grad_name="MmBackward0", tensors=("A",))
def matrix_power(A, n):
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError("linalg_matrix_power(): argument 'n' (position 2) must be int, not "
                        f"{type(n).__name__}")
    _check_square(A, "linalg.matrix_power")
    if n == 0:
        return jnp.broadcast_to(jnp.eye(A.shape[-1], dtype=A.dtype), A.shape)
    if n < 0:
        _check_float(A, "linalg.inv")
        A, n = jnp.linalg.inv(A), -n
    if n == 1:
        return A
    no_bool("addmm_impl_cpu_", A)
    z = result = None
    while n > 0:  # PyTorch's binary decomposition of n
        bit, n = n % 2, n // 2
        z = A if z is None else prod_(z, z)
        if bit:
            result = z if result is None else prod_(result, z)
    return result


@op(("linalg.matrix_exp", "matrix_exp"), namespace=",linalg", method="matrix_exp",
    grad_name="LinalgMatrixExpBackward0", tensors=("A",))
def matrix_exp(A):
    _check_square(A, "linalg.matrix_exp")
    if not jnp.issubdtype(A.dtype, jnp.inexact):
        raise RuntimeError("linalg.matrix_exp: Expected a floating point or complex tensor as "
                           f"input. Got {type_name(A)}")
    if A.size == 0:
        return A
    if A.dtype in _LOW:
        return _expm(A.astype(jnp.float32)).astype(A.dtype)
    return _expm(A)


# Pade(13) coefficients and the norm bound of Higham's scaling and squaring (2005)
_PADE13 = (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
           129060195264000., 10559470521600., 670442572800., 33522128640., 1323241920.,
           40840800., 960960., 16380., 182., 1.)
_THETA13 = 5.371920351148152
_MAX_SQUARINGS = 48


def _expm(A):
    """exp(A) by scaling and squaring with a [13/13] Pade approximant: compact to compile and
    differentiated by JAX through the squarings (a fixed-length loop whose steps past the
    needed count are skipped at run time)."""
    norm = jnp.max(jnp.sum(jnp.abs(A), axis=-2), axis=-1)
    s = jnp.ceil(jnp.log2(jnp.maximum(norm, 1e-30) / _THETA13))
    s = jnp.clip(jnp.nan_to_num(s), 0, _MAX_SQUARINGS).astype(jnp.int32)
    A = A / jnp.exp2(s).astype(A.dtype)[..., None, None]
    b = _PADE13
    eye = jnp.eye(A.shape[-1], dtype=A.dtype)
    A2 = prod_(A, A)
    A4 = prod_(A2, A2)
    A6 = prod_(A4, A2)
    U = prod_(A, prod_(A6, b[13] * A6 + b[11] * A4 + b[9] * A2)
              + b[7] * A6 + b[5] * A4 + b[3] * A2 + b[1] * eye)
    V = (prod_(A6, b[12] * A6 + b[10] * A4 + b[8] * A2)
         + b[6] * A6 + b[4] * A4 + b[2] * A2 + b[0] * eye)
    X = jnp.linalg.solve(V - U, V + U)
    smax = jnp.max(s)

    def square(i, X):
        return jax.lax.cond(i < smax, lambda X: jnp.where((i < s)[..., None, None],
                                                          prod_(X, X), X), lambda X: X, X)

    return jax.lax.fori_loop(0, _MAX_SQUARINGS, square, X)


@export("diagonal", namespace="linalg")
def linalg_diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """torch.linalg.diagonal: torch.diagonal with dims defaulting to the last two."""
    return diagonal(A, offset, dim1, dim2)


# --- cond, vander, tensor solvers -----------------------------------------------------------

_COND_NORMS = (None, 2, -2, "fro", "nuc", math.inf, -math.inf, 1, -1)


def _matrix_norm(A, p):
    if p == "fro":
        return jnp.sqrt(jnp.sum(jnp.abs(A) ** 2, axis=(-2, -1)))
    if p == "nuc":
        return jnp.sum(jnp.linalg.svd(A, compute_uv=False), axis=-1)
    axis = -1 if p in (math.inf, -math.inf) else -2
    sums = jnp.sum(jnp.abs(A), axis=axis)
    return jnp.max(sums, axis=-1) if p > 0 else jnp.min(sums, axis=-1)


@op("linalg.cond", grad_name="LinalgCondBackward0", **_LA)
def cond(A, p=None):
    if p not in _COND_NORMS or isinstance(p, bool):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    if A.ndim < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    if p in (None, 2, -2):
        _check_float(A, "linalg.svd", "linalg_svd_cpu")
        s = jnp.linalg.svd(A, compute_uv=False)
        return s[..., 0] / s[..., -1] if p != -2 else s[..., -1] / s[..., 0]
    _check_square(A, f"linalg.cond(ord={p})")
    _check_float(A, "linalg.inv")
    inv = jnp.linalg.inv(A)
    res = _matrix_norm(A, p) * _matrix_norm(inv, p)
    # PyTorch returns inf for singular matrices (its inverse reports failure)
    return jnp.where(jnp.all(jnp.isfinite(inv), axis=(-2, -1)), res, jnp.inf).astype(res.dtype)


@op("linalg.vander", method=False, namespace="linalg", tensors=("x",),
    grad_name="CumprodBackward0")
def vander(x, *, N=None):
    n = x.shape[-1] if N is None and x.ndim else (N if N is not None else 1)
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    if x.dtype == jnp.bool_:
        raise RuntimeError("linalg.vander supports floating point, complex, and integer tensors,"
                           " but got Bool")
    if jnp.issubdtype(x.dtype, jnp.integer):
        x = x.astype(jnp.int64)
    cols = [jnp.ones_like(x)]
    for _ in range(n - 1):
        cols.append(cols[-1] * x)
    return jnp.stack(cols, -1)


def _prod(shape):
    return math.prod(shape)


@op("linalg.tensorinv", grad_name="LinalgInvExBackward0", **_LA)
def tensorinv(A, ind=2):
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, cols = _prod(A.shape[:ind]), _prod(A.shape[ind:])
    if rows != cols:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {cols} != {rows}")
    _check_float(A, "linalg.inv")
    inv = jnp.linalg.inv(A.reshape(rows, cols))
    return inv.reshape(A.shape[ind:] + A.shape[:ind])


@op("linalg.tensorsolve", tensors=("A", "B"), method=False, namespace="linalg",
    grad_name="LinalgSolveExBackward0")
def tensorsolve(A, B, dims=None):
    if dims is not None:
        dims = [d % A.ndim for d in dims]
        A = jnp.moveaxis(A, dims, range(A.ndim - len(dims), A.ndim))
    rows, cols = B.size, _prod(A.shape[B.ndim:])
    if rows != cols:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[other.ndim:])"
                           f" == prod(self.shape[:other.ndim]), but got {cols} != {rows}")
    _check_float(A, "linalg.solve", "lu_cpu")
    if A.dtype != B.dtype:
        raise RuntimeError("linalg.solve: Expected A and B to have the same dtype, but found A "
                           f"of type {type_name(A)} and B of type {type_name(B)} instead")
    x = jnp.linalg.solve(A.reshape(rows, cols), B.reshape(rows))
    return x.reshape(A.shape[B.ndim:])


(ldl_factor, ldl_factor_ex, ldl_solve) = published_stand_ins(
    "linalg", "ldl_factor ldl_factor_ex ldl_solve")
