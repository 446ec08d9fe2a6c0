"""Division rounds as IEEE division, bit for bit with PyTorch 2.13, where XLA would multiply by
the reciprocal instead: a Python-number or 0-d divisor, a divisor broadcast along some
dimensions, a constant divisor inside jtorch.compile; the rounding modes built on it; the
special values; gradients."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import jtorch

_G = np.random.default_rng(0)
_X = (_G.standard_normal((512, 8)) * 10).astype(np.float32)


def _both(fn, *arrays):
    return [fn(lib, *[lib.tensor(a) for a in arrays]).numpy() for lib in (torch, jtorch)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("divisor", [3.3, 0.1, 7.0, 1e-3, -2.5])
def test_division_by_a_number_is_exact(dtype, divisor):
    x = _X.astype(dtype)
    for fn in (lambda lib, t: t / divisor, lambda lib, t: lib.div(t, divisor),
               lambda lib, t: lib.true_divide(t, lib.tensor(divisor, dtype=t.dtype)),
               lambda lib, t: t.div_(divisor), lambda lib, t: divisor / t):
        want, got = _both(fn, x)
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("divisor_shape", [(512, 1), (1, 8), (8,), ()])
def test_division_by_a_broadcast_tensor_is_exact(divisor_shape):
    d = (np.abs(_G.standard_normal(divisor_shape)) + 0.1).astype(np.float32)
    want, got = _both(lambda lib, x, y: x / y, _X, d)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("mode", ["trunc", "floor"])
def test_rounding_modes_by_a_number_are_exact(mode):
    x = (_X * 100).astype(np.float32)
    for divisor in (0.1, 1e-3, 3.3):
        want, got = _both(lambda lib, t, d=divisor: lib.div(t, d, rounding_mode=mode), x)
        np.testing.assert_array_equal(got, want)


def test_division_inside_compile_is_exact():
    """jtorch.compile traces the number as a constant of the program; XLA inverts constant
    divisors on every backend."""
    step = jtorch.compile(lambda t: (t / 3.3, t / t.abs().amax(dim=1, keepdim=True)))
    got = [t.numpy() for t in step(jtorch.tensor(_X))]
    t = torch.tensor(_X)
    want = [(t / 3.3).numpy(), (t / t.abs().amax(dim=1, keepdim=True)).numpy()]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_special_divisors_and_complex_as_torch():
    x = np.array([1.0, -1.0, 0.0, np.inf, np.nan], np.float32)
    for divisor in (0.0, -0.0, np.inf, np.nan):   # (subnormals: docs/differences.md)
        want, got = _both(lambda lib, t, d=divisor: t / lib.tensor(d, dtype=lib.float32), x)
        np.testing.assert_array_equal(got, want)
    z = (_G.standard_normal(64) + 1j * _G.standard_normal(64)).astype(np.complex64)
    want, got = _both(lambda lib, t: t / (2.0 - 1.5j), z)
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_gradients_through_a_broadcast_divisor_as_torch():
    d = (np.abs(_G.standard_normal((512, 1))) + 0.5).astype(np.float32)
    grads = {}
    for lib in (torch, jtorch):
        x, y = (lib.tensor(a, requires_grad=True) for a in (_X, d))
        (x / y).square().sum().backward()
        grads[lib] = (x.grad.numpy(), y.grad.numpy())
    for g, w in zip(grads[jtorch], grads[torch]):
        np.testing.assert_allclose(g, w, rtol=1e-5)


def test_reflected_division_is_reciprocal_times_number_as_torch():
    """PyTorch's ``number / tensor`` is ``tensor.reciprocal() * number`` (not always the exact
    quotient): the same values, result dtype and graph."""
    out = {}
    for lib in (torch, jtorch):
        x = lib.tensor(_X[:, 0].copy(), requires_grad=True)
        y = 3.3 / x
        y.sum().backward()
        out[lib] = (y.grad_fn.name(), y.detach().numpy(), x.grad.numpy(),
                    str((2 / lib.tensor([3, 4])).dtype))
    t, j = out[torch], out[jtorch]
    assert j[0] == t[0] and j[3].replace("jtorch", "torch") == t[3]
    np.testing.assert_array_equal(j[1], t[1])
    np.testing.assert_allclose(j[2], t[2], rtol=1e-6)
