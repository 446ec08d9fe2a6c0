"""Matrix products: matmul and its family (mm, bmm, mv, dot, inner, outer, kron, addmm...),
multi_dot, vecdot and cross. einsum and tensordot: linalg_einsum.py; decompositions:
linalg_decomp.py; matrix functions: linalg_matfn.py.

PyTorch does not promote dtypes in the matmul family: mixed dtypes raise, with a message that
depends on the internal kernel the call reaches (dot, mv, mm or bmm). ``matmul`` follows
PyTorch's dispatch (``_matmul_impl``) to raise the same text. Products run at full precision
(``Precision.HIGHEST``), as PyTorch does by default (no TF32).
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp

from .._core import dtypes
from .._core.kernel import opmath
from .._core.views import assign_out
from ._registry import export, op
from ._util import check_broadcast, cpp_name, type_name, wrap_dim

HI = jax.lax.Precision.HIGHEST

def no_bool(kernel, *xs):
    """PyTorch's CPU kernels for products are not implemented for bool."""
    for x in xs:
        if x.dtype == jnp.bool_:
            raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


def _shape(s):
    return "[" + ", ".join(str(d) for d in s) + "]"


def prod_(a, b):
    """The product itself, at full precision (PyTorch does not use TF32 by default)."""
    return jnp.matmul(a, b, precision=HI)


# --- the checks of PyTorch's dot, mv, mm and bmm kernels, in PyTorch's order -----------------

def _check_dot(a, b):
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.dtype != b.dtype:
        raise RuntimeError("dot : expected both vectors to have same dtype, but found "
                           f"{type_name(a)} and {type_name(b)}")
    if a.shape[0] != b.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src "
                           f"[{b.shape[0]}] to have the same number of elements, but got "
                           f"{a.shape[0]} and {b.shape[0]} elements respectively")
    no_bool("dot", a)


def _check_mv(mat, vec, self=None):
    rows = mat.shape[0] if mat.ndim == 2 else None
    sd = 1 if self is None else self.ndim
    if mat.ndim != 2 or vec.ndim != 1 or sd > 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {sd}, {mat.ndim}, "
                           f"{vec.ndim}")
    n_self = rows if self is None or self.ndim == 0 else self.shape[0]
    if mat.shape[1] != vec.shape[0] or (n_self != rows and n_self != 1):
        raise RuntimeError(f"size mismatch, got input ({n_self}), mat ({rows}x{mat.shape[1]}),"
                           f" vec ({vec.shape[0]})")
    sdt = vec if self is None else self
    if not (sdt.dtype == mat.dtype == vec.dtype):
        raise RuntimeError("addmv input tensors must have the same dtype, but got "
                           f"{type_name(sdt)}, {type_name(mat)}, and {type_name(vec)}")
    no_bool("addmv_impl_cpu", mat)


def _check_mm(a, b):
    if a.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if b.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    _check_mm_sizes(a, b)


def _check_mm_sizes(a, b):
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x"
                           f"{a.shape[1]} and {b.shape[0]}x{b.shape[1]})")
    if a.dtype != b.dtype:
        raise RuntimeError("expected m1 and m2 to have the same dtype, but got: "
                           f"{cpp_name(a)} != {cpp_name(b)}")
    no_bool("addmm_impl_cpu_", a)


def _check_bmm_sizes(sa, sb, a, b, kernel="bmm"):
    """sa, sb: the (batch, n, m) shapes bmm sees."""
    if (sb[0], sb[1]) != (sa[0], sa[2]):
        raise RuntimeError("Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{sa[0]}, {sa[2]}] but got: [{sb[0]}, {sb[1]}].")
    if a.dtype != b.dtype:
        raise bmm_dtype_error(a, b, sa[1] * sa[2] * sb[2])
    no_bool(kernel, a)


def bmm_dtype_error(a, b, work):
    """PyTorch's CPU bmm error for batch1 ``a`` and batch2 ``b`` of different dtypes:
    its small-product loop (rows * contraction * columns, ``work``, under 400) names
    batch1's dtype as expected, its BLAS path batch2's."""
    first, second = (a, b) if work < 400 else (b, a)
    return RuntimeError(f"expected scalar type {type_name(first)} but found "
                        f"{type_name(second)}")


