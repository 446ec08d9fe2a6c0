"""Shared helpers for op bodies (trace-time only: shapes and dims are static)."""

from __future__ import annotations

import jax.numpy as jnp

from .._core import dtypes
from .._core.errors import missing_function
from .._core.tensor_base import wrap_dim as wrap_dim
from ._registry import export


def dtype_of(x):
    """The jtorch dtype of an array (or of a Python number, as jnp sees it)."""
    return dtypes.from_np(jnp.result_type(x))


def type_name(x):
    """PyTorch's ScalarType name (``Float``, ``Long``...) of an array's dtype or of a dtype."""
    return (x if isinstance(x, dtypes.dtype) else dtype_of(x)).scalar_name


def cpp_name(x):
    """The C++ type name PyTorch prints for an array's dtype (``float``, ``long int``...)."""
    return dtype_of(x).cpp_name


def check_expand(src, target, too_many_dims):
    """PyTorch's errors for expanding a tensor of shape ``src`` to ``target``: the message
    ``too_many_dims`` when ``src`` has more dimensions (its wording differs between callers),
    else the per-dimension size mismatch."""
    if len(src) > len(target):
        raise RuntimeError(too_many_dims)
    for i in range(1, len(src) + 1):
        if src[-i] != 1 and src[-i] != target[-i]:
            raise RuntimeError(f"The expanded size of the tensor ({target[-i]}) must match the "
                               f"existing size ({src[-i]}) at non-singleton dimension "
                               f"{len(target) - i}.  Target sizes: {list(target)}.  Tensor "
                               f"sizes: {list(src)}")


def check_broadcast(a, b):
    """PyTorch's broadcast error for shapes a and b."""
    for i in range(1, min(len(a), len(b)) + 1):
        x, y = a[-i], b[-i]
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b "
                               f"({y}) at non-singleton dimension {max(len(a), len(b)) - i}")


def published_stand_ins(namespace, names):
    """Stand-ins (``missing_function``: they raise NotImplementedError naming the API) for the
    functions ``names`` (space-separated) of ``torch.<namespace>`` that jtorch does not
    implement, each published there; returned in the order of ``names``."""
    return tuple(export(name, namespace=namespace)(missing_function(f"torch.{namespace}.{name}"))
                 for name in names.split())
