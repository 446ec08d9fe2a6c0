"""torch.gradient against PyTorch: uniform and uneven spacing, both edge orders, chosen dims,
integer input, values and gradients, and PyTorch's errors."""

import numpy as np
import pytest
import torch
from helpers import NoGrad, parity, raises_like

import jtorch

RNG = np.random.default_rng(7)
F = RNG.standard_normal((4, 5, 3))


@pytest.mark.parametrize("edge_order", [1, 2])
@pytest.mark.parametrize("kw", [{}, {"spacing": 2.5}, {"spacing": [2.0, 0.5, 3]},
                                {"dim": 1}, {"dim": (0, -1), "spacing": [1.5, 2]}],
                         ids=["default", "scalar", "per_dim", "one_dim", "dims"])
def test_uniform_spacing(kw, edge_order):
    parity(lambda T, f: T.gradient(f, edge_order=edge_order, **kw), F)


@pytest.mark.parametrize("edge_order", [1, 2])
def test_coordinates(edge_order):
    x0 = np.cumsum(RNG.uniform(0.5, 2, 4))
    x2 = np.cumsum(RNG.uniform(0.5, 2, 3))

    def fn(T, f, x0, x2):
        return T.gradient(f, spacing=(x0, x2), dim=(0, 2), edge_order=edge_order)

    parity(fn, F, x0, x2)
    parity(lambda T, f, x: T.gradient(f, spacing=(x,), dim=1, edge_order=edge_order), F,
           NoGrad(np.cumsum(RNG.uniform(0.5, 2, 5))))


def test_integer_input_and_coordinates():
    for make in (lambda T: T.gradient(T.tensor([1, 2, 4, 9])),
                 lambda T: T.gradient(T.tensor([1, 2, 4, 9]), spacing=2),
                 lambda T: T.gradient(T.tensor([1., 4., 9.]), spacing=(T.tensor([0, 1, 3]),))):
        (j,), (t,) = make(jtorch), make(torch)
        assert str(j.dtype) == str(t.dtype)
        np.testing.assert_allclose(j.numpy(), t.numpy(), rtol=1e-6)


@pytest.mark.parametrize("make", [
    lambda T: T.gradient(T.tensor([1.])),
    lambda T: T.gradient(T.tensor([1., 2.]), edge_order=2),
    lambda T: T.gradient(T.ones(3), edge_order=3),
    lambda T: T.gradient(T.ones(3, 4), spacing=[1., 2., 3.]),
    lambda T: T.gradient(T.ones(3, 4), dim=0, spacing=[1., 2.]),
], ids=["short", "short_order2", "order3", "spacing_len", "spacing_len_dim"])
def test_errors(make):
    raises_like(lambda: make(torch), lambda: make(jtorch))
