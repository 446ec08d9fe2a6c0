"""``torch.profiler.ProfilerActivity`` and ``supported_activities()``: what a profiler collects.

Differences from PyTorch:
    jtorch records host (CPU) time only. ``ProfilerActivity.CUDA`` is accepted: without a GPU
    it is dropped with PyTorch's warning (``CUDA is not available, disabling CUDA profiling``;
    CUDA alone then raises PyTorch's AssertionError), with a GPU the profile still reports host
    time only (device kernels are in JAX's own trace, ``jax.profiler.trace``).
"""

from __future__ import annotations

import jax

from ..autograd._profiler_activity import ProfilerActivity, kineto_available
from ..autograd.profiler_util import DeviceType

__all__ = ["ProfilerActivity", "supported_activities", "kineto_available", "DeviceType"]


def supported_activities():
    """The activities this machine supports: ``{ProfilerActivity.CPU}``, with
    ``ProfilerActivity.CUDA`` where JAX has a GPU."""
    acts = {ProfilerActivity.CPU}
    try:
        if jax.devices("gpu"):
            acts.add(ProfilerActivity.CUDA)
    except RuntimeError:
        pass
    return acts
