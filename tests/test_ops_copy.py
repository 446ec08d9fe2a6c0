"""Tensor.copy_: broadcasting, casting, views and gradients, against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

from tests.helpers import NoGrad, parity, raises_like, rand


@pytest.mark.parametrize("src_shape", [(2, 3), (3,), (1, 3), ()])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_copy_broadcasts_and_flows_grad(src_shape, dtype):
    parity(lambda T, x, y: (x * 1).copy_(y) * 2, rand(2, 3, dtype=dtype), rand(*src_shape,
                                                                               dtype=dtype))


def test_copy_into_view_and_cast():
    parity(lambda T, x, y: _into_row(T, x, y), rand(2, 3), rand(3))
    parity(lambda T, x: T.zeros(3, dtype=T.int64).copy_(x), NoGrad(rand(3, low=-5, high=5)))
    parity(lambda T, x: T.zeros(3, dtype=T.float64).copy_(x), rand(3))


def _into_row(T, x, y):
    z = x * 1
    z[1].copy_(y)
    return z


def test_copy_errors():
    import torch

    import jtorch

    raises_like(lambda: torch.zeros(2, 3).copy_(torch.ones(4)),
                lambda: jtorch.zeros(2, 3).copy_(jtorch.ones(4)))
    raises_like(lambda: torch.zeros(2).copy_([1, 2]), lambda: jtorch.zeros(2).copy_([1, 2]))
    raises_like(lambda: torch.zeros(2, requires_grad=True).copy_(torch.ones(2)),
                lambda: jtorch.zeros(2, requires_grad=True).copy_(jtorch.ones(2)))