def _check_bmm(a, b, kernel="bmm"):
    if a.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if b.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    _check_bmm_sizes(a.shape, b.shape, a, b, kernel)


def _folded(shape, dtype):
    """Shape and dtype of an array of ``shape`` viewed as a (prod(shape[:-1]), shape[-1])
    matrix, for the checks."""
    return jax.ShapeDtypeStruct((math.prod(shape[:-1]), shape[-1]), dtype)


def _check_matmul(a, b):
    """The checks of ``torch.matmul`` along the kernel path PyTorch takes for these shapes.

    PyTorch folds a >=3-D operand into a matrix (mm/mv path) or broadcasts to bmm depending
    also on strides and requires_grad; jtorch assumes contiguous inputs without grad there.
    """
    d1, d2 = a.ndim, b.ndim
    if d1 == 0 or d2 == 0:
        raise RuntimeError("both arguments to matmul need to be at least 1D, but they are "
                           f"{d1}D and {d2}D")
    if d1 == 1 and d2 == 1:
        return _check_dot(a, b)
    if d1 == 2 and d2 == 1:
        return _check_mv(a, b)
    if d1 <= 2 and d2 == 2:
        return _check_mm_sizes(_folded(a.shape, a.dtype), b)
    if d1 >= 3 and d2 <= 2:
        folded = _folded(a.shape, a.dtype)
        return _check_mv(folded, b) if d2 == 1 else _check_mm_sizes(folded, b)
    if d1 == 1 and (b.shape[-2] == 1 or b.size == 0):
        # PyTorch folds b.mT (contiguous in this case) and calls mv with a
        return _check_mv(_folded(b.shape[:-2] + b.shape[:-3:-1], b.dtype), a)
    ba, bb = a.shape[:-2], b.shape[:-2]
    check_broadcast(ba, bb)
    batch = math.prod(jnp.broadcast_shapes(ba, bb))
    sa = (batch,) + ((1, a.shape[0]) if d1 == 1 else a.shape[-2:])
    sb = (batch,) + ((b.shape[0], 1) if d2 == 1 else b.shape[-2:])
    _check_bmm_sizes(sa, sb, a, b)


# --- the products --------------------------------------------------------------------------

@op("matmul", dunder=("__matmul__", "__rmatmul__"), tensors=("input", "other"),
    namespace=",linalg", saves="others", grad_name="MmBackward0")
def matmul(input, other):
    _check_matmul(input, other)
    return prod_(input, other)


@op("mm", tensors=("input", "mat2"), saves="others")
def mm(input, mat2):
    _check_mm(input, mat2)
    return prod_(input, mat2)


@op("bmm", tensors=("input", "mat2"), saves="others")
def bmm(input, mat2):
    _check_bmm(input, mat2)
    return prod_(input, mat2)


@op("mv", tensors=("input", "vec"), saves="others")
def mv(input, vec):
    _check_mv(input, vec)
    return prod_(input, vec)


@op("dot", tensors=("input", "tensor"), saves="others")
def dot(input, tensor):
    _check_dot(input, tensor)
    return jnp.dot(input, tensor, precision=HI)


@op("vdot", tensors=("input", "other"), saves="others")
def vdot(input, other):
    _check_dot(input, other)
    return jnp.vdot(input, other, precision=HI)


def _promoted(*xs):
    """PyTorch's result dtype of these arrays (dimensioned tensors beat 0-d ones)."""

    dims = [dtypes.from_np(x.dtype) for x in xs if x.ndim]
    zeros = [dtypes.from_np(x.dtype) for x in xs if not x.ndim]
    return dtypes.result_type_from(dims, zeros, []).np


