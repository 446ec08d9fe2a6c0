"""Regressions found by running sbi and torchdyn unchanged under jtorch
(scripts/real_drivers/sbi_torchdyn.py, docs/real-programs.md): each test is a small stand-in for
what the library did, in plain torch-API code, run in jtorch and in real PyTorch."""

import importlib

import numpy as np
import pytest
import torch

import jtorch

SUBMODULES = {"adadelta": "Adadelta", "adagrad": "Adagrad", "adam": "Adam", "adamax": "Adamax",
              "adamw": "AdamW", "asgd": "ASGD", "lbfgs": "LBFGS", "nadam": "NAdam",
              "radam": "RAdam", "rmsprop": "RMSprop", "rprop": "Rprop", "sgd": "SGD",
              "sparse_adam": "SparseAdam"}


@pytest.mark.parametrize("sub", sorted(SUBMODULES))
def test_optimizer_submodules(sub):
    # sbi's VI optimizers import ``from torch.optim.adadelta import Adadelta`` (and adagrad,
    # adamax, adamw, asgd, rmsprop): ModuleNotFoundError at ``import sbi.inference``
    name = SUBMODULES[sub]
    want = importlib.import_module(f"torch.optim.{sub}")
    got = importlib.import_module(f"jtorch.optim.{sub}")
    assert getattr(want, name).__name__ == getattr(got, name).__name__ == name
    assert getattr(got, name) is getattr(jtorch.optim, name)
    assert issubclass(getattr(got, name), jtorch.optim.Optimizer)


@pytest.mark.parametrize("sub", ["adadelta", "adagrad", "adamax", "adamw", "asgd", "rmsprop"])
def test_optimizer_submodule_class_steps_as_torch(sub):
    # the class reached through the submodule is the optimizer itself: three steps on a
    # quadratic give PyTorch's parameters
    name = SUBMODULES[sub]
    start = np.linspace(-1.0, 1.0, 6).reshape(2, 3)
    out = []
    for T in (torch, jtorch):
        cls = getattr(importlib.import_module(f"{T.__name__}.optim.{sub}"), name)
        p = T.nn.Parameter(T.tensor(start, dtype=T.float64))
        opt = cls([p], lr=0.1)
        for _ in range(3):
            opt.zero_grad()
            (p * p * T.arange(1.0, 7.0, dtype=T.float64).reshape(2, 3)).sum().backward()
            opt.step()
        out.append(p.detach().numpy())
    np.testing.assert_allclose(out[1], out[0], rtol=1e-12, atol=1e-14)


def test_optimizer_submodule_functional_form_not_implemented():
    # PyTorch's functional ``torch.optim.adadelta.adadelta`` exists; jtorch names it
    assert callable(importlib.import_module("torch.optim.adadelta").adadelta)
    from jtorch.optim.adadelta import adadelta
    with pytest.raises(NotImplementedError, match=r"torch\.optim\.adadelta\.adadelta"):
        adadelta([], [], [], [])
