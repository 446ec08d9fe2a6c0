"""No PyTorch name is absent: every public name of torch 2.13's namespaces either works in
jtorch or raises NotImplementedError naming the PyTorch API (never a bare AttributeError or
ModuleNotFoundError). The names come from real torch (installed for the tests) and from
jtorch/_data/torch_names.json, the record jtorch reads at run time."""

import importlib
import importlib.util
import json
import os
import subprocess
import sys
import types
import warnings

import pytest
import torch

import jtorch
from jtorch._core import errors
from jtorch._core.errors import torch_names


def _recorded():
    path = os.path.join(os.path.dirname(jtorch.__file__), "_data", "torch_names.json")
    with open(path) as f:
        return json.load(f)


RECORD = _recorded()


def _torch_object(api):
    if api == "torch.Tensor":
        return torch.Tensor
    return importlib.import_module(api)


def _jtorch_object(api):
    if api == "torch.Tensor":   # an instance: the class's own attributes are not looked up
        return jtorch.ones(1, 1)  # through Tensor.__getattr__ (2-D: .H, .mT work)
    return importlib.import_module(api.replace("torch", "jtorch", 1))


def test_record_is_from_this_torch_and_complete():
    """The record was made from the torch the tests run against, and lists every public name
    real torch has in each namespace (regenerate with scripts/gen_torch_names.py)."""
    assert RECORD["torch_version"] == torch.__version__
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for api in RECORD["namespaces"]:
            obj = _torch_object(api)
            real = {n for n in dir(obj) if not n.startswith("_")}
            # a submodule appears in dir() once some test imported it (torch.nn.utils.prune)
            missing = {n for n in real - set(torch_names(api))
                       if not isinstance(getattr(obj, n), types.ModuleType)}
            assert not missing, f"{api}: names not in the record: {sorted(missing)[:10]}"


@pytest.mark.parametrize("api", sorted(RECORD["namespaces"]))
def test_every_name_works_or_says_not_implemented(api):
    obj = _jtorch_object(api)
    bare = []
    for name in torch_names(api):
        try:
            getattr(obj, name)
        except NotImplementedError as e:
            assert f"{api}.{name}" in str(e), (name, str(e))
        except AttributeError:
            bare.append(name)
        except Exception as e:   # an error PyTorch raises too (Tensor.imag of a real tensor)
            with pytest.raises(type(e)):
                getattr(_torch_object(api) if api != "torch.Tensor" else torch.ones(1, 1), name)
    assert not bare, f"{api}: AttributeError for {bare[:20]} ({len(bare)} names)"


# jtorch.autograd sits below jtorch.overrides (it cannot import it): these two stay
# NotImplementedError there; torch.overrides has them (docs/differences.md)
_BELOW_THEIR_HOME = {("torch.autograd", "handle_torch_function"),
                     ("torch.autograd", "is_tensor_like")}


def test_no_stand_in_where_jtorch_has_the_real_object():
    """A name PyTorch re-exports in a namespace (``torch.distributed.DeviceMesh``,
    ``torch.nn.functional.Tensor``, ``torch.optim.lr_scheduler.Optimizer``) is, in jtorch, the
    real object whenever jtorch has it in the module PyTorch defines it in: never a stand-in
    class or NotImplementedError in one place and the real thing in another."""
    stand_ins = set(map(id, errors._STAND_IN_CLASSES.values()))

    def missing(module, name):
        try:
            return id(getattr(module, name)) in stand_ins
        except NotImplementedError:
            return True

    wrong = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for api in sorted(RECORD["namespaces"]):
            if api == "torch.Tensor":
                continue
            obj, real = _jtorch_object(api), _torch_object(api)
            for name in torch_names(api):
                if (api, name) in _BELOW_THEIR_HOME or not missing(obj, name):
                    continue
                home = getattr(getattr(real, name, None), "__module__", None)
                if not isinstance(home, str) or not home.startswith("torch"):
                    continue
                try:
                    jhome = importlib.import_module(home.replace("torch", "jtorch", 1))
                except ImportError:
                    continue
                if hasattr(jhome, name) and not missing(jhome, name):
                    wrong.append(f"{api}.{name} (jtorch has {jhome.__name__}.{name})")
    assert not wrong, wrong


