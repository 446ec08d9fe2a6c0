"""torch.linalg decompositions and solvers: inv, det, slogdet, solve, svd, qr, cholesky, eigh,
pinv, matrix_rank, lstsq, triangular and Cholesky solves (matrix functions: linalg_matfn.py).

Gradients are JAX's derivatives of these bodies. Where PyTorch's convention differs they are
adjusted in one place each: Hermitian inputs (``_hermitian``: the values use one triangle, the
gradient is the symmetric one PyTorch returns), ``svd(full_matrices=True)`` (the extra singular
vectors get no gradient, as in PyTorch) and the QR modes PyTorch refuses to differentiate.
Value-dependent failures (singular or non positive-definite input) do not raise
``LinAlgError``: under ``jit`` the result holds inf/NaN instead.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from ._registry import export, op
from ._util import check_broadcast, type_name
from .linalg import prod_

_LOW = (jnp.float16, jnp.bfloat16)
_LA = {"method": False, "namespace": "linalg", "tensors": ("A",)}  # torch.linalg.fn(A, ...)


class LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError. jtorch cannot raise it from compiled code (see module doc)."""


export("LinAlgError", namespace="linalg")(LinAlgError)


# --- shared checks ---------------------------------------------------------------------------

def _check_matrix(A, fn, name="A"):
    if A.ndim < 2:
        raise RuntimeError(f"{fn}: The input tensor {name} must have at least 2 dimensions.")


def _check_square(A, fn):
    _check_matrix(A, fn)
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{fn}: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")


def _check_float(A, fn, kernel=None):
    """Floating or complex input; half precision raises PyTorch's CPU text for ``kernel``
    (NotImplementedError) or, without a kernel name, the 'Low precision' RuntimeError."""
    if not jnp.issubdtype(A.dtype, jnp.inexact):
        raise RuntimeError(f"{fn}: Expected a floating point or complex tensor as input. Got "
                           f"{type_name(A)}")
    if A.dtype in _LOW:
        if kernel:
            raise NotImplementedError(f"\"{kernel}\" not implemented for '{type_name(A)}'")
        raise RuntimeError(f"{fn}: Low precision dtypes not supported. Got {type_name(A)}")


def _check_float_double(A):
    if not jnp.issubdtype(A.dtype, jnp.inexact) or A.dtype in _LOW:
        raise RuntimeError("This function doesn't handle types other than float and double")


def _mH(x):
    return jnp.conj(jnp.swapaxes(x, -1, -2))


def _hermitian(A, lower):
    """The Hermitian matrix PyTorch reads from one triangle of A, with the symmetric gradient
    PyTorch's backward returns: value from the triangle, derivative of (A + A^H) / 2."""
    tri = jnp.tril(A) if lower else jnp.triu(A)
    strict = jnp.tril(A, -1) if lower else jnp.triu(A, 1)
    value = tri + _mH(strict)
    if jnp.issubdtype(A.dtype, jnp.complexfloating):
        d = jnp.arange(A.shape[-1])
        value = value.at[..., d, d].set(jnp.real(value[..., d, d]))
    sym = (A + _mH(A)) / 2
    return jax.lax.stop_gradient(value) + (sym - jax.lax.stop_gradient(sym))


def _no_grad_error(msg):
    """Identity whose backward raises PyTorch's error for a non-differentiable output."""
    @jax.custom_vjp
    def f(x):
        return x

    def bwd(_, g):
        raise RuntimeError(msg)

    f.defvjp(lambda x: (x, None), bwd)
    return f


def _batch(*xs):
    shape = ()
    for x in xs:
        check_broadcast(shape, x.shape[:-2])
        shape = jnp.broadcast_shapes(shape, x.shape[:-2])
    return shape


# --- inverse, determinants, solve ------------------------------------------------------------

@op("linalg.inv", grad_name="LinalgInvExBackward0", **_LA)
def inv(A):
    _check_square(A, "linalg.inv")
    _check_float(A, "linalg.inv")
    return jnp.linalg.inv(A)