@op("inner", tensors=("input", "other"), grad_name="ViewBackward0")
def inner(input, other):
    if input.ndim == 0 or other.ndim == 0:
        dt = _promoted(input, other)
        return input.astype(dt) * other.astype(dt)
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError("inner() the last dimension must match on both input tensors but got"
                           f" shapes {_shape(input.shape)} and {_shape(other.shape)}")
    if input.dtype != other.dtype:
        raise RuntimeError("both inputs should have same dtype")
    no_bool("dot" if input.ndim == other.ndim == 1 else "addmm_impl_cpu_", input)
    return jnp.inner(input, other, precision=HI)


@op(("outer", "ger"), tensors=("input", "vec2"), promote="common", saves="others",
    grad_name="MulBackward0")
def outer(input, vec2):
    for name, v in (("self", input), ("vec2", vec2)):
        if v.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {v.ndim}-D")
    if input.dtype == jnp.bool_:
        return input[:, None] & vec2[None, :]
    return input[:, None] * vec2[None, :]


@op("kron", tensors=("input", "other"), promote="common", saves="others",
    grad_name="UnsafeViewBackward0")
def kron(input, other):
    if input.dtype == jnp.bool_:
        return jnp.kron(input.astype(jnp.uint8), other.astype(jnp.uint8)).astype(jnp.bool_)
    return jnp.kron(input, other)


# --- add + product ---------------------------------------------------------------------------

def _scalars(x, beta, alpha):
    """PyTorch casts beta/alpha to the tensor dtype: integers truncate; bools must be bool."""
    if jnp.issubdtype(x.dtype, jnp.integer):
        return int(beta), int(alpha)
    return beta, alpha


def _expand_to(x, shape):
    """PyTorch's ``expand`` check of ``input`` against the product's shape."""
    if x.ndim > len(shape):
        raise RuntimeError(f"expand(torch.{type_name(x)}Tensor{{{_shape(x.shape)}}}, "
                           f"size={_shape(shape)}): the number of sizes provided ({len(shape)}) "
                           "must be greater or equal to the number of dimensions in the tensor "
                           f"({x.ndim})")
    for i in range(1, x.ndim + 1):
        if x.shape[-i] != shape[-i] and x.shape[-i] != 1:
            raise RuntimeError(f"The expanded size of the tensor ({shape[-i]}) must match the "
                               f"existing size ({x.shape[-i]}) at non-singleton dimension "
                               f"{len(shape) - i}.  Target sizes: {_shape(shape)}.  Tensor "
                               f"sizes: {_shape(x.shape)}")
    return jnp.broadcast_to(x, shape)


def _axpby(input, prod, beta, alpha):
    if isinstance(beta, jax.Array) or isinstance(alpha, jax.Array):
        # one-element tensors given for the numbers (PyTorch reads them by value): dynamic, so
        # one kernel serves every value; beta 0 still ignores input
        beta, alpha = (jnp.asarray(v).reshape(()).astype(prod.dtype) for v in (beta, alpha))
        out = prod * alpha
        return jnp.where(beta == 0, out, out + input * beta)
    beta, alpha = _scalars(prod, beta, alpha)
    out = prod if alpha == 1 else prod * jnp.asarray(alpha, prod.dtype)
    if beta == 0:  # PyTorch ignores input (NaN included) when beta is 0
        return out
    return out + (input if beta == 1 else input * jnp.asarray(beta, input.dtype))


def _add_product(input, a, b, beta, alpha, product=None):
    """``beta * input + alpha * (a @ b)`` (``product(a, b, dtype)`` instead of the matmul), as
    PyTorch's gemm computes it: for float16/bfloat16 the product accumulates in float32 and
    the whole sum is rounded once to the half type (alpha and beta at float32 precision). The
    product's inputs stay in the half type: on a GPU it runs as a half-precision matmul."""
    wide = opmath(input).dtype
    if product is None:
        prod = jnp.matmul(a, b, precision=HI, preferred_element_type=wide)
    else:
        prod = product(a, b, wide)
    return _axpby(opmath(input), prod, beta, alpha).astype(input.dtype)


