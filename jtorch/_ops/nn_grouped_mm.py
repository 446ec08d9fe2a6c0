"""``torch.nn.functional.grouped_mm`` and ``torch._grouped_mm``: the grouped GEMM of
Mixture-of-Experts layers (transformers' default experts implementation calls it).

PyTorch 2.13's CPU kernel (``_grouped_mm_fallback`` in ATen's GroupedMMUtils.h) loops over the
groups with one ``mm`` each, reading ``offs`` on the host. jtorch computes the same products
without reading ``offs``: each group's rows (or columns, or contraction slice) are selected by
a mask made from ``offs`` inside the kernel, so one compiled kernel serves every routing and
the op traces under ``jtorch.compile``. The four layouts (``G`` groups, ``offs`` int32 of
length ``G``, ``offs[g]`` the end of group ``g``, group ``g`` starting at ``offs[g-1]``):

- 2D x 3D, ``(M, K) @ (G, K, N) -> (M, N)``: rows of ``mat_a`` grouped (the MoE forward);
- 3D x 2D, ``(G, M, K) @ (K, N) -> (M, N)``: columns of ``mat_b`` grouped;
- 2D x 2D, ``(M, K) @ (K, N) -> (G, M, N)``: the contraction grouped (the weight gradient);
- 3D x 3D, ``(G, M, K) @ (G, K, N) -> (G, M, N)``: a batched product, no ``offs``.

Where PyTorch's output is left unwritten (rows or columns past ``offs[-1]``, and their
gradients: PyTorch returns ``torch.empty`` garbage there) jtorch gives zeros. Offsets past the
operand's length are clamped to it, as PyTorch's slices are. Both operands are differentiable
(to any order: the body is a masked product); ``offs`` is not.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from .._core import dtypes
from .._core.strides import strides
from .._core.tensor_base import TensorBase
from ._registry import export, op

HI = jax.lax.Precision.HIGHEST
_FLOATS = (dtypes.float32, dtypes.bfloat16, dtypes.float16)
_OFFS_RULE = ("Have to provide offsets if there is a 2d matrix, or no offset if both matrices "
              "are 3d")


def _check_layout(t):
    """PyTorch's ``check_valid_strides_and_return_transposed``: the last two dims must be
    row- or column-major with the other stride a multiple of 16 bytes."""
    try:
        st, _ = strides(t)
    except NotImplementedError:   # a view whose strides jtorch does not model: not checked
        return
    size = tuple(t.shape)
    align = 16 // t.dtype.itemsize
    if st[-2] == 1 and st[-1] >= max(1, size[-2]):
        lead = st[-1]
    elif st[-1] == 1 and st[-2] >= max(1, size[-1]):
        lead = st[-2]
    else:
        raise RuntimeError(f"Invalid strides/sizes, got {list(st)} for strides and "
                           f"{list(size)} for sizes")
    if lead % align:
        raise RuntimeError("strides should be multiple of 16 bytes")


def _check(mat_a, mat_b, *, offs=None, bias=None, out_dtype=None):
    """PyTorch's checks, in its order (``_grouped_mm_validate_inputs``, then the output's
    dtype and shape, then the per-group ``mm``'s dtype check)."""
    if not (isinstance(mat_a, TensorBase) and isinstance(mat_b, TensorBase)):
        raise TypeError("grouped_mm(): mat_a and mat_b must be Tensors")
    for name, t in (("mat_a", mat_a), ("mat_b", mat_b)):
        if t.dtype not in _FLOATS:
            raise RuntimeError(f"Expected {name} to be Float32, BFloat16 or Float16 matrix, "
                               f"got {t.dtype.scalar_name}")
    for name, t in (("mat_a", mat_a), ("mat_b", mat_b)):
        if t.ndim not in (2, 3):
            raise RuntimeError(f"{name} has to be 2 or 3d")
    a2, b2 = mat_a.ndim == 2, mat_b.ndim == 2
    if not (a2 and b2) and mat_a.shape[-1] != mat_b.shape[-2]:
        raise RuntimeError("contraction dimension of mat_a and mat_b must match")
    _check_layout(mat_a)
    _check_layout(mat_b)
    if (offs is not None) != (a2 or b2):
        raise RuntimeError(_OFFS_RULE)
    if offs is not None:
        if not isinstance(offs, TensorBase) or offs.ndim != 1:
            raise RuntimeError("offs has to be 1D")
        if offs.dtype != dtypes.int32:
            raise RuntimeError("Offsets have to be int32")
    if bias is not None:
        raise RuntimeError("Bias not supported yet")
    if out_dtype is not None and dtypes.to_dtype(out_dtype) != mat_a.dtype:
        raise RuntimeError("Grouped gemm output dtype must match `mat_a` dtype")
    if a2 != b2 and offs.shape[0] != (mat_b if a2 else mat_a).shape[0]:
        raise RuntimeError("matrix batch sizes have to match")
    if not (a2 or b2) and mat_a.shape[0] != mat_b.shape[0]:
        raise RuntimeError("batched dimension has to match")
    if mat_a.dtype != mat_b.dtype:
        if a2 or b2:
            raise RuntimeError("expected m1 and m2 to have the same dtype, but got: "
                               f"{mat_a.dtype.cpp_name} != {mat_b.dtype.cpp_name}")
        raise RuntimeError(f"Expected out tensor to have dtype {mat_b.dtype.cpp_name}, but got "
                           f"{mat_a.dtype.cpp_name} instead")