export("inverse", method=True)(inv)


@op(("linalg.det", "det"), namespace=",linalg", method="det",
    grad_name="LinalgDetBackward0", tensors=("A",))
def det(A):
    _check_square(A, "linalg.det")
    _check_float(A, "linalg.det", "lu_cpu")
    if A.shape[-1] == 0:  # JAX's det derivative fails on 0x0 matrices
        return jnp.ones(A.shape[:-2], A.dtype)
    return jnp.linalg.det(A)


def _slogdet(A):
    if A.shape[-1] == 0:
        return jnp.ones(A.shape[:-2], A.dtype), jnp.zeros(A.shape[:-2], jnp.real(A).dtype)
    return jnp.linalg.slogdet(A)


@op(("linalg.slogdet", "slogdet"), namespace=",linalg", method="slogdet",
    returns=("sign", "logabsdet"), grad_name="LinalgSlogdetBackward0", tensors=("A",))
def slogdet(A):
    _check_square(A, "linalg.slogdet")
    _check_float(A, "linalg.slogdet")
    sign, logabs = _slogdet(A)
    # the sign is piecewise constant: no gradient flows through it
    return jax.lax.stop_gradient(sign), logabs


@op("logdet", grad_name="WhereBackward0")  # PyTorch's logdet is where(sign < 0, nan, ...)
def logdet(input):
    _check_square(input, "logdet")
    _check_float(input, "logdet")
    sign, logabs = _slogdet(input)
    if jnp.issubdtype(input.dtype, jnp.complexfloating):
        return jnp.log(jax.lax.stop_gradient(sign)) + logabs
    return jnp.where(sign < 0, jnp.nan, logabs).astype(input.dtype)


def _solve_shapes(A, B, fn, left, vector):
    """PyTorch's compatibility check of A and B for AX = B (or XA = B)."""
    rows, cols = (B.shape[-1], 1) if vector else B.shape[-2:]
    ok = A.shape[-1] == rows if left else A.shape[-2] == cols
    if not ok:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"{fn}: Incompatible shapes of A and B for the equation {eq} "
                           f"({A.shape[-2]}x{A.shape[-1]} and {rows}x{cols})")


@op("linalg.solve", method=False, namespace="linalg", tensors=("A", "B"),
    grad_name="LinalgSolveExBackward0")
def solve(A, B, *, left=True):
    _check_matrix(A, "linalg.solve")
    _check_float(A, "linalg.solve", "lu_cpu")
    if B.dtype != A.dtype:
        raise RuntimeError("linalg.solve: Expected A and B to have the same dtype, but found A "
                           f"of type {type_name(A)} and B of type {type_name(B)} instead")
    if A.shape[-1] != A.shape[-2]:
        _check_square(A, "linalg.solve")
    if B.ndim < 1:
        raise RuntimeError("linalg.solve: The input tensor B must have at least 2 dimensions.")
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and B.shape == A.shape[:-1])
    _solve_shapes(A, B, "linalg.solve", left, vector)
    Bm = B[..., None] if vector else B
    batch = _batch(A, Bm)
    A = jnp.broadcast_to(A, batch + A.shape[-2:])
    Bm = jnp.broadcast_to(Bm, batch + Bm.shape[-2:])
    if left:
        X = jnp.linalg.solve(A, Bm)
    else:
        X = _mH(jnp.linalg.solve(_mH(A), _mH(Bm)))
    return X[..., 0] if vector else X


# --- triangular and Cholesky solves ---------------------------------------------------------

def _tri_solve(A, B, upper, left=True, unitriangular=False, transpose=False, conj=False):
    batch = _batch(A, B)
    A = jnp.broadcast_to(A, batch + A.shape[-2:])
    B = jnp.broadcast_to(B, batch + B.shape[-2:])
    if A.shape[-1] == 0 or B.size == 0:
        return jnp.zeros(B.shape, B.dtype)
    return jax.lax.linalg.triangular_solve(A, B, left_side=left, lower=not upper,
                                           transpose_a=transpose, conjugate_a=conj,
                                           unit_diagonal=unitriangular)


