"""torch.frombuffer, torch.nonzero_static and torch.cholesky_inverse against PyTorch."""

import array

import numpy as np
import pytest
import torch
from helpers import parity, raises_like

import jtorch

BUF = np.arange(6, dtype=np.float32).tobytes()


@pytest.mark.parametrize("make", [
    lambda T: T.frombuffer(bytearray(BUF), dtype=T.float32),
    lambda T: T.frombuffer(bytearray(BUF), dtype=T.float32, count=2, offset=4),
    lambda T: T.frombuffer(bytearray(BUF), dtype=T.int16, count=3, offset=2),
    lambda T: T.frombuffer(bytearray(BUF), dtype=T.uint8),
    lambda T: T.frombuffer(array.array("d", [1.5, -2.0]), dtype=T.float64),
    lambda T: T.frombuffer(bytearray(BUF), dtype=T.float32, requires_grad=True),
], ids=["all", "count_offset", "int16", "bytes", "array", "requires_grad"])
def test_frombuffer(make):
    j, t = make(jtorch), make(torch)
    assert str(j.dtype) == str(t.dtype) and j.requires_grad == t.requires_grad
    np.testing.assert_array_equal(j.detach().numpy(), t.detach().numpy())


@pytest.mark.parametrize("make", [
    lambda T: T.frombuffer(bytearray(BUF), dtype=T.float32, offset=30),
    lambda T: T.frombuffer(bytearray(BUF), dtype=T.float32, count=10),
    lambda T: T.frombuffer(bytearray(b"abc"), dtype=T.float32),
    lambda T: T.frombuffer(bytearray(), dtype=T.float32),
    lambda T: T.frombuffer(bytearray(BUF), dtype=T.float32, count=0),
], ids=["offset", "count", "multiple", "empty", "count0"])
def test_frombuffer_errors(make):
    raises_like(lambda: make(torch), lambda: make(jtorch))


@pytest.mark.parametrize("kw", [{"size": 5}, {"size": 2, "fill_value": 7}, {"size": 0},
                                {"size": 4, "fill_value": 9}])
@pytest.mark.parametrize("data", [[[0, 1, 0], [2, 0, 3]], [[0.0, 0.5], [0.0, 0.0]], 3,
                                  [True, False, True]], ids=["int", "float", "0d", "bool"])
def test_nonzero_static(data, kw):
    j = jtorch.nonzero_static(jtorch.tensor(data), **kw)
    t = torch.nonzero_static(torch.tensor(data), **kw)
    assert str(j.dtype) == str(t.dtype)
    np.testing.assert_array_equal(j.numpy(), t.numpy())
    np.testing.assert_array_equal(jtorch.tensor(data).nonzero_static(**kw).numpy(), t.numpy())


def test_nonzero_static_under_jit_and_errors():
    import jax

    f = jax.jit(lambda a: jtorch.nonzero_static(jtorch.Tensor._make(a), size=3)._value)
    np.testing.assert_array_equal(f(np.array([0, 4, 0, 5])), [[1], [3], [-1]])
    raises_like(lambda: torch.nonzero_static(torch.ones(2), size=-1),
                lambda: jtorch.nonzero_static(jtorch.ones(2), size=-1))


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_inverse(upper):
    a = np.random.default_rng(2).standard_normal((2, 4, 4))
    spd = a @ np.swapaxes(a, -1, -2) + 4 * np.eye(4)
    L = np.linalg.cholesky(spd)
    factor = np.swapaxes(L, -1, -2) if upper else L
    parity(lambda T, f: T.cholesky_inverse(f, upper=upper), factor)
    parity(lambda T, f: f.cholesky_inverse(upper), factor)
    raises_like(lambda: torch.cholesky_inverse(torch.ones(3)),
                lambda: jtorch.cholesky_inverse(jtorch.ones(3)))