def _group_mask(offs, n):
    """``(G, n)`` bool: position ``i`` is in group ``g`` (``offs[g-1] <= i < offs[g]``)."""
    ends = offs.astype(jnp.int32)
    starts = jnp.concatenate([jnp.zeros((1,), jnp.int32), ends[:-1]])
    pos = jnp.arange(n, dtype=jnp.int32)
    return (starts[:, None] <= pos) & (pos < ends[:, None])


def _einsum(spec, x, y):
    """A product at full precision; half-precision operands accumulate in float32 and round
    once, as PyTorch's CPU ``mm`` does."""
    acc = jnp.float32 if x.dtype in (jnp.bfloat16, jnp.float16) else None
    return jnp.einsum(spec, x, y, precision=HI, preferred_element_type=acc).astype(x.dtype)


@op("grouped_mm", method=False, out=False, namespace="nn.functional",
    tensors=("mat_a", "mat_b", "offs", "bias"), nondiff=("offs",), saves="others",
    grad_name="GroupedMmBackward0", check=_check)
def grouped_mm(mat_a, mat_b, *, offs=None, bias=None, out_dtype=None):
    """Grouped matrix product (``torch.nn.functional.grouped_mm``): one product per group of
    a jagged operand, as Mixture-of-Experts layers run their experts.

    Args:
        mat_a, mat_b: float32, bfloat16 or float16 operands of the same dtype, 2D or 3D (see
            the module's docstring for the four layouts).
        offs: int32 ``(G,)`` group ends along the jagged dimension of the 2D operand(s);
            required when an operand is 2D, refused when both are 3D.
        bias: not supported (PyTorch raises too).
        out_dtype: must equal ``mat_a``'s dtype (PyTorch's CPU kernel refuses any other).

    Example:
        >>> a, b = torch.ones(5, 8), torch.ones(2, 8, 4)
        >>> F.grouped_mm(a, b, offs=torch.tensor([2, 5], dtype=torch.int32)).shape
        torch.Size([5, 4])
    """
    if mat_a.ndim == 3 and mat_b.ndim == 3:
        return _einsum("gmk,gkn->gmn", mat_a, mat_b)
    zero = jnp.zeros((), mat_a.dtype)
    if mat_b.ndim == 3:     # rows of mat_a grouped
        rows = jnp.where(_group_mask(offs, mat_a.shape[0])[:, :, None], mat_a[None], zero)
        return _einsum("gmk,gkn->mn", rows, mat_b)
    if mat_a.ndim == 3:     # columns of mat_b grouped
        cols = jnp.where(_group_mask(offs, mat_b.shape[1])[:, None, :], mat_b[None], zero)
        return _einsum("gmk,gkn->mn", mat_a, cols)
    # both 2D: the contraction grouped, one (M, N) product per group
    part = jnp.where(_group_mask(offs, mat_a.shape[1])[:, None, :], mat_a[None], zero)
    return _einsum("gmk,kn->gmn", part, mat_b)


@export("_grouped_mm", opdef_of=grouped_mm)
def _grouped_mm(input, mat2, offs=None, bias=None, out_dtype=None):
    """``torch._grouped_mm``: the ATen op behind ``F.grouped_mm`` (``offs`` may be given
    positionally)."""
    return grouped_mm(input, mat2, offs=offs, bias=bias, out_dtype=out_dtype)
