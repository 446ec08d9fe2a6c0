"""torch.backends.cuda: ``is_built``, the cuBLAS switches under ``matmul`` and the
scaled-dot-product-attention backend switches (shared with ``torch.nn.attention.sdpa_kernel``).

``matmul.allow_tf32`` is ``torch.set_float32_matmul_precision`` seen as a bool (True: "high",
False: "highest"), so it sets JAX's default matmul precision. ``is_built()`` is whether JAX has
a GPU backend.

Differences from PyTorch:
    - ``matmul.allow_fp16_reduced_precision_reduction`` and
      ``matmul.allow_bf16_reduced_precision_reduction`` are kept and read back; XLA chooses its
      reductions' precision itself.
    - The SDPA switches only decide whether an attention call may run (see
      jtorch/nn/attention); ``preferred_linalg_library``, ``preferred_blas_library``,
      ``cufft_plan_cache`` raise NotImplementedError.
"""

from __future__ import annotations

import contextlib
import warnings

from .._core.device import jax_devices
from .._core.errors import missing_function
from .._ops import sdp_backends
from . import _matmul_precision

__all__ = ["is_built", "matmul", "flash_sdp_enabled", "enable_flash_sdp",
           "mem_efficient_sdp_enabled", "enable_mem_efficient_sdp", "math_sdp_enabled",
           "enable_math_sdp", "cudnn_sdp_enabled", "enable_cudnn_sdp"]


def is_built():
    """Whether jtorch can run on CUDA: JAX has a GPU backend."""
    return bool(jax_devices("cuda"))


class cuBLASModule:  # noqa: N801 - PyTorch's name
    """``torch.backends.cuda.matmul``: ``allow_tf32`` and the reduced-precision switches."""

    def __init__(self):
        object.__setattr__(self, "_reduced", {"allow_fp16_reduced_precision_reduction": True,
                                              "allow_bf16_reduced_precision_reduction": True})

    def __getattr__(self, name):
        if name == "allow_tf32":
            return _matmul_precision.allow_tf32()
        if name in self._reduced:
            return self._reduced[name]
        raise AttributeError("Unknown attribute " + name)

    def __setattr__(self, name, value):
        if name == "allow_tf32":
            _matmul_precision.set_allow_tf32(value)
        elif name in self._reduced:
            self._reduced[name] = value
        else:
            raise AttributeError("Unknown attribute " + name)


matmul = cuBLASModule()


def _sdp_switch(name):
    def enabled():
        return sdp_backends.ENABLED[name]

    def enable(flag):
        sdp_backends.ENABLED[name] = bool(flag)

    return enabled, enable


flash_sdp_enabled, enable_flash_sdp = _sdp_switch("flash")
mem_efficient_sdp_enabled, enable_mem_efficient_sdp = _sdp_switch("mem_efficient")
math_sdp_enabled, enable_math_sdp = _sdp_switch("math")
cudnn_sdp_enabled, enable_cudnn_sdp = _sdp_switch("cudnn")

preferred_linalg_library = missing_function("torch.backends.cuda.preferred_linalg_library")
preferred_blas_library = missing_function("torch.backends.cuda.preferred_blas_library")


def sdp_kernel(enable_flash=True, enable_math=True, enable_mem_efficient=True,
               enable_cudnn=True):
    """The deprecated context manager (FutureWarning, as PyTorch) switching the SDPA backends
    for its block: ``torch.nn.attention.sdpa_kernel`` with the backends whose flag is true
    (OVERRIDEABLE off), the previous switches restored after it."""
    warnings.warn("`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this "
                  "context manager will be removed. Please see "
                  "`torch.nn.attention.sdpa_kernel()` for the new context manager, with "
                  "updated signature.", FutureWarning, stacklevel=2)
    return _sdp_kernel({"flash": bool(enable_flash), "math": bool(enable_math),
                        "mem_efficient": bool(enable_mem_efficient),
                        "cudnn": bool(enable_cudnn), "overrideable": False})


@contextlib.contextmanager
def _sdp_kernel(flags):
    previous = dict(sdp_backends.ENABLED)
    sdp_backends.ENABLED.update(flags)
    try:
        yield {}
    finally:
        sdp_backends.ENABLED.update(previous)
