"""Vector and matrix norms: torch.norm, linalg.norm, linalg.vector_norm, linalg.matrix_norm.

PyTorch's gradient conventions at zeros are kept without hand-written backwards: the p-th powers
and roots go through ``where`` so that a zero element or a zero norm gives a zero gradient
(``0 * inf`` would be NaN), as PyTorch's norm_backward masks them.
"""

from __future__ import annotations

import jax.numpy as jnp
from jax import lax

from .._core import dtypes
from ._registry import op
from ._util import wrap_dim
from .reduction import extreme, inexact, reduce_dims, reduced_shape, safe_sqrt, type_name

_INF = float("inf")
_VNORM = "LinalgVectorNormBackward0"


def _fmt(o):
    """An order as PyTorch prints a Scalar: 2.0 -> 2, inf -> inf."""
    if isinstance(o, float) and o.is_integer():
        return str(int(o))
    return str(o)


def _sq_abs(x):
    return x.real * x.real + x.imag * x.imag if jnp.iscomplexobj(x) else x * x


def _abs(x):
    """|x| whose gradient is PyTorch's sgn(x): 0 at 0 (JAX's abs has slope 1 there) and at
    NaN (JAX's sign of NaN is NaN)."""
    if jnp.iscomplexobj(x):
        return safe_sqrt(_sq_abs(x))
    return x * lax.stop_gradient(jnp.where(jnp.isnan(x), 0, jnp.sign(x)))


def _check_float(name, x, dtype):
    """PyTorch's input and ``dtype=`` checks; returns x cast to ``dtype``."""
    if not inexact(x):
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. "
                           f"Got {type_name(x)}")
    if dtype is None:
        return x
    cplx = jnp.iscomplexobj(x)
    if cplx != (dtype.category == dtypes.COMPLEX):
        kind = "complex" if cplx else "real"
        raise RuntimeError(f"linalg.vector_norm: dtype should be {kind} for {kind} inputs, but "
                           f"got {type_name(dtype)}")
    if dtypes.promote_types(dtypes.from_np(x.dtype), dtype) is not dtype:
        raise RuntimeError(f"{name}: the dtype of the input ({type_name(x)}) should be "
                           "convertible without narrowing to the specified dtype "
                           f"({type_name(dtype)})")
    return x.astype(dtype.np)


def vector_norm_of(x, ord, dim, keepdim, dtype):
    if isinstance(ord, str):
        raise TypeError("linalg_vector_norm(): argument 'ord' (position 2) must be Number, "
                        "not str")
    x = _check_float("linalg.vector_norm", x, dtype)
    axes = reduce_dims(dim, x.ndim)
    if x.size == 0:
        if ord < 0 or ord == _INF:
            if dim is None or dim == ():
                raise RuntimeError(f"linalg.vector_norm cannot compute the {_fmt(ord)} norm on "
                                   "an empty tensor because the operation does not have an "
                                   "identity")
            for d in axes:
                if x.shape[d] == 0:
                    raise RuntimeError(f"linalg.vector_norm cannot compute the {_fmt(ord)} norm "
                                       f"on the dimension {d}because this dimension is empty "
                                       "and the operation does not have an identity")
        real = jnp.zeros((), x.dtype).real.dtype
        return jnp.zeros(reduced_shape(x.shape, axes, keepdim), real)
    if ord == 2:
        return safe_sqrt(jnp.sum(_sq_abs(x), axis=axes, keepdims=keepdim))
    a = _abs(x)
    if ord == _INF or ord == -_INF:
        return extreme(a, ord == _INF, axes, keepdim, nan_ties=True)
    if ord == 0:
        return jnp.sum(a != 0, axis=axes, keepdims=keepdim).astype(a.dtype)
    if ord == 1:
        return jnp.sum(a, axis=axes, keepdims=keepdim)
    zero = a == 0
    powed = jnp.where(zero, 0 if ord > 0 else _INF, jnp.where(zero, 1, a) ** ord)
    s = jnp.sum(powed, axis=axes, keepdims=keepdim)
    if ord < 0:
        return s ** (1.0 / ord)
    return jnp.where(s == 0, 0, jnp.where(s == 0, 1, s) ** (1.0 / ord)).astype(s.dtype)


_MATRIX_ORDS = ("fro", "nuc", 2, -2, 1, -1, _INF, -_INF)


def matrix_norm_of(A, ord, dim, keepdim, dtype):
    if not any(ord == o and isinstance(ord, str) == isinstance(o, str) for o in _MATRIX_ORDS):
        raise RuntimeError(f"linalg.matrix_norm: Order {_fmt(ord)} not supported.")
    if A.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    A = _check_float("linalg.matrix_norm", A, dtype)
    dim = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got "
                           f"{' '.join(str(d) for d in dim)}")
    d0, d1 = (wrap_dim(d, A.ndim) for d in dim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({d0}, {d1})")
    if ord == "fro":
        return vector_norm_of(A, 2, (d0, d1), keepdim, None)
    if ord in ("nuc", 2, -2):
        B = jnp.moveaxis(A, (d0, d1), (-2, -1))
        if B.size == 0:
            r = jnp.zeros(B.shape[:-2], jnp.zeros((), A.dtype).real.dtype)
        else:
            sv = jnp.linalg.svd(B, compute_uv=False)
            r = {"nuc": jnp.sum, 2: jnp.max, -2: jnp.min}[ord](sv, axis=-1)
        return jnp.expand_dims(r, tuple(sorted((d0, d1)))) if keepdim else r
    # 1 / -1: max/min column sum; inf / -inf: max/min row sum
    inner, outer = (d0, d1) if ord in (1, -1) else (d1, d0)
    s = jnp.sum(_abs(A), axis=inner, keepdims=True)
    r = extreme(s, ord > 0, (outer,), True)
    return r if keepdim else jnp.squeeze(r, (d0, d1))


@op("linalg.vector_norm", namespace="linalg", method=False, grad_name=_VNORM, tensors=("x",),
    opmath=True)
def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    return vector_norm_of(x, ord, dim, keepdim, dtype)


@op("linalg.matrix_norm", namespace="linalg", method=False, tensors=("A",))
def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    return matrix_norm_of(A, ord, dim, keepdim, dtype)


@op("linalg.norm", namespace="linalg", method=False, grad_name=_VNORM, tensors=("A",),
    opmath=True)
def linalg_norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    if dim is not None:
        dim = (dim,) if isinstance(dim, int) else tuple(dim)
        if len(dim) not in (1, 2):
            raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. "
                               f"Got {list(dim)}")
    elif ord is not None and A.ndim not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be "
                           f"1D or 2D. Got {A.ndim}D.")
    if isinstance(ord, str) or (dim is not None and len(dim) == 2) or (
            dim is None and ord is not None and A.ndim == 2):
        return matrix_norm_of(A, "fro" if ord is None else ord,
                              (-2, -1) if dim is None else dim, keepdim, dtype)
    return vector_norm_of(A, 2 if ord is None else ord, dim, keepdim, dtype)


@op("norm", grad_name=_VNORM, opmath=True)
def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    dims = (dim,) if isinstance(dim, int) else dim
    if isinstance(p, str):
        if p == "fro" and (dims is None or len(dims) <= 2):
            return vector_norm_of(input, 2, dims, keepdim, dtype)
        return matrix_norm_of(input, p, tuple(range(input.ndim)) if dims is None else dims,
                              keepdim, dtype)
    return vector_norm_of(input, 2 if p is None else p, dims, keepdim, dtype)