def test_tensor_attribute_not_in_pytorch_is_attribute_error():
    t = jtorch.ones(2)
    with pytest.raises(AttributeError, match="'Tensor' object has no attribute 'no_such_name'"):
        t.no_such_name
    assert not hasattr(jtorch, "no_such_name")
    assert getattr(jtorch.nn, "no_such_name", 7) == 7


def test_missing_names_raise_not_implemented_naming_the_api():
    with pytest.raises(NotImplementedError, match=r"torch\.nn\.functional\.scaled_mm"):
        jtorch.nn.functional.scaled_mm
    with pytest.raises(NotImplementedError, match=r"torch\.Tensor\.record_stream"):
        jtorch.ones(1).record_stream


def test_feature_checks_see_missing_names_as_absent():
    """The error is also an AttributeError: ``hasattr``, ``getattr(..., default)`` and
    ``from ... import`` inside ``try/except ImportError`` take their fallback, as on a PyTorch
    without the name (safetensors and transformers probe dtypes and modules so at import).
    Classes are the exception: they read as stand-ins (the next test)."""
    assert getattr(jtorch, "float4_e2m1fn_x2", None) is None
    assert not hasattr(jtorch, "bits8")
    assert not hasattr(jtorch.ones(1), "record_stream")
    assert getattr(jtorch.nn.attention.varlen, "varlen_attn", "absent") == "absent"
    with pytest.raises(ImportError):
        from jtorch.utils.data import runtime_validation  # noqa: F401


def test_missing_classes_are_stand_ins_that_raise_when_made():
    """A class PyTorch has and jtorch lacks reads as one stand-in class (so annotations evaluated
    at definition time, ``-> torch.cuda.Stream | None``, and ``isinstance`` work), and making
    one raises NotImplementedError naming it; docs/coverage.md lists it as not implemented."""
    from jtorch._core.errors import is_stand_in

    stream = jtorch.cuda.Stream
    assert stream is jtorch.cuda.Stream and is_stand_in(stream)
    assert not isinstance(jtorch.ones(1), stream)
    assert (stream | None) is not None
    with pytest.raises(NotImplementedError, match=r"torch\.cuda\.Stream"):
        stream()
    with pytest.raises(NotImplementedError, match=r"torch\.cuda\.CUDAGraph"):
        jtorch.cuda.CUDAGraph()
    assert gen_coverage_status("torch.cuda", "Stream") == "not implemented"
    assert gen_coverage_status("torch", "float8_e4m3fn") == "works"


def gen_coverage_status(api, name):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    spec = importlib.util.spec_from_file_location(
        "gen_coverage", os.path.join(root, "scripts", "gen_coverage.py"))
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    return gen.status(api, name)


def test_private_submodules_load_on_first_read():
    """As PyTorch imports ``torch._dynamo`` lazily, ``jtorch._dynamo`` is there after a bare
    ``import jtorch``; a private name jtorch has no module for stays an AttributeError."""
    assert jtorch._dynamo.config.cache_size_limit == torch._dynamo.config.cache_size_limit
    assert not hasattr(jtorch, "_no_such_module")


def test_every_namespace_imports():
    """``import torch.onnx`` works in a program that never uses it (many import it at top); in
    a fresh interpreter, so that nothing imported by other tests helps."""
    modules = [a.replace("torch", "jtorch", 1) for a in RECORD["namespaces"] if a != "torch.Tensor"]
    subprocess.run([sys.executable, "-c", "; ".join(f"import {m}" for m in modules)], check=True,
                   timeout=300)


def test_coverage_page_is_current():
    """docs/coverage.md is what scripts/gen_coverage.py writes today."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    spec = importlib.util.spec_from_file_location(
        "gen_coverage", os.path.join(root, "scripts", "gen_coverage.py"))
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    with open(os.path.join(root, "docs", "coverage.md")) as f:
        assert f.read() == gen.build(), "stale: run python scripts/gen_coverage.py"


def test_device_kind_properties_match_a_cpu_tensor():
    t, j = torch.ones(2), jtorch.ones(2)
    for name in ("is_ipu", "is_maia", "is_mkldnn", "is_mps", "is_mtia", "is_vulkan", "is_xla",
                 "is_xpu", "is_nested", "is_sparse_csr", "is_cuda", "is_cpu", "is_meta"):
        assert getattr(j, name) == getattr(t, name), name
    for name in ("is_pinned", "is_shared", "is_distributed"):
        assert getattr(j, name)() == getattr(t, name)(), name