@op("addmm", inplace=True, tensors=("input", "mat1", "mat2"))
def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    _check_add_mm_dtypes(input, mat1, mat2)
    for name, m in (("mat1", mat1), ("mat2", mat2)):
        if m.ndim != 2:
            raise RuntimeError(f"{name} must be a matrix, got {m.ndim}-D tensor")
    input = _expand_to(input, (mat1.shape[0], mat2.shape[1]))
    _check_mm_sizes(mat1, mat2)
    return _add_product(input, mat1, mat2, beta, alpha)


def _check_add_mm_dtypes(input, mat1, mat2):
    for name, t in (("self", input), ("mat1", mat1)):
        if t.dtype != mat2.dtype:
            raise RuntimeError(f"{name} and mat2 must have the same dtype, but got "
                               f"{type_name(t)} and {type_name(mat2)}")


@op("addmv", inplace=True, tensors=("input", "mat", "vec"))
def addmv(input, mat, vec, *, beta=1, alpha=1):
    _check_mv(mat, vec, input)
    return _add_product(input, mat, vec, beta, alpha)


@op("addr", inplace=True, tensors=("input", "vec1", "vec2"), promote="common")
def addr(input, vec1, vec2, *, beta=1, alpha=1):
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if v.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v.ndim}-D")
    if input.dtype == jnp.bool_:
        for name, s in (("beta", beta), ("alpha", alpha)):
            if isinstance(s, float):
                raise RuntimeError("For integral input tensors, argument "
                                   f"{name} must not be a floating point number.")
        out = (vec1[:, None] & vec2[None, :]) if alpha else jnp.zeros(
            (vec1.shape[0], vec2.shape[0]), bool)
        inp = _expand_to(input, out.shape)
        return out | inp if beta else out
    for name, s in (("beta", beta), ("alpha", alpha)):
        if isinstance(s, bool):
            raise RuntimeError(f"Boolean {name} only supported for Boolean results.")
        if isinstance(s, float) and jnp.issubdtype(input.dtype, jnp.integer):
            raise RuntimeError("For integral input tensors, argument "
                               f"{name} must not be a floating point number.")
    out = vec1[:, None] * vec2[None, :]
    return _axpby(_expand_to(input, out.shape), out, beta, alpha)


@op("baddbmm", inplace=True, tensors=("input", "batch1", "batch2"))
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    target = (batch1.shape[wrap_dim(0, batch1.ndim)], batch1.shape[wrap_dim(1, batch1.ndim)],
              batch2.shape[wrap_dim(2, batch2.ndim)])
    input = _expand_to(input, target)
    if input.dtype != batch1.dtype:
        raise RuntimeError(f"Input dtypes must be the same, got: input {cpp_name(input)}, "
                           f"batch1: {cpp_name(batch1)}, batch2: {cpp_name(batch2)}")
    _check_bmm(batch1, batch2, "baddbmm")
    return _add_product(input, batch1, batch2, beta, alpha)


@op("addbmm", inplace=True, tensors=("input", "batch1", "batch2"))
def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    input = _expand_to(input, (batch1.shape[wrap_dim(1, batch1.ndim)],
                               batch2.shape[wrap_dim(2, batch2.ndim)]))
    for name, m in (("batch1", batch1), ("batch2", batch2)):
        if m.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    if batch1.shape[0] != batch2.shape[0]:
        raise RuntimeError("batch1 and batch2 must have same number of batches, got "
                           f"{batch1.shape[0]} and {batch2.shape[0]}")
    if batch1.shape[2] != batch2.shape[1]:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({batch1.shape[1]}x"
                           f"{batch1.shape[2]} and {batch2.shape[1]}x{batch2.shape[2]})")
    _check_add_mm_dtypes(input, batch1, batch2)
    no_bool("addmm_impl_cpu_", batch1)
    return _add_product(input, batch1, batch2, beta, alpha, lambda a, b, dt: jnp.einsum(
        "bij,bjk->ik", a, b, precision=HI, preferred_element_type=dt))


# --- chains, contractions ------------------------------------------------------------------

@op("linalg.multi_dot", method=False, namespace="linalg", tensors=("tensors",),
    grad_name="MmBackward0")
