"""Regressions found by running MONAI unchanged under jtorch (scripts/real_drivers/monai_nets.py,
docs/real-programs.md): each test is a small stand-in for what the library did, in plain
torch-API code, run in jtorch and in real PyTorch."""

import copy
import pickle
import warnings

import numpy as np
import pytest
import torch

import jtorch


def _interface_classes(T):
    class CellInterface(T.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            pass

    class Plain:
        def run(self, x: torch.Tensor) -> torch.Tensor:
            pass

    class Derived(CellInterface):
        pass

    return CellInterface, Plain, Derived


def test_jit_interface():
    # monai.networks.nets.dints decorates nn.Module and plain classes with torch.jit.interface
    # at import (NotImplementedError); eager PyTorch returns the class, named for TorchScript
    for T in (jtorch, torch):
        module_iface, plain, derived = _interface_classes(T)
        with warnings.catch_warnings():   # PyTorch's TorchScript deprecation warning
            warnings.simplefilter("ignore", DeprecationWarning)
            got = [T.jit.interface(module_iface), T.jit.interface(plain)]
        assert got == [module_iface, plain]
        assert [c.__torch_script_interface__.split(".")[-1] for c in got] == ["CellInterface",
                                                                              "Plain"]
        with pytest.raises(RuntimeError, match="does not support inheritance"):
            T.jit.interface(derived)
        with pytest.raises(RuntimeError, match="interface must be applied to a class"):
            T.jit.interface(lambda x: x)
    module_iface, _, _ = _interface_classes(jtorch)
    jtorch.jit.interface(module_iface)
    assert module_iface.__torch_script_interface__ == f"__torch__.{__name__}.CellInterface"


def _meta_classes(T):
    class MetaObj:   # a plain base listed before the tensor (MONAI's MetaTensor(MetaObj, Tensor))
        def __init__(self):
            self.meta = {"affine": "eye"}

        def copy_meta_from(self, other):
            self.__dict__ = dict(other.__dict__.items())   # what MetaObj.copy_meta_from does

    class MetaTensor(MetaObj, T.Tensor):
        @staticmethod
        def __new__(cls, x):
            return T.as_tensor(x).as_subclass(cls)

        def __init__(self, x):
            MetaObj.__init__(self)

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            ret = super().__torch_function__(func, types, args, kwargs or {})
            if isinstance(ret, MetaTensor):
                ret.copy_meta_from(next(a for a in args if isinstance(a, MetaTensor)))
            return ret

    return MetaTensor


def test_subclass_with_plain_base_keeps_tensor_dict():
    # MONAI's MetaTensor copies the input's __dict__ onto each result: through the plain base's
    # __dict__ slot that carried jtorch's fields, so torch.std(x) came back as x itself and
    # `_div[_div == 0.0] = 1.0` (NormalizeIntensity) indexed with a float tensor (IndexError)
    data = np.random.default_rng(0).random((3, 4), dtype=np.float32)
    results = []
    for T in (jtorch, torch):
        meta_tensor = _meta_classes(T)
        x = meta_tensor(T.from_numpy(data.copy()))
        assert sorted(x.__dict__) == ["meta"]
        s = T.std(x)
        mask = s == 0.0
        s[mask] = 1.0
        clone = x.clone()
        clone.__dict__ = copy.deepcopy(x.__dict__)   # MetaTensor.clone
        results.append((type(s).__name__, tuple(s.shape), str(mask.dtype).split(".")[-1],
                        float(s), s.meta, clone.meta, float(clone.sum())))
    assert results[0][:3] == results[1][:3]
    np.testing.assert_allclose(results[0][3], results[1][3], rtol=1e-6)
    assert results[0][4:6] == results[1][4:6]
    np.testing.assert_allclose(results[0][6], results[1][6], rtol=1e-6)


def test_tensor_dict_copies_as_a_plain_dict():
    # copy.deepcopy(t.__dict__) recursed through jtorch's fields (RecursionError in
    # MetaTensor.clone); PyTorch's t.__dict__ is a dict of the attributes a program set
    for T in (jtorch, torch):
        t = T.ones(2)
        t.tag = [1, 2]
        for copied in (copy.copy(t.__dict__), copy.deepcopy(t.__dict__),
                       pickle.loads(pickle.dumps(t.__dict__))):
            assert type(copied) is dict and copied == {"tag": [1, 2]}
        assert copy.deepcopy(t.__dict__)["tag"] is not t.tag
