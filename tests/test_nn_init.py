"""nn.init: gains, fans, bounds/stds against PyTorch's formulas, structure of eye/dirac/
orthogonal/sparse, no-grad in-place semantics, generators, errors."""

# the loop lambdas below are called within their iteration
# ruff: noqa: B023

import math
import warnings

import numpy as np
import pytest
import torch
from helpers import raises_like

import jtorch

I = jtorch.nn.init  # noqa: E741
TI = torch.nn.init

NONLINEARITIES = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                  "conv_transpose2d", "conv_transpose3d", "sigmoid", "tanh", "relu",
                  "leaky_relu", "selu"]


@pytest.mark.parametrize("name", NONLINEARITIES)
def test_calculate_gain(name):
    assert I.calculate_gain(name) == TI.calculate_gain(name)
    if name == "leaky_relu":
        for p in (0.2, 1, 0.0, 3):
            assert I.calculate_gain(name, p) == TI.calculate_gain(name, p)


def test_calculate_gain_errors():
    raises_like(lambda: TI.calculate_gain("foo"), lambda: I.calculate_gain("foo"))
    raises_like(lambda: TI.calculate_gain("leaky_relu", True),
                lambda: I.calculate_gain("leaky_relu", True))
    raises_like(lambda: TI.calculate_gain("leaky_relu", "x"),
                lambda: I.calculate_gain("leaky_relu", "x"))


@pytest.mark.parametrize("shape", [(3, 4), (8, 3, 5), (6, 4, 3, 3), (2, 5, 3, 2, 4), (0, 3),
                                   (4, 1, 1)])
def test_fans(shape):
    t, j = torch.empty(shape), jtorch.empty(shape)
    assert I._calculate_fan_in_and_fan_out(j) == TI._calculate_fan_in_and_fan_out(t)
    for mode in ("fan_in", "fan_out", "FAN_IN"):
        assert I._calculate_correct_fan(j, mode) == TI._calculate_correct_fan(t, mode)


def test_fan_errors():
    raises_like(lambda: TI._calculate_fan_in_and_fan_out(torch.empty(3)),
                lambda: I._calculate_fan_in_and_fan_out(jtorch.empty(3)))
    raises_like(lambda: TI._calculate_correct_fan(torch.empty(3, 3), "fan_avg"),
                lambda: I._calculate_correct_fan(jtorch.empty(3, 3), "fan_avg"))
    for fn in ("eye_", "sparse_"):
        args = (0.5,) if fn == "sparse_" else ()
        raises_like(lambda: getattr(TI, fn)(torch.empty(2, 2, 2), *args),
                    lambda: getattr(I, fn)(jtorch.empty(2, 2, 2), *args))
    raises_like(lambda: TI.dirac_(torch.empty(2, 2)), lambda: I.dirac_(jtorch.empty(2, 2)))
    raises_like(lambda: TI.dirac_(torch.empty(3, 2, 3), 2),
                lambda: I.dirac_(jtorch.empty(3, 2, 3), 2))
    raises_like(lambda: TI.orthogonal_(torch.empty(3)), lambda: I.orthogonal_(jtorch.empty(3)))


def _bounds_and_std(w):
    a = w.numpy()
    return a.min(), a.max(), a.std(), a.mean()


UNIFORM_CASES = [
    # (name, shape, kwargs, bound from the formula)
    ("uniform_", (200, 300), {"a": -0.3, "b": 0.7}, None),
    ("xavier_uniform_", (200, 300), {"gain": 2.0}, 2.0 * math.sqrt(6 / 500)),
    ("kaiming_uniform_", (200, 300), {"a": math.sqrt(5)}, math.sqrt(6 / 6 / 300)),
    ("kaiming_uniform_", (64, 16, 3, 3), {"mode": "fan_out", "nonlinearity": "relu"},
     math.sqrt(2) * math.sqrt(3 / (64 * 9))),
]


@pytest.mark.parametrize("name,shape,kw,bound", UNIFORM_CASES)
def test_uniform_family(name, shape, kw, bound):
    w = getattr(I, name)(jtorch.empty(shape), **kw)
    lo, hi, std, _ = _bounds_and_std(w)
    if bound is None:
        a, b = kw["a"], kw["b"]
    else:
        a, b = -bound, bound
    assert a <= lo and hi <= b
    assert lo < a + 0.02 * (b - a) and hi > b - 0.02 * (b - a)
    np.testing.assert_allclose(std, (b - a) / math.sqrt(12), rtol=0.03)


NORMAL_CASES = [
    ("normal_", (200, 300), {"mean": 1.0, "std": 0.5}, 0.5, 1.0),
    ("xavier_normal_", (200, 300), {}, math.sqrt(2 / 500), 0.0),
    ("kaiming_normal_", (200, 300), {"nonlinearity": "relu"}, math.sqrt(2 / 300), 0.0),
    ("kaiming_normal_", (64, 64, 5), {"a": 0.1, "mode": "fan_out"},
     math.sqrt(2 / (1 + 0.01)) / math.sqrt(64 * 5), 0.0),
]


@pytest.mark.parametrize("name,shape,kw,std,mean", NORMAL_CASES)
def test_normal_family(name, shape, kw, std, mean):
    w = getattr(I, name)(jtorch.empty(shape), **kw)
    _, _, s, m = _bounds_and_std(w)
    np.testing.assert_allclose(s, std, rtol=0.03)
    assert abs(m - mean) < 0.05 * std + 1e-3


