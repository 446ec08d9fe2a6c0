"""torch.backends.cudnn: PyTorch's cuDNN switches. JAX runs its GPU convolutions through XLA
(which calls cuDNN itself), so the switches are kept and read back as PyTorch's but XLA
decides: ``benchmark`` (XLA always autotunes), ``enabled``, ``deterministic`` (see
``torch.use_deterministic_algorithms`` for XLA's determinism flag) and ``allow_tf32`` (JAX's one
matmul/convolution precision follows ``torch.set_float32_matmul_precision``).

``is_available()`` is whether JAX has a GPU (XLA's GPU backend uses cuDNN); ``version()`` is
None without one.

Differences from PyTorch:
    - The switches do not change what XLA runs (see above).
"""

from __future__ import annotations

import contextlib
import sys
import types

from jax._src.lib import cuda_versions  # None unless JAX's CUDA plugin is installed

from .._core.device import jax_devices

__all__ = ["is_available", "version", "is_acceptable", "flags", "set_flags"]

_flags = {"enabled": True, "benchmark": False, "benchmark_limit": None, "deterministic": False,
          "allow_tf32": True}


def is_available():
    """Whether cuDNN can be used: JAX has a GPU."""
    return bool(jax_devices("cuda"))


def version():
    """cuDNN's version, or None without a GPU."""
    if not is_available() or cuda_versions is None:
        return None
    return cuda_versions.cudnn_get_version()


def is_acceptable(tensor):
    """Whether cuDNN would take ``tensor``: enabled, a CUDA tensor and cuDNN available."""
    return _flags["enabled"] and tensor.device.type == "cuda" and is_available()


def set_flags(_enabled=None, _benchmark=None, _benchmark_limit=None, _deterministic=None,
              _allow_tf32=None, _fp32_precision="none"):
    """Set the switches given (not None); returns the previous ones as a tuple."""
    orig = (_flags["enabled"], _flags["benchmark"], _flags["benchmark_limit"],
            _flags["deterministic"], _flags["allow_tf32"], "none")
    if not is_available():
        _benchmark_limit = None   # as PyTorch's without cuDNN: there is no limit to set
    for name, value in (("enabled", _enabled), ("benchmark", _benchmark),
                        ("benchmark_limit", _benchmark_limit),
                        ("deterministic", _deterministic), ("allow_tf32", _allow_tf32)):
        if value is not None:
            _flags[name] = value
    return orig


@contextlib.contextmanager
def flags(enabled=False, benchmark=False, benchmark_limit=10, deterministic=False,
          allow_tf32=True, fp32_precision="none"):
    """Set the switches for the block, then restore them."""
    orig = set_flags(enabled, benchmark, benchmark_limit, deterministic, allow_tf32)
    try:
        yield
    finally:
        set_flags(*orig[:5])


class _CudnnModule(types.ModuleType):
    """The module's switches are properties, as PyTorch's (``cudnn.benchmark = True``)."""


def _switch(name):
    return property(lambda self: _flags[name],
                    lambda self, value: _flags.__setitem__(name, value))


for _name in ("enabled", "benchmark", "benchmark_limit", "deterministic", "allow_tf32"):
    setattr(_CudnnModule, _name, _switch(_name))

sys.modules[__name__].__class__ = _CudnnModule
