"""Regressions found by running Hugging Face PEFT unchanged under jtorch
(scripts/real_drivers/peft_adapters.py, docs/real-programs.md): each test is a small stand-in
for what the library did, in plain torch-API code, run in jtorch and in real PyTorch."""

import pytest
import torch.utils.cpp_extension as want

import jtorch
from jtorch.utils import cpp_extension as got


def test_cpp_extension_imports_and_load_fails_inside_try():
    # PEFT's BOFT imports torch.utils.cpp_extension.load inside its fallback check and builds
    # its CUDA kernel in a try; jtorch had no such module (ModuleNotFoundError at
    # get_peft_model). Both describe a machine without CUDA and fail to build.
    assert jtorch.utils.cpp_extension is got
    assert got.CUDA_HOME is None and got.ROCM_HOME is None
    assert got.IS_HIP_EXTENSION is want.IS_HIP_EXTENSION is False
    assert (got.IS_WINDOWS, got.IS_MACOS) == (want.IS_WINDOWS, want.IS_MACOS)
    assert got.is_ninja_available() == want.is_ninja_available()
    with pytest.raises(NotImplementedError, match="torch.utils.cpp_extension.load"):
        got.load(name="fbd_cuda", sources=["fbd_cuda.cpp"])
    with pytest.raises(NotImplementedError, match="load_inline"):
        got.load_inline(name="m", cpp_sources="")
    assert issubclass(type(got.BuildExtension), type)
    with pytest.raises(NotImplementedError, match="BuildExtension"):
        got.BuildExtension()
    with pytest.raises(AttributeError):
        got.no_such_name  # noqa: B018
