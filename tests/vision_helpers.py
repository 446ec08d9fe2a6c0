"""Real torchvision 0.28 for the vision parity tests, and the weight/tensor plumbing.

torchvision's wheel is built against the CUDA torch and its C extension (``_C.so``) does not
load next to the CPU torch 2.13 the tests use; torchvision then still imports, except for two
modules that register fake/autograd kernels for the C++ operators (``nms``, ``roi_align``...)
and fail with "operator torchvision::nms does not exist". ``torchvision()`` stands empty
modules in for those two before the first import: the pure-Python models, transforms, utils and
datasets are then torchvision's own code running on torch 2.13 CPU (the C++ detection operators
stay unavailable until a test loads them with ``load_torchvision_extension("_C.so", ...)``).
Where the extension does load, the stand-ins only skip registrations that no test needs.
"""

from __future__ import annotations

import ctypes
import importlib
import os
import shutil
import subprocess
import sys
import types
from collections import OrderedDict

import numpy as np
import pytest
import torch

import jtorch

_C_OP_REGISTRATIONS = ("torchvision._meta_registrations", "torchvision._autograd_registrations")


def torchvision():
    """The ``torchvision`` module (pure-Python parts; see the module docstring)."""
    if "torchvision" not in sys.modules:
        for name in _C_OP_REGISTRATIONS:
            sys.modules.setdefault(name, types.ModuleType(name))
    return importlib.import_module("torchvision")


# The CUDA symbols torchvision 0.28's extensions (image.so, _C.so) leave undefined and the CPU
# torch does not have (nm -D --undefined-only, less what libc10/libtorch_cpu define): c10::cuda
# functions and at::cuda::getCurrentDeviceProperties, which only their CUDA paths call.
_CUDA_FUNCTIONS = [
    "_ZN3c104cuda12device_countEv", "_ZN3c104cuda14ExchangeDeviceEa",
    "_ZN3c104cuda14MaybeSetDeviceEa", "_ZN3c104cuda14current_deviceEv",
    "_ZN3c104cuda17getStreamFromPoolEba", "_ZN3c104cuda17getStreamFromPoolEia",
    "_ZN3c104cuda20getCurrentCUDAStreamEa", "_ZN3c104cuda20getDefaultCUDAStreamEa",
    "_ZN3c104cuda20setCurrentCUDAStreamENS0_10CUDAStreamE",
    "_ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_jb", "_ZN3c104cuda9GetDeviceEPa",
    "_ZN3c104cuda9SetDeviceEab", "_ZNK3c104cuda10CUDAStream11synchronizeEv",
    "_ZNK3c104cuda10CUDAStream5queryEv", "_ZNK3c104cuda10CUDAStream6streamEv",
    "_ZN2at4cuda26getCurrentDevicePropertiesEv"]
_CUDA_DATA = ["_ZN3c104cuda20CUDACachingAllocator9allocatorE"]
_EXTENSIONS_LOADED: set[str] = set()


def load_torchvision_extension(name, folder):
    """Loads torchvision's C++ extension ``name`` (``"image.so"``: the image codecs;
    ``"_C.so"``: the detection operators, whose fake and autograd registrations are then
    imported for real) into this process, or skips the test.

    Both are built against the CUDA torch and link ``libc10_cuda.so`` and ``libtorch_cuda.so``,
    which the CPU torch 2.13 of the tests does not have: two stub libraries compiled here with
    the system C compiler stand in for them (their functions abort if called; only CUDA paths,
    which no test takes, call them), loaded once per process with ``RTLD_GLOBAL``."""
    tv = torchvision()
    if name in _EXTENSIONS_LOADED:
        return tv
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip(f"no C compiler to build the CUDA stubs torchvision's {name} needs here")
    if not _EXTENSIONS_LOADED:
        sources = {"libc10_cuda.so": "#include <stdlib.h>\n"
                   + "".join(f"void {s}(void) {{ abort(); }}\n" for s in _CUDA_FUNCTIONS)
                   + "".join(f"void *{s} = 0;\n" for s in _CUDA_DATA),
                   "libtorch_cuda.so": "void jtorch_test_stub(void) {}\n"}
        for lib, code in sources.items():
            (folder / f"{lib}.c").write_text(code)
            subprocess.run([cc, "-shared", "-fPIC", f"-Wl,-soname,{lib}", "-o",
                            str(folder / lib), str(folder / f"{lib}.c")],
                           check=True, capture_output=True)
            ctypes.CDLL(str(folder / lib), mode=os.RTLD_GLOBAL)
        _EXTENSIONS_LOADED.add("stubs")
    try:
        ctypes.CDLL(os.path.join(os.path.dirname(tv.__file__), name))
    except OSError as e:
        pytest.skip(f"torchvision's {name} does not load here: {e}")
    if name == "_C.so":
        # torchvision decided at import that it has no C++ ops (its Python fallbacks then run
        # through torch.compile): it has them now, in every module that imported _has_ops;
        # then its fake and autograd registrations (which ask _has_ops) replace the stand-ins
        old = tv.extension._has_ops
        for module in list(sys.modules.values()):
            if getattr(module, "__name__", "").startswith("torchvision") and \
                    getattr(module, "_has_ops", None) is old:
                module._has_ops = _true
        for module in _C_OP_REGISTRATIONS:
            sys.modules.pop(module, None)
            importlib.import_module(module)
    _EXTENSIONS_LOADED.add(name)
    return tv


def _true():
    return True


def to_jtorch(t, requires_grad=False):
    """A torch tensor's values as a jtorch tensor."""
    out = jtorch.tensor(t.detach().cpu().numpy())
    return out.requires_grad_() if requires_grad else out


def to_np(t):
    return t.detach().cpu().numpy() if isinstance(t, torch.Tensor) else t.detach().numpy()


def copy_weights(tv_model, jt_model):
    """torchvision's state_dict into the jtorch model with ``strict=True`` (the keys match),
    with its ``_metadata`` (module versions, which MNASNet's loading requires)."""
    state = tv_model.state_dict()
    converted = OrderedDict((k, to_jtorch(v)) for k, v in state.items())
    converted._metadata = state._metadata
    result = jt_model.load_state_dict(converted, strict=True)
    assert not result.missing_keys and not result.unexpected_keys
    return jt_model


def dropouts_off(model, dropout_types):
    """Train mode with the random layers (dropout, stochastic depth) in eval mode: the
    batch-norm statistics still follow the batch, and the outputs are deterministic."""
    model.train()
    for m in model.modules():
        if isinstance(m, dropout_types):
            m.eval()
    return model


def raises_as_torchvision(jt_call, tv_call):
    """Both calls raise: jtorch's exception of torchvision's type, with its exact text."""
    with pytest.raises(Exception) as ref:
        tv_call()
    with pytest.raises(type(ref.value)) as got:
        jt_call()
    assert str(got.value) == str(ref.value)


def assert_close(jt, ref, rtol=1e-4, atol=1e-5):
    """Close values; ``atol`` is relative to the reference's largest magnitude (at least 1): a
    deep float32 network's rounding scales with its outputs."""
    ref = to_np(ref)
    scale = max(1.0, float(np.abs(ref).max())) if ref.size else 1.0
    np.testing.assert_allclose(to_np(jt), ref, rtol=rtol, atol=atol * scale)
