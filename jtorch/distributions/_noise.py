"""The standard noise the samplers transform: uniform and normal draws of a given shape in
the dtype and device of a parameter tensor."""

from __future__ import annotations

from . import _lib as jt


def uniform(shape, like, low=None, high=None):
    """Uniform draws on the open interval (low, high) (default (0, 1)): the [0, 1) draws are
    clamped to [tiny, 1 - eps] first, so logs and reciprocals of them stay finite."""
    info = jt.finfo(like.dtype)
    u = jt.rand(tuple(shape), dtype=like.dtype, device=like.device).clamp(info.tiny,
                                                                          1 - info.eps)
    if low is None:
        return u
    return low + (high - low) * u


def normal(shape, like):
    """Standard normal draws."""
    return jt.randn(tuple(shape), dtype=like.dtype, device=like.device)