@op("linalg.solve_triangular", method=False, namespace="linalg", tensors=("A", "B"))
def solve_triangular(A, B, *, upper, left=True, unitriangular=False):
    fn = "linalg.solve_triangular"
    _check_matrix(A, fn)
    _check_matrix(B, fn, "B")
    _check_square(A, fn)
    if not jnp.issubdtype(A.dtype, jnp.inexact) or A.dtype in _LOW:
        raise NotImplementedError(f"\"triangular_solve_cpu\" not implemented for "
                                  f"'{type_name(A)}'")
    _solve_shapes(A, B, fn, left, False)
    return _tri_solve(A, B.astype(A.dtype), upper, left, unitriangular)


def _check_b_A(b, A, fn_b, kernel):
    if b.ndim < 2:
        raise RuntimeError(fn_b.format(b.ndim))
    if b.dtype != A.dtype:
        raise RuntimeError("Expected b and A to have the same dtype, but found b of type "
                           f"{type_name(b)} and A of type {type_name(A)} instead.")
    if not jnp.issubdtype(A.dtype, jnp.inexact) or A.dtype in _LOW:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{type_name(A)}'")


@op("triangular_solve", tensors=("input", "A"), returns=("solution", "cloned_coefficient"),
    grad_name="TriangularSolveBackward0")
