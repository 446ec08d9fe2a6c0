"""Autograd's anomaly mode in the engine (PyTorch's AnomalyMetadata and the engine's NaN check):
a node made while the mode is on keeps the stack of the forward call that made it; a backward
that fails warns with that stack; with ``check_nan`` a node whose gradient holds NaN raises.

The flags are ``state.ANOMALY``; ``torch.autograd.set_detect_anomaly`` sets them.
"""

from __future__ import annotations

import os
import traceback
import warnings

import jax
import jax.numpy as jnp

from .tensor_base import TensorBase

# PyTorch's key of the forward stack in ``node.metadata``
TRACE_KEY = "traceback_"

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# where jtorch runs in Python what PyTorch runs in C++: the core, the ops, Tensor's methods
_CPP_IN_PYTORCH = tuple(os.path.join(_PACKAGE, p) for p in ("_core" + os.sep, "_ops" + os.sep,
                                                             "_tensor.py", "_tensor_ops.py"))


def store_stack(node):
    """Keep the forward stack in ``node.metadata``. The innermost frames in jtorch's core, ops
    and Tensor methods (C++ in PyTorch, so absent from its stack) are left out."""
    frames = traceback.extract_stack()
    while frames and frames[-1].filename.startswith(_CPP_IN_PYTORCH):
        frames.pop()
    node.metadata[TRACE_KEY] = traceback.format_list(frames)


def warn_forward_stack(node):
    """PyTorch's warning when the backward of ``node`` failed in anomaly mode."""
    stack = node._meta.get(TRACE_KEY) if node._meta else None
    if stack is None:
        warnings.warn(f"Error detected in {node.name()}. No forward pass information available. "
                      "Enable detect anomaly during forward pass for more information.",
                      stacklevel=3)
        return
    warnings.warn(f"Error detected in {node.name()}. Traceback of forward call that caused the "
                  "error:\n" + "".join(stack), stacklevel=3)


def check_nan(node, outputs):
    """Raise PyTorch's error when a gradient the node returned holds NaN. ``outputs`` are
    (output index, gradient) pairs; gradients being traced (jtorch.compile) are not checked."""
    for i, g in outputs:
        if g is None:
            continue
        a = g._value if isinstance(g, TensorBase) else g
        if isinstance(a, jax.core.Tracer) or not jnp.issubdtype(a.dtype, jnp.inexact):
            continue
        if bool(jnp.isnan(a).any()):
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th "
                               "output.")
