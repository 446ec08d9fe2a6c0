"""torch.utils.cpp_extension: building C++/CUDA operators against PyTorch's ATen, which jtorch
(kernels are XLA's, through JAX) has no use for. The module imports, as PyTorch's does, with its
constants describing a machine without a CUDA or ROCm toolkit, so that libraries probing for an
optional compiled kernel inside ``try`` (PEFT's BOFT, for one) fall back to their Python path;
building anything (``load``, ``load_inline``, the setuptools extensions) raises
NotImplementedError naming the PyTorch API."""

import shutil
import sys

from .._core.errors import missing_class, missing_function, torch_name_fallback

CUDA_HOME = None
ROCM_HOME = None
SYCL_HOME = None
IS_HIP_EXTENSION = False
IS_WINDOWS = sys.platform == "win32"
IS_MACOS = sys.platform.startswith("darwin")
IS_LINUX = sys.platform.startswith("linux")

load = missing_function("torch.utils.cpp_extension.load")
load_inline = missing_function("torch.utils.cpp_extension.load_inline")
include_paths = missing_function("torch.utils.cpp_extension.include_paths")
library_paths = missing_function("torch.utils.cpp_extension.library_paths")
CppExtension = missing_function("torch.utils.cpp_extension.CppExtension")
CUDAExtension = missing_function("torch.utils.cpp_extension.CUDAExtension")
SyclExtension = missing_function("torch.utils.cpp_extension.SyclExtension")
BuildExtension = missing_class("torch.utils.cpp_extension.BuildExtension")


def is_ninja_available():
    """Whether the ``ninja`` build tool is on PATH (as PyTorch reports it)."""
    return shutil.which("ninja") is not None


def verify_ninja_availability():
    """Raises RuntimeError, as PyTorch does, when ``ninja`` is not on PATH."""
    if not is_ninja_available():
        raise RuntimeError("Ninja is required to load C++ extensions")


__getattr__ = torch_name_fallback("torch.utils.cpp_extension")
