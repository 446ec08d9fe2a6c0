"""``torch.view_as_real`` and ``torch.view_as_complex``: views that read a complex element as
its two real parts, and a trailing pair of reals as one complex element.

They are views like any other (``_core/views.py``): reading one after its base changed re-runs
the chain, and a write through one lands in the base. Their strides are PyTorch's: a complex
element is two reals, so ``view_as_real`` doubles every stride and appends 1, and
``view_as_complex`` needs a last dimension of size 2 and stride 1 and halves the rest.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from .._core import dtypes
from .._core.autocast import runs_in_float32
from .._core.strides import contiguous_strides, strides
from ._registry import export, op


def _as_real_rule(shape, st, off, out_shape, idx):
    return tuple(2 * s for s in st) + (1,), 2 * off


def _as_complex_rule(shape, st, off, out_shape, idx):
    return tuple(s // 2 for s in st[:-1]), off // 2


@op("view_as_real", namespace=None, method=False, out=False, is_view=True, saves=False,
    stride_rule=_as_real_rule, grad_name="ViewAsRealBackward0")
def _view_as_real(input):
    return jnp.stack([jnp.real(input), jnp.imag(input)], axis=-1)


@op("view_as_complex", namespace=None, method=False, out=False, is_view=True, saves=False,
    stride_rule=_as_complex_rule, grad_name="ViewAsComplexBackward0")
def _view_as_complex(input):
    return jax.lax.complex(input[..., 0], input[..., 1])


@export("view_as_real", opdef_of=_view_as_real)
def view_as_real(input):
    """A real view of complex ``input`` with a last dimension of size 2 (real, imaginary)."""
    if not input.dtype.is_complex:
        raise RuntimeError("view_as_real is only supported for complex tensors")
    return _view_as_real(input)


@export("view_as_complex", opdef_of=_view_as_complex)
def view_as_complex(input):
    """A complex view of real ``input`` whose last dimension (size 2, stride 1) holds the real
    and imaginary parts."""
    dt = input.dtype
    # under CPU autocast a half or bfloat16 input runs in float32: a contiguous copy, as
    # PyTorch's autocast casts before its checks
    cast = dt in (dtypes.float16, dtypes.bfloat16) and \
        runs_in_float32("view_as_complex", input.device)
    if cast:
        dt = dtypes.float32
    if dt is dtypes.float16:
        raise NotImplementedError("jtorch does not implement torch.view_as_complex of a half "
                                  "tensor (complex32 is not a jtorch dtype)")
    if dt not in (dtypes.float32, dtypes.float64):
        raise RuntimeError("view_as_complex is only supported for half, float and double "
                           f"tensors, but got a tensor of scalar type: {dt.scalar_name}")
    if input.ndim == 0:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if input.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    st, off = strides(input) if not cast else (contiguous_strides(tuple(input.shape)), 0)
    if st[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % 2 for s in st[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if off % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    return _view_as_complex(input)