@pytest.mark.parametrize("mean,std,a,b", [(0.0, 1.0, -2.0, 2.0), (0.0, 0.02, -0.04, 0.04),
                                          (1.0, 2.0, 0.0, 3.0), (0.0, 1.0, -0.5, 0.5)])
def test_trunc_normal(mean, std, a, b):
    for dt in (jtorch.float32, jtorch.float64):
        w = I.trunc_normal_(jtorch.empty(300, 300, dtype=dt), mean, std, a, b).numpy()
        assert w.dtype == np.dtype(str(dt).split(".")[1])
        assert a <= w.min() and w.max() <= b
        # moments of the truncated normal (from the formula)
        al, be = (a - mean) / std, (b - mean) / std
        phi = lambda x: math.exp(-x * x / 2) / math.sqrt(2 * math.pi)  # noqa: E731
        cdf = lambda x: 0.5 * (1 + math.erf(x / math.sqrt(2)))  # noqa: E731
        z = cdf(be) - cdf(al)
        mu = mean + (phi(al) - phi(be)) / z * std
        var = std ** 2 * (1 + (al * phi(al) - be * phi(be)) / z - ((phi(al) - phi(be)) / z) ** 2)
        np.testing.assert_allclose(w.mean(), mu, atol=0.02 * std)
        np.testing.assert_allclose(w.std(), math.sqrt(var), rtol=0.03)


def test_trunc_normal_warns():
    with pytest.warns(UserWarning, match="mean is more than 2 std"):
        I.trunc_normal_(jtorch.empty(3), mean=10.0)


def test_constants_eye_dirac():
    for fn, args in (("constant_", (0.3,)), ("ones_", ()), ("zeros_", ()), ("eye_", ())):
        for shape in ((3, 5), (4, 2)):
            t = getattr(TI, fn)(torch.empty(shape), *args)
            j = getattr(I, fn)(jtorch.empty(shape), *args)
            np.testing.assert_array_equal(j.numpy(), t.numpy())
    for shape, groups in (((4, 2, 3), 1), ((6, 4, 3, 3), 2), ((3, 5, 3, 4, 5), 1),
                          ((6, 2, 3, 3), 3)):
        t = TI.dirac_(torch.empty(shape), groups)
        j = I.dirac_(jtorch.empty(shape), groups)
        np.testing.assert_array_equal(j.numpy(), t.numpy())


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 3, 2, 2)])
def test_orthogonal(shape):
    for dt in (jtorch.float32, jtorch.float64):
        w = I.orthogonal_(jtorch.empty(shape, dtype=dt), gain=2.0).numpy()
        m = w.reshape(shape[0], -1)
        small = m @ m.T if m.shape[0] <= m.shape[1] else m.T @ m
        np.testing.assert_allclose(small, 4 * np.eye(small.shape[0]), atol=1e-5)


def test_sparse():
    w = I.sparse_(jtorch.empty(20, 30), 0.25, std=0.5).numpy()
    np.testing.assert_array_equal((w == 0).sum(0), np.full(30, math.ceil(0.25 * 20)))
    nz = w[w != 0]
    np.testing.assert_allclose(nz.std(), 0.5, rtol=0.1)


def test_inplace_no_grad_and_return():
    p = jtorch.nn.Parameter(jtorch.empty(4, 3))
    for fn, args in (("uniform_", ()), ("normal_", ()), ("constant_", (1.5,)), ("ones_", ()),
                     ("zeros_", ()), ("eye_", ()), ("xavier_uniform_", ()),
                     ("xavier_normal_", ()), ("kaiming_uniform_", ()), ("kaiming_normal_", ()),
                     ("trunc_normal_", ()), ("orthogonal_", ()), ("sparse_", (0.5,))):
        out = getattr(I, fn)(p, *args)
        assert out is p, fn
        assert p.requires_grad and p.grad_fn is None and p.is_leaf, fn
    # writes through a view into its base
    base = jtorch.zeros(4, 6)
    I.ones_(base[:, :3])
    I.eye_(base[:, 3:].t()[:2])
    np.testing.assert_array_equal(base.numpy()[:, :3], np.ones((4, 3)))
    np.testing.assert_array_equal(base.numpy()[:2, 3:5], np.eye(2))


def test_generator_reproducible():
    for fn in ("uniform_", "normal_", "xavier_uniform_", "kaiming_normal_", "trunc_normal_",
               "orthogonal_"):
        g1, g2 = jtorch.Generator().manual_seed(3), jtorch.Generator().manual_seed(3)
        a = getattr(I, fn)(jtorch.empty(5, 4), generator=g1).numpy()
        b = getattr(I, fn)(jtorch.empty(5, 4), generator=g2).numpy()
        np.testing.assert_array_equal(a, b)
        c = getattr(I, fn)(jtorch.empty(5, 4), generator=g1).numpy()
        assert not np.array_equal(a, c)


def test_zero_element_warns_and_deprecated():
    for fn in ("kaiming_uniform_", "kaiming_normal_"):
        with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
            getattr(I, fn)(jtorch.empty(0, 3))
    with pytest.warns(FutureWarning, match=r"`nn.init.uniform` is now deprecated in favor of "
                                           r"`nn.init.uniform_`."):
        I.uniform(jtorch.empty(2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        I.orthogonal_(jtorch.empty(0, 3))