def triangular_solve(input, A, upper=True, transpose=False, unitriangular=False):
    _check_b_A(input, A, "torch.triangular_solve: Expected b to have at least 2 dimensions, "
               "but it has {} dimensions instead", "triangular_solve_cpu")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError("A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    if A.shape[-1] != input.shape[-2]:
        raise RuntimeError(f"Incompatible matrix sizes for triangular_solve: each A matrix is "
                           f"{A.shape[-1]} by {A.shape[-1]} but each b matrix is "
                           f"{input.shape[-2]} by {input.shape[-1]}")
    batch = _batch(input, A)
    X = _tri_solve(A, input, upper, True, unitriangular, transpose)
    return X, jnp.broadcast_to(A, batch + A.shape[-2:])


@op("cholesky_solve", tensors=("input", "input2"), grad_name="CholeskySolveBackward0")
def cholesky_solve(input, input2, upper=False):
    L = input2
    _check_b_A(input, L, "b should have at least 2 dimensions, but has {} dimensions instead",
               "cholesky_solve_cpu")
    if L.shape[-1] != input.shape[-2] or L.shape[-1] != L.shape[-2]:
        raise RuntimeError(f"Incompatible matrix sizes for cholesky_solve: each A matrix is "
                           f"{L.shape[-2]} by {L.shape[-1]} but each b matrix is "
                           f"{input.shape[-2]} by {input.shape[-1]}")
    # values: two triangular solves with the factor's triangle; gradient: PyTorch treats the
    # factor as a full matrix F in (F F^H)^-1 B, so it is taken from that expression
    Y = _tri_solve(L, input, upper, transpose=upper, conj=upper)
    X = _tri_solve(L, Y, upper, transpose=not upper, conj=not upper)
    F = prod_(_mH(L), L) if upper else prod_(L, _mH(L))
    full = jnp.linalg.solve(jnp.broadcast_to(F, _batch(F, input) + F.shape[-2:]),
                            jnp.broadcast_to(input, _batch(F, input) + input.shape[-2:]))
    return jax.lax.stop_gradient(X) + (full - jax.lax.stop_gradient(full))


@op("cholesky_inverse", grad_name="CholeskyInverseBackward0")
def cholesky_inverse(input, upper=False):
    """The inverse of ``A = L L^H`` (``U^H U`` with ``upper``) from its Cholesky factor:
    ``cholesky_solve`` of the identity."""
    if input.ndim < 2:
        raise RuntimeError("cholesky_inverse: The input tensor A must have at least 2 "
                           "dimensions.")
    eye = jnp.broadcast_to(jnp.eye(input.shape[-1], dtype=input.dtype), input.shape)
    return cholesky_solve._opdef.fn(eye, input, upper)


# --- SVD, QR, Cholesky, eigh -----------------------------------------------------------------

def _svd(A, full_matrices):
    u, s, vh = jnp.linalg.svd(A, full_matrices=False)
    m, n = A.shape[-2:]
    k = min(m, n)
    if full_matrices and m != n:
        # the completing singular vectors are not unique; like PyTorch they get no gradient
        uf, _, vhf = jnp.linalg.svd(jax.lax.stop_gradient(A), full_matrices=True)
        u = jnp.concatenate([u, uf[..., k:]], -1)
        vh = jnp.concatenate([vh, vhf[..., k:, :]], -2)
    return u, s, vh


@op("linalg.svd", returns=("U", "S", "Vh"), grad_name="LinalgSvdBackward0", **_LA)
def linalg_svd(A, full_matrices=True, *, driver=None):
    _check_matrix(A, "linalg.svd")
    _check_float(A, "linalg.svd", "linalg_svd_cpu")
    return _svd(A, full_matrices)


@op("linalg.svdvals", grad_name="LinalgSvdBackward0", **_LA)
def svdvals(A, *, driver=None):
    _check_matrix(A, "linalg.svd")
    _check_float(A, "linalg.svd", "linalg_svd_cpu")
    return jnp.linalg.svd(A, compute_uv=False)


@op("svd", namespace=None, method=False, returns=("U", "S", "V"),
    grad_name="LinalgSvdBackward0")
def _svd_legacy(input, some=True, compute_uv=True):
    if input.ndim < 2:
        raise RuntimeError("linalg.svd: input should have at least 2 dimensions, but has "
                           f"{input.ndim} dimensions instead")
    _check_float(input, "linalg.svd", "linalg_svd_cpu")
    if not compute_uv:
        m, n = input.shape[-2:]
        s = jnp.linalg.svd(input, compute_uv=False)
        return (jnp.zeros(input.shape[:-2] + (m, m), input.dtype), s,
                jnp.zeros(input.shape[:-2] + (n, n), input.dtype))
    u, s, vh = _svd(input, not some)
    return u, s, _mH(vh)


@export("svd", method=True)
def svd(input, some=True, compute_uv=True, *, out=None):
    """torch.svd (deprecated): U, S, V with V = Vh^H; compute_uv=False gives zero U and V
    that do not require grad."""
    res = _svd_legacy(input, some, compute_uv, out=out)
    if compute_uv or out is not None:
        return res
    return type(res)(res.U.detach(), res.S, res.V.detach())


_QR_R = ("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
         "Please use linalg.qr(A, mode='reduced') if you are going to differentiate through "
         "linalg.qr.")
_QR_COMPLETE = ("The QR decomposition is not differentiable when mode='complete' and nrows > "
                "ncols.")


def _qr(A, mode):
    m, n = A.shape[-2:]
    if mode == "r":
        r = jnp.linalg.qr(A, mode="r")
        return jnp.zeros((0,), A.dtype), _no_grad_error(_QR_R)(r)
    if m > n and mode == "complete":
        q, r = jnp.linalg.qr(A, mode="complete")
        err = _no_grad_error(_QR_COMPLETE)
        return err(q), err(r)
    if m < n:
        # JAX differentiates QR only for m >= n: factor the leading square block, as LAPACK does
        q, r1 = jnp.linalg.qr(A[..., :m], mode="reduced")
        return q, jnp.concatenate([r1, prod_(_mH(q), A[..., m:])], -1)
    return tuple(jnp.linalg.qr(A, mode="reduced"))


@op("linalg.qr", returns=("Q", "R"), grad_name="LinalgQrBackward0", **_LA)
def linalg_qr(A, mode="reduced"):
    if mode not in ("reduced", "r", "complete"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           "'reduced' (default), 'r', or 'complete'")
    _check_matrix(A, "linalg.qr")
    _check_float(A, "linalg.qr", "geqrf_cpu")
    return _qr(A, mode)


@op("qr", returns=("Q", "R"), grad_name="LinalgQrBackward0")
def qr(input, some=True):
    _check_matrix(input, "linalg.qr")
    _check_float(input, "linalg.qr", "geqrf_cpu")
    return _qr(input, "reduced" if some else "complete")


def _cholesky(A, upper):
    L = jax.lax.linalg.cholesky(_hermitian(A, lower=not upper), symmetrize_input=False)
    return _mH(L) if upper else L


@op("linalg.cholesky", grad_name="LinalgCholeskyExBackward0", **_LA)
def linalg_cholesky(A, *, upper=False):
    _check_square(A, "linalg.cholesky")
    _check_float(A, "linalg.cholesky", "cholesky_cpu")
    return _cholesky(A, upper)


@op("cholesky", grad_name="CholeskyBackward0")
def cholesky(input, upper=False):
    _check_square(input, "cholesky")
    _check_float(input, "cholesky", "cholesky_cpu")
    return _cholesky(input, upper)


def _eigh(A, UPLO):
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    _check_square(A, "linalg.eigh")
    if not jnp.issubdtype(A.dtype, jnp.inexact) or A.dtype in _LOW:
        raise NotImplementedError(f"\"linalg_eigh_cpu\" not implemented for '{type_name(A)}'")
    w, v = jnp.linalg.eigh(_hermitian(A, UPLO == "L"), symmetrize_input=False)
    return w, v


@op("linalg.eigh", returns=("eigenvalues", "eigenvectors"), grad_name="LinalgEighBackward0",
    **_LA)
def eigh(A, UPLO="L"):
    return _eigh(A, UPLO)


@op("linalg.eigvalsh", grad_name="LinalgEighBackward0", **_LA)
def eigvalsh(A, UPLO="L"):
    return _eigh(A, UPLO)[0]


# --- pseudo-inverse, rank, least squares -----------------------------------------------------

def _eps(A):
    return jnp.finfo(A.dtype).eps


def _rtol(A, atol, rtol):
    """PyTorch's default rtol: eps * max(m, n) unless a positive atol is given."""
    default = _eps(A) * max(A.shape[-2:])
    if rtol is not None:
        return jnp.asarray(rtol, jnp.real(A).dtype)
    if atol is None:
        return jnp.asarray(default, jnp.real(A).dtype)
    return jnp.where(jnp.asarray(atol) > 0, 0.0, default).astype(jnp.real(A).dtype)


def _singular_values(A, hermitian):
    if hermitian:
        return jnp.abs(jnp.linalg.eigvalsh(_hermitian(A, True), symmetrize_input=False))
    return jnp.linalg.svd(A, compute_uv=False)


def _cutoff(A, s, atol, rtol):
    smax = jnp.max(s, axis=-1, initial=0.0) if s.shape[-1] else jnp.zeros(s.shape[:-1])
    cut = _rtol(A, atol, rtol) * smax
    if atol is not None:
        cut = jnp.maximum(cut, jnp.asarray(atol, cut.dtype))
    return cut, smax


@op("linalg.pinv", method=False, namespace="linalg", tensors=("A", "atol", "rtol", "rcond"),
    grad_name="LinalgPinvBackward0")
def pinv(A, rcond=None, hermitian=False, *, atol=None, rtol=None):
    if A.ndim < 2 or not jnp.issubdtype(A.dtype, jnp.inexact) or A.dtype in _LOW:
        shape = "[" + ", ".join(str(d) for d in A.shape) + "]"
        raise RuntimeError(f"linalg.pinv({type_name(A)}{{{shape}}}): expected a tensor with 2 "
                           "or more dimensions of float, double, cfloat or cdouble types")
    if rcond is not None:
        if rtol is not None:
            raise TypeError("linalg_pinv() received an invalid combination of arguments - got "
                            "both rcond and rtol")
        rtol = rcond
    if hermitian:
        _check_square(A, "linalg.eigh")
    if A.size == 0:
        return jnp.zeros(A.shape[:-2] + A.shape[::-1][:2], A.dtype)
    if atol is None:
        eff = _rtol(A, None, rtol)
    else:
        s = jax.lax.stop_gradient(_singular_values(A, hermitian))
        cut, smax = _cutoff(A, s, atol, rtol)
        eff = jnp.where(smax > 0, cut / jnp.where(smax > 0, smax, 1), 1)
    if not hermitian:
        return jnp.linalg.pinv(A, rtol=eff)
    # values from the lower triangle (eigh); PyTorch's gradient is the general pinv one
    general = jnp.linalg.pinv(A, rtol=eff)
    value = jnp.linalg.pinv(jax.lax.stop_gradient(_hermitian(A, True)), rtol=eff, hermitian=True)
    return value + (general - jax.lax.stop_gradient(general))


@export("pinverse", method=True)
def pinverse(input, rcond=1e-15):
    """torch.pinverse: linalg.pinv with rtol=rcond."""
    return pinv(input, rtol=rcond)


@op("linalg.matrix_rank", method=False, namespace="linalg",
    tensors=("A", "atol", "rtol", "tol"), differentiable=False)
def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None):
    if A.ndim < 2:
        raise RuntimeError("torch.linalg.matrix_rank: The input tensor input must have at least "
                           "2 dimensions.")
    _check_float_double(A)
    if tol is not None:
        atol, rtol = tol, 0.0
    if hermitian:
        _check_square(A, "linalg.eigh")
    s = _singular_values(A, hermitian)
    cut, _ = _cutoff(A, s, atol, rtol)
    return jnp.sum(s > cut[..., None], axis=-1).astype(jnp.int64)


