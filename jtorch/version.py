"""torch.version: jtorch's version and what it was built with.

``__version__`` is the PyTorch release whose API jtorch follows, with jtorch's own release as
its local part, "2.13.0+jtorch0.1.0" (PyTorch's builds say "2.13.0+cpu", "2.13.0+cu128"), so
programs' version gates (``version.parse(torch.__version__) >= version.parse("2.0")``) see the
PyTorch they were written for; ``torch.__version__`` is the same string as a
``torch.torch_version.TorchVersion``, which also compares with tuples and version strings.
``cuda`` is the CUDA runtime version of JAX's CUDA plugin ("12.8"...), None without one (as on
PyTorch's CPU build); ``hip``, ``rocm`` and ``xpu`` are None; ``debug`` is False.

Differences from PyTorch:
    - ``git_version`` is "Unknown", PyTorch's value for a build without its source commit.
"""

from __future__ import annotations

from jax._src.lib import cuda_versions  # None unless JAX's CUDA plugin is installed

from ._core.errors import torch_name_fallback

__all__ = ["__version__", "debug", "cuda", "git_version", "hip", "rocm", "xpu"]

__version__ = "2.13.0+jtorch0.1.0"  # keep the local part in step with pyproject.toml
debug = False
git_version = "Unknown"
hip = None
rocm = None
xpu = None


def _cuda_version():
    if cuda_versions is None:
        return None
    v = cuda_versions.cuda_runtime_get_version()   # e.g. 12080
    return f"{v // 1000}.{v % 1000 // 10}"


cuda = _cuda_version()

# a name PyTorch has here and jtorch lacks raises NotImplementedError naming it
__getattr__ = torch_name_fallback("torch.version")
