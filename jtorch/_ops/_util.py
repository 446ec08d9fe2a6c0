"""Shared helpers for op bodies (trace-time only: shapes and dims are static)."""

from __future__ import annotations


def wrap_dim(dim, ndim):
    """PyTorch's dim wrapping with its IndexError text."""
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    return dim % n


def check_broadcast(a, b):
    """PyTorch's broadcast error for shapes a and b."""
    for i in range(1, min(len(a), len(b)) + 1):
        x, y = a[-i], b[-i]
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b "
                               f"({y}) at non-singleton dimension {max(len(a), len(b)) - i}")
