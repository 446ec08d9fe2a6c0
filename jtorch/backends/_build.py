"""torch's facts about its build (``torch.has_lapack``, ``torch.set_flush_denormal``...), as
they are for jtorch's backend: XLA's CPU linear algebra calls LAPACK (through jaxlib) and XLA
has FFTs; there is no MKL or OpenMP (``torch.backends.mkl``/``openmp`` say so too)."""

from __future__ import annotations

from .._tensor import Tensor

__all__ = ["has_lapack", "has_mkl", "has_openmp", "has_spectral", "init_num_threads",
           "is_distributed", "set_flush_denormal"]

has_lapack = True
has_mkl = False
has_openmp = False
has_spectral = True


def init_num_threads():
    """PyTorch's per-thread thread-count setup; jtorch's counts are process-wide
    (jtorch/backends/_threads.py), so there is nothing to do."""
    return None


def is_distributed(input):
    """False: a tensor is never a legacy distributed tensor (as in PyTorch's builds)."""
    if not isinstance(input, Tensor):
        raise TypeError("is_distributed(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return False


def set_flush_denormal(mode):
    """Whether denormal floats can be flushed to zero here: False, as XLA's CPU denormal
    handling cannot be set from Python (PyTorch returns True where it sets the CPU flag)."""
    if not isinstance(mode, bool):
        raise RuntimeError(f"flush_denormal expects a bool, but got {type(mode).__name__}")
    return False
