"""Regressions found by running e2cnn unchanged under jtorch (scripts/real_drivers/
e2cnn_equivariant.py, docs/real-programs.md): each test is a small stand-in for what the
library did, in plain torch-API code, run in jtorch and in real PyTorch."""

import numpy as np
import pytest
import torch

import jtorch


def _np(t):
    return np.asarray(t.detach().tolist())


@pytest.mark.parametrize("T", [jtorch, torch], ids=["jtorch", "torch"])
def test_data_setter_shares_the_storage_of_a_data_alias(T):
    # e2cnn's export() does `conv.weight.data = filter.data`; a compiled step of the
    # original model then donated the array both held (RuntimeError: Array has been deleted
    # on the exported copy), and in-place writes to one did not show in the other
    src = T.nn.Linear(3, 2)
    with T.no_grad():
        src.weight.copy_(T.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
        src.bias.zero_()
    dst = T.nn.Linear(3, 2)
    dst.weight.data = src.weight.data
    assert dst.weight.requires_grad and dst.weight.is_leaf and not dst.weight._is_view()
    opt = T.optim.SGD(src.parameters(), lr=0.5)
    x = T.tensor([[1.0, -1.0, 2.0]])

    def step():
        opt.zero_grad()
        loss = src(x).sum()
        loss.backward()
        opt.step()
        return loss

    compiled = T.compile(step) if T is jtorch else step
    compiled()
    compiled()
    expect = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]) - 2 * 0.5 * np.array([1.0, -1.0, 2.0])
    np.testing.assert_allclose(_np(dst.weight), expect, rtol=1e-6)
    with T.no_grad():
        dst.weight.mul_(2)          # a write through the other tensor shows in the source
    np.testing.assert_allclose(_np(src.weight), 2 * expect, rtol=1e-6)
    # a view's storage: the slice's values, strides and offset, and later writes to the base
    c, d = T.zeros(2), T.arange(4.0)
    c.data = d.data[1:3]
    assert (c.stride(), c.storage_offset()) == ((1,), 1)
    d.add_(10)
    assert _np(c).tolist() == [11.0, 12.0]
