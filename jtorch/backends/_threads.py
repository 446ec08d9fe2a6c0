"""``torch.set_num_threads`` / ``get_num_threads`` and the inter-op pair.

Differences from PyTorch:
    - XLA sizes its CPU thread pool when JAX starts its backend and cannot resize it, so the
      numbers are checked and reported back (as PyTorch's) but do not change XLA's pool. The
      default is the number of CPUs this process may run on, as PyTorch's on common builds.
"""

from __future__ import annotations

import os

__all__ = ["set_num_threads", "get_num_threads", "set_num_interop_threads",
           "get_num_interop_threads"]


def _cpus():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # no sched_getaffinity (macOS, Windows)
        return os.cpu_count() or 1


_threads = {"intra": _cpus(), "inter": _cpus()}


def _check(name, num):
    """PyTorch's checks of a thread count."""
    if not isinstance(num, int):
        raise RuntimeError(f"{name} expects an int, but got {type(num).__name__}")
    if num <= 0:
        raise RuntimeError(f"{name} expects a positive integer")
    return num


def set_num_threads(num):
    """The number of threads for intra-op parallelism on the CPU (see the module's
    differences)."""
    _threads["intra"] = _check("set_num_threads", num)


def get_num_threads():
    """The number of threads for intra-op parallelism on the CPU."""
    return _threads["intra"]


def set_num_interop_threads(num):
    """The number of threads for inter-op parallelism on the CPU."""
    _threads["inter"] = _check("set_num_interop_threads", num)


def get_num_interop_threads():
    """The number of threads for inter-op parallelism on the CPU."""
    return _threads["inter"]
