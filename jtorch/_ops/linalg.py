"""Linear algebra: matmul and friends, and torch.linalg."""

from __future__ import annotations

import jax.numpy as jnp

from ._registry import op


@op("matmul", dunder=("__matmul__", "__rmatmul__"), tensors=("input", "other"),
    promote="common", saves="others")
def matmul(input, other):
    if input.ndim == 2 and other.ndim == 2 and input.shape[1] != other.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({input.shape[0]}x"
                           f"{input.shape[1]} and {other.shape[0]}x{other.shape[1]})")
    return jnp.matmul(input, other)
