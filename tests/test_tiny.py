"""A fast smoke test of the core: ops, broadcasting, autograd, views."""

import numpy as np
from helpers import NonContig, parity, rand

import jtorch


def test_add_mul_sum_grad():
    parity(lambda T, x, y: (x * y + x).sum(), rand(3, 4), rand(3, 4))


def test_broadcast_and_scalars():
    parity(lambda T, x, y: T.add(x, y, alpha=2) * 3.5 - 1, rand(2, 3), rand(3))


def test_noncontiguous_matmul():
    parity(lambda T, x, y: T.matmul(x, y), NonContig(rand(3, 4)), rand(4, 5))


def test_view_write_through():
    a = jtorch.zeros(2, 3)
    a.transpose(0, 1)[1].fill_(7) if hasattr(a, "fill_") else a.transpose(0, 1)[1].add_(7)
    np.testing.assert_array_equal(a.numpy(), [[0, 7, 0], [0, 7, 0]])


def test_second_derivative():
    x = jtorch.tensor([3.0], requires_grad=True)
    (g,) = jtorch.autograd.grad((x ** 3).sum() if hasattr(x, "__pow__") else (x * x * x).sum(),
                                x, create_graph=True)
    (g2,) = jtorch.autograd.grad(g.sum(), x)
    assert g.item() == 27.0 and g2.item() == 18.0
