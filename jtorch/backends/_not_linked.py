"""The CPU libraries PyTorch links (oneDNN, MKL, OpenMP) and jtorch does not: XLA brings its
own kernels and thread pool, so ``is_available()`` is False for each, unlike PyTorch's CPU
build."""

from __future__ import annotations


def is_available():
    """False: jtorch does not link this library (XLA brings its own kernels)."""
    return False