_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


@op("linalg.lstsq", method=False, namespace=None, out=False, tensors=("A", "B"),
    returns=("solution", "residuals", "rank", "singular_values"),
    grad_name="LinalgLstsqBackward0")
def _lstsq(A, B, rcond=None, *, driver=None):
    driver = driver or "gelsy"
    if driver not in _DRIVERS:
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of (gels, "
                           "gelsy, gelsd, gelss)")
    _check_float_double(A)
    if A.dtype != B.dtype:
        raise RuntimeError("torch.linalg.lstsq: Expected input and other to have the same "
                           f"dtype, but got input's dtype {type_name(A)} and other's dtype "
                           f"{type_name(B)}")
    _check_matrix(A, "torch.linalg.lstsq")
    vector = B.ndim == A.ndim - 1
    Bm = B[..., None] if vector else B
    batch = _batch(A, Bm)
    if A.shape[-2] != Bm.shape[-2]:
        raise RuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    A = jnp.broadcast_to(A, batch + A.shape[-2:])
    Bm = jnp.broadcast_to(Bm, batch + Bm.shape[-2:])
    m, n = A.shape[-2:]
    rtol = _eps(A) * max(m, n) if rcond is None or rcond < 0 else rcond
    s = jax.lax.stop_gradient(jnp.linalg.svd(A, compute_uv=False))
    X = prod_(jnp.linalg.pinv(A, rtol=rtol), Bm) if A.size else jnp.zeros(
        batch + (n, Bm.shape[-1]), A.dtype)
    real = jnp.real(A).dtype
    empty = jnp.zeros((0,), real)
    if driver != "gelsy" and m > n:
        res = jnp.sum(jnp.abs(prod_(A, X) - Bm) ** 2, axis=-2)
    else:
        res = empty
    if driver == "gels":
        rank = jnp.zeros((0,), jnp.int64)
    else:
        smax = s[..., :1] if s.shape[-1] else jnp.zeros(batch + (1,), real)
        rank = jnp.sum(s > rtol * smax, axis=-1).astype(jnp.int64)
    sv = s if driver in ("gelsd", "gelss") else empty
    return (X[..., 0] if vector else X), res, rank, sv


@export("lstsq", namespace="linalg")
def lstsq(A, B, rcond=None, *, driver=None):
    """torch.linalg.lstsq: the singular values it returns never carry gradients."""
    res = _lstsq(A, B, rcond, driver=driver)
    return type(res)(res.solution, res.residuals, res.rank, res.singular_values.detach())
