"""torch.__config__: how this build was made, as text (``show()``, ``parallel_info()``).

Libraries read these strings to pick code paths: PyTorch Geometric, for one, checks
``'USE_MKL=OFF' in torch.__config__.show()``. jtorch links none of the CPU libraries PyTorch
builds with (MKL, oneDNN, OpenMP; see jtorch/backends/_not_linked.py), so the build settings
say so in PyTorch's ``KEY=VALUE`` form.

Differences from PyTorch:
    - The text names jtorch's version and JAX's backend, not a compiler and C++ flags;
      ``_cxx_flags()`` is empty.
"""

from __future__ import annotations

import jax

from .backends._threads import get_num_interop_threads, get_num_threads
from .version import __version__, cuda

__all__ = ["show", "parallel_info"]


def show():
    """The build configuration, one ``  - `` line per component, then PyTorch's
    ``Build settings: KEY=VALUE, ...`` line."""
    settings = {"BUILD_TYPE": "Release", "TORCH_VERSION": __version__.split("+")[0],
                "USE_CUDA": int(cuda is not None), "USE_CUDNN": "OFF", "USE_MKL": "OFF",
                "USE_MKLDNN": "OFF", "USE_OPENMP": "OFF", "USE_NNPACK": "OFF",
                "USE_MPI": "OFF", "USE_NCCL": "OFF", "USE_GLOO": "OFF", "USE_ROCM": "OFF",
                "USE_XPU": "OFF"}
    return (f"PyTorch built with:\n  - jtorch {__version__} on JAX {jax.__version__} "
            f"(XLA backend: {jax.default_backend()})\n"
            "  - Build settings: " + "".join(f"{k}={v}, " for k, v in settings.items()) + "\n")


def parallel_info():
    """The thread counts, in PyTorch's layout."""
    return ("ATen/Parallel:\n"
            f"\tat::get_num_threads() : {get_num_threads()}\n"
            f"\tat::get_num_interop_threads() : {get_num_interop_threads()}\n"
            "ATen parallel backend: XLA CPU thread pool\n")


def _cxx_flags():
    """The C++ flags of the build: none (jtorch is Python on JAX)."""
    return ""
