"""Regressions found by running d2l ("Dive into Deep Learning", ``from d2l import torch as
d2l``) unchanged under jtorch (scripts/real_drivers/d2l_book.py, docs/real-programs.md): each
test is a small stand-in for what the book's code did, in plain torch-API code, run in jtorch
and in real PyTorch."""

import numpy as np
import pytest
import torch

import jtorch


def _same(a, b):
    """Equal values, NaNs in the same places and zeros of the same sign."""
    a, b = a.detach().numpy(), b.detach().numpy()
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(np.signbit(a), np.signbit(b))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_float_times_bool_mask_keeps_nan_and_signed_zero(dtype):
    # the book's parameter-management cell: module.weight.data *= module.weight.data.abs() >= 5
    # printed 0. where PyTorch prints -0. (XLA rewrote x * convert(mask) as select(mask, x, 0),
    # which also turned nan * False and inf * False into 0)
    values = [-3.0, float("nan"), float("inf"), -float("inf"), 2.0, -7.0]
    mask = [False, False, False, False, True, True]
    results = []
    for T in (jtorch, torch):
        dt = getattr(T, dtype)
        w = T.tensor(values, dtype=dt)
        m = T.tensor(mask)
        inplace = w.clone()
        inplace *= m
        data = w.clone()
        data.data *= data.data.abs() >= 5
        results.append([w * m, m * w, T.mul(w, m), inplace, data,
                        T.addcmul(T.zeros(6, dtype=dt), w, m)])
    for got, want in zip(*results):
        _same(got, want)


def test_float_times_bool_mask_gradient():
    outs = []
    for T in (jtorch, torch):
        x = T.tensor([-3.0, float("inf"), 2.0], requires_grad=True)
        y = x * T.tensor([False, False, True])
        (y * T.tensor([1.0, 0.0, 3.0])).sum().backward()
        outs.append((y, x.grad))
    for got, want in zip(*outs):
        _same(got, want)


def test_lazy_linear_loaded_from_state_dict_infers_in_features():
    # the book's file I/O cell: clone = MLP(); clone.load_state_dict(torch.load('mlp.params'))
    # with LazyLinear layers; after a forward PyTorch prints Linear(in_features=20, ...)
    reprs = []
    for T in (jtorch, torch):
        T.manual_seed(0)
        m = T.nn.LazyLinear(4)
        ref = T.nn.Linear(3, 4)
        m.load_state_dict(ref.state_dict())
        before = (repr(m), m.in_features)
        x = T.ones(2, 3)
        y = m(x)
        reprs.append((before, repr(m), type(m).__name__, m.in_features))
        np.testing.assert_allclose(y.detach().numpy(), ref(x).detach().numpy())
        m2 = T.nn.LazyLinear(4)
        m2.load_state_dict(ref.state_dict())
        with pytest.raises(AssertionError, match="The in_features inferred from input: 5 is "
                                                 "not equal to in_features from self.weight: 3"):
            m2(T.ones(2, 5))
    assert reprs[0] == reprs[1]
