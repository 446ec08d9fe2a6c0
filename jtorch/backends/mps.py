"""torch.backends.mps: JAX has no Apple Metal (MPS) backend in jtorch, so neither available nor
built."""

from __future__ import annotations

__all__ = ["is_available", "is_built", "is_macos_or_newer"]


def is_available():
    """False: jtorch has no MPS device."""
    return False


def is_built():
    """False: jtorch has no MPS device."""
    return False


def is_macos_or_newer(major, minor):
    """False: there is no MPS backend to ask."""
    return False