def multi_dot(tensors):
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    first, last = tensors[0], tensors[-1]
    if first.ndim not in (1, 2):
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got "
                           f"{first.ndim}D")
    if last.ndim not in (1, 2):
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {last.ndim}D")
    for i, t in enumerate(tensors[1:-1], 1):
        if t.ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.ndim}D")
    for i, t in enumerate(tensors):
        if t.dtype != first.dtype:
            raise RuntimeError("multi_dot(): all tensors must have be the same dtype but tensor "
                               f"0 is {cpp_name(first)} and tensor {i} {cpp_name(t)}")
    mats = [first[None] if first.ndim == 1 else first, *tensors[1:-1],
            last[:, None] if last.ndim == 1 else last]
    for i in range(n - 1):
        if mats[i].shape[1] != mats[i + 1].shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes "
                               f"{_shape(tensors[i].shape)} and {_shape(tensors[i + 1].shape)}"
                               " cannot be multiplied")
    no_bool("addmm_impl_cpu_", first)
    out = jnp.linalg.multi_dot(mats, precision=HI)
    if first.ndim == 1:
        out = out[0]
    return out[..., 0] if last.ndim == 1 else out


@export("chain_matmul")
def chain_matmul(*matrices, out=None):
    """torch.chain_matmul (deprecated in PyTorch): linalg.multi_dot of 2-D matrices."""
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for m in matrices:
        if m.dim() != 2:
            raise RuntimeError(f"Tensor dimension is {m.dim()}, expected 2 instead.")
    if len(matrices) == 1:
        res = matrices[0].clone()
        if out is None:
            return res

        assign_out(out, res)
        return out
    return multi_dot(matrices, out=out)


@op("linalg.vecdot", method=False, namespace="linalg", tensors=("x", "y"),
    grad_name="SumBackward1")
def vecdot(x, y, *, dim=-1):
    if not jnp.issubdtype(x.dtype, jnp.inexact):
        raise RuntimeError("linalg.vecdot: Expected a floating point or complex tensor as "
                           f"input. Got {type_name(x)}")
    if x.dtype != y.dtype:
        raise RuntimeError("linalg.vecdot: Expected x and y to have the same dtype, but found x "
                           f"of type {type_name(x)} and y of type {type_name(y)} instead")
    check_broadcast(x.shape, y.shape)
    n = max(x.ndim, y.ndim)
    return jnp.sum(jnp.conj(x) * y, axis=wrap_dim(dim, n))


def _cross(input, other, dim):
    if input.dtype != other.dtype:
        raise RuntimeError(f"expected scalar type {type_name(input)} but found "
                           f"{type_name(other)}")
    no_bool("cross", input)
    a, b = jnp.broadcast_arrays(input, other)
    a, b = jnp.moveaxis(a, dim, -1), jnp.moveaxis(b, dim, -1)
    out = jnp.stack([a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1],
                     a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2],
                     a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]], -1)
    return jnp.moveaxis(out, -1, dim)


def _check_cross(input, other, dim, shown):
    if input.ndim != other.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    if input.shape[dim] != 3 or other.shape[dim] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {shown} must have length 3. Got "
                           f"{input.shape[dim]} and {other.shape[dim]}")
    check_broadcast(input.shape, other.shape)


@op("linalg.cross", method=False, namespace="linalg", tensors=("input", "other"))
def linalg_cross(input, other, *, dim=-1):
    if input.ndim != other.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = wrap_dim(dim, input.ndim)
    _check_cross(input, other, d, dim)
    return _cross(input, other, d)


@op("cross", tensors=("input", "other"), grad_name="LinalgCrossBackward0")
def cross(input, other, dim=None):
    if input.ndim != other.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    if dim is None:
        dims = [i for i, s in enumerate(input.shape) if s == 3]
        if not dims:
            raise RuntimeError("no dimension of size 3 in input")
        d = shown = dims[0]
    else:
        d, shown = wrap_dim(dim, input.ndim), dim
    _check_cross(input, other, d, shown)
    return _cross(input, other, d)
