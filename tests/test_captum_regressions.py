"""Regressions found by running Captum unchanged under jtorch
(scripts/real_drivers/captum_attributions.py, docs/real-programs.md): each test is a small
stand-in for what the library did, in plain torch-API code, run in jtorch and in real
PyTorch."""

import collections
import importlib

import numpy as np
import pytest
import torch

import jtorch


def test_future_is_generic():
    # captum annotates `-> Union[Tensor, Future[Tensor]]` at import (TypeError: type 'Future'
    # is not subscriptable)
    for T in (jtorch, torch):
        alias = T.futures.Future[T.Tensor]
        assert alias.__origin__ is T.futures.Future
        fut = T.futures.Future()
        fut.set_result(3)
        assert fut.wait() == 3


def _tree(T, obj):
    """A comparable picture of a scattered/gathered structure: arrays for tensors."""
    if isinstance(obj, T.Tensor):
        return ("t", obj.detach().numpy().tolist())
    if isinstance(obj, dict):
        return {k: _tree(T, v) for k, v in obj.items()}
    if isinstance(obj, (tuple, list)):
        return (type(obj).__name__, [_tree(T, v) for v in obj])
    return obj


def test_scatter_gather_module():
    # captum's LayerIntegratedGradients imports torch.nn.parallel.scatter_gather.scatter
    # (ModuleNotFoundError); PyTorch's Scatter needs GPUs, so the CPU-only parts are compared:
    # non-tensor leaves repeated per device, namedtuples, empty containers, scatter_kwargs
    Pair = collections.namedtuple("Pair", "a b")
    got, want = (importlib.import_module(f"{T.__name__}.nn.parallel.scatter_gather")
                 for T in (jtorch, torch))
    for obj in (3, "s", (), [], {}, None, (1, [2, 3], {"k": 4}), Pair(1, "x")):
        assert _tree(jtorch, got.scatter(obj, [0, 1])) == _tree(torch, want.scatter(obj, [0, 1]))
    assert _tree(jtorch, got.scatter_kwargs((1, 2), {"k": 3}, [0, 1])) == \
        _tree(torch, want.scatter_kwargs((1, 2), {"k": 3}, [0, 1]))
    assert jtorch.nn.parallel.scatter is got.scatter
    assert jtorch.nn.parallel.gather is got.gather


def test_scatter_gather_tensors_round_trip():
    # jtorch splits like PyTorch's comm.scatter (Tensor.chunk over the devices) and gathers
    # by concatenation; on the host (PyTorch asserts GPU tensors) and differentiably
    sg = jtorch.nn.parallel.scatter_gather
    x = jtorch.arange(15.0).reshape(5, 3).requires_grad_()
    parts = sg.scatter(x, ["cpu", "cpu"])
    assert [p.shape[0] for p in parts] == [c.shape[0] for c in torch.arange(15.0).reshape(5, 3)
                                          .chunk(2, 0)]
    nested = sg.scatter({"x": x, "n": 7}, ["cpu", "cpu", "cpu"], dim=1)
    assert [d["n"] for d in nested] == [7, 7, 7] and [d["x"].shape[1] for d in nested] == [1] * 3
    back = sg.gather([p * (i + 1) for i, p in enumerate(parts)], "cpu")
    assert back.shape == (5, 3)
    back.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[1.0] * 3] * 3 + [[2.0] * 3] * 2)
    with pytest.warns(UserWarning, match="all input tensors were scalars"):
        assert sg.gather([jtorch.tensor(1.0), jtorch.tensor(2.0)], -1).tolist() == [1.0, 2.0]


@pytest.mark.parametrize("case", ["kthvalue", "kthvalue_keepdim", "topk", "roll", "roll_list",
                                  "unsqueeze", "diag"])
def test_one_element_integer_tensor_as_int_argument(case):
    # captum's KernelShap: torch.kthvalue(rand_vals, num_features - num_selected_features)
    # where the sampled count is a 0-d int64 tensor (jtorch traced it: TracerBoolConversion
    # Error); PyTorch's parser reads a one-element integer tensor given to an int parameter
    # by its value
    fns = {"kthvalue": lambda T, x: T.kthvalue(x, T.tensor(3)),
           "kthvalue_keepdim": lambda T, x: x.kthvalue(T.tensor([2]), 0, keepdim=True),
           "topk": lambda T, x: T.topk(x, k=T.tensor(2)),
           "roll": lambda T, x: x.roll(T.tensor(1)),
           "roll_list": lambda T, x: x.roll((T.tensor(2),), (0,)),
           "unsqueeze": lambda T, x: x.unsqueeze(T.tensor(0)),
           "diag": lambda T, x: T.diag(x, T.tensor(-1))}
    data = np.array([0.3, -1.2, 2.5, 0.7, -0.1], np.float32)
    outs = []
    for T in (jtorch, torch):
        x = T.tensor(data, requires_grad=True)
        out = fns[case](T, x)
        vals = out[0] if isinstance(out, tuple) else out
        vals.pow(2).sum().backward()
        outs.append([o.detach().numpy() for o in (out if isinstance(out, tuple) else (out,))]
                    + [x.grad.numpy()])
    for g, w in zip(*outs):
        np.testing.assert_allclose(g, w, rtol=1e-6)
