"""Small numerically careful functions shared by the distributions and transforms."""

from __future__ import annotations

from . import _lib as jt


def softplus(x):
    """``log(1 + exp(x))`` without overflow."""
    return x.clamp(min=0) + (-x.abs()).exp().log1p()


def clipped_sigmoid(x):
    """``sigmoid(x)`` kept inside [tiny, 1 - eps] so that its log and log1p(-.) are
    finite."""
    info = jt.finfo(x.dtype)
    return x.sigmoid().clamp(min=info.tiny, max=1 - info.eps)


def atanh(y):
    """``atanh(y)`` as ``(log1p(y) - log1p(-y)) / 2``."""
    return 0.5 * (y.log1p() - (-y).log1p())
