"""Max / average / power-average / adaptive pooling and max-unpooling against PyTorch."""

import jax
import numpy as np
import pytest
import torch

import jtorch
from jtorch._ops._registry import OPS
from tests.helpers import NoGrad, NonContig, parity, raises_like, rand
from tests.nn_helpers import module_parity

F64 = np.float64
SP = (7, 6, 5)


def F(T):
    return T.nn.functional


def _x(n, batched, dt=np.float32):
    return rand(*((2,) if batched else ()), 3, *SP[:n], dtype=dt)


# ---------------------------------------------------------------------------- max pooling
MAX_CASES = [
    (1, True, np.float32, {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True}),
    (1, False, F64, {"kernel_size": 2, "dilation": 2, "padding": 1, "return_indices": True}),
    (2, True, np.float32, {"kernel_size": (3, 2), "stride": (2, 1), "padding": (1, 0)}),
    (2, False, F64, {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True,
                         "return_indices": True}),
    (2, True, F64, {"kernel_size": 2, "dilation": (2, 1), "ceil_mode": True,
                    "return_indices": True}),
    (3, True, np.float32, {"kernel_size": 2, "stride": (1, 2, 2), "padding": 1}),
    (3, False, F64, {"kernel_size": (2, 3, 2), "ceil_mode": True, "return_indices": True}),
]


@pytest.mark.parametrize("case", MAX_CASES)
def test_max_pool(case):
    n, batched, dt, kw = case
    parity(lambda T, x: getattr(F(T), f"max_pool{n}d")(x, **kw), _x(n, batched, dt))


def test_max_pool_forms():
    x = rand(2, 3, 6, 6)
    parity(lambda T, x: T.max_pool2d(x, 2), NonContig(x))
    parity(lambda T, x: T.max_pool1d(x, 3, 2), rand(2, 3, 7))
    parity(lambda T, x: T.max_pool1d_with_indices(x, 2), rand(3, 7, dtype=F64))
    parity(lambda T, x: F(T).max_pool2d_with_indices(x, 3, 1, 1), x)
    parity(lambda T, x: F(T).max_pool2d(x, 2), rand(2, 3, 6, 6, dtype=np.int64, high=3))
    parity(lambda T, x: F(T).max_pool2d(x, 2), rand(0, 3, 4, 4))
    out = jtorch.max_pool2d(jtorch.randn(1, 2, 4, 4, requires_grad=True), 2)
    assert out.grad_fn.name() == "MaxPool2DWithIndicesBackward0"


def _ties():
    x = np.zeros((1, 2, 5, 5), np.float32)
    x[0, 1, 1:4, 1:4] = 1.0
    x[0, 0, ::2] = -1.0
    return x


@pytest.mark.parametrize("kw,indices", [
    ({"kernel_size": 2, "stride": 1}, False),
    ({"kernel_size": 3, "stride": 1, "padding": 1}, False),
    ({"kernel_size": 3, "stride": 2, "ceil_mode": True}, False),
    ({"kernel_size": 2, "stride": 1, "dilation": 2}, False),
    ({"kernel_size": 3, "stride": 1, "padding": 1}, True),
    ({"kernel_size": 2, "stride": 1, "dilation": 2}, True),
])
def test_max_pool_ties(kw, indices):
    # every window has several maxima: the gradient goes to the first one (row-major), as in
    # PyTorch, for the plain (reduce_window) and the with-indices form alike
    parity(lambda T, x: F(T).max_pool2d(x, return_indices=indices, **kw), _ties())


def test_max_pool_ties_1d_3d():
    parity(lambda T, x: F(T).max_pool1d(x, 3, 1, 1), np.ones((2, 6), np.float32))
    parity(lambda T, x: F(T).max_pool3d(x, 2, 1, return_indices=True),
           np.ones((1, 3, 3, 3), F64))


# ---------------------------------------------------------------------------- average pooling
AVG_CASES = [
    (1, True, np.float32, {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True}),
    (1, False, F64, {"kernel_size": 2, "padding": 1, "count_include_pad": False}),
    (2, True, np.float32, {"kernel_size": (3, 2), "stride": (2, 1), "padding": (1, 0)}),
    (2, False, F64, {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True,
                         "count_include_pad": False}),
    (2, True, F64, {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True}),
    (2, True, np.float32, {"kernel_size": 2, "padding": 1, "divisor_override": 3}),
    (3, True, np.float32, {"kernel_size": 2, "stride": (1, 2, 2), "padding": 1, "ceil_mode": True,
                               "count_include_pad": False}),
    (3, False, F64, {"kernel_size": (2, 3, 2), "divisor_override": 5}),
]


@pytest.mark.parametrize("case", AVG_CASES)
def test_avg_pool(case):
    n, batched, dt, kw = case
    parity(lambda T, x: getattr(F(T), f"avg_pool{n}d")(x, **kw), _x(n, batched, dt))


def test_avg_pool_forms():
    parity(lambda T, x: T.avg_pool1d(x, 3, 2, 1, True, False), NonContig(rand(2, 7, 3)))
    parity(lambda T, x: F(T).avg_pool2d(x, 2, padding=1, divisor_override=3),
           rand(2, 3, 5, 5, dtype=np.int64, low=-9, high=9))


# ---------------------------------------------------------------------------- lp pooling
@pytest.mark.parametrize("n,norm,kw", [
    (1, 2.0, {"kernel_size": 3, "stride": 2, "ceil_mode": True}),
    (2, 3, {"kernel_size": (2, 3)}),
    (2, 1.5, {"kernel_size": 2, "stride": 1}),
    (2, float("inf"), {"kernel_size": 2}),
    (3, 2, {"kernel_size": 2, "ceil_mode": True}),
])
def test_lp_pool(n, norm, kw):
    x = np.abs(_x(n, True)) + 0.1 if norm == 1.5 else _x(n, True)
    x = x if n != 2 else x.astype(F64)[0]    # float64 and unbatched for the 2-d cases
    parity(lambda T, x: getattr(F(T), f"lp_pool{n}d")(x, norm, **kw), x)


# ---------------------------------------------------------------------------- adaptive pooling
@pytest.mark.parametrize("n,size,batched", [
    (1, 3, True), (1, 7, False), (2, (3, 4), True), (2, 1, False), (2, (None, 4), True),
    (2, (2, 3), False), (3, (3, 4, 2), True), (3, 1, False), (3, (2, None, 5), True),
])
def test_adaptive_avg_pool(n, size, batched):
    dt = np.float32 if batched else F64
    parity(lambda T, x: getattr(F(T), f"adaptive_avg_pool{n}d")(x, size), _x(n, batched, dt))


@pytest.mark.parametrize("n,size,batched", [
    (1, 3, True), (1, 4, False), (2, (3, 4), True), (2, 1, False), (2, (None, 4), True),
    (3, (3, 4, 2), True), (3, 2, False),
])
def test_adaptive_max_pool(n, size, batched):
    dt, ind = (np.float32, False) if batched else (F64, True)
    parity(lambda T, x: getattr(F(T), f"adaptive_max_pool{n}d")(x, size, ind),
           _x(n, batched, dt))
    if n == 2 and batched:
        parity(lambda T, x: F(T).adaptive_max_pool2d(x, size, True), _x(n, True))


def test_adaptive_forms_and_ties():
    parity(lambda T, x: T.adaptive_max_pool1d(x, 3), rand(2, 3, 8))
    parity(lambda T, x: T.adaptive_avg_pool1d(x, 3), rand(2, 3, 8))
    parity(lambda T, x: F(T).adaptive_max_pool2d_with_indices(x, 2), rand(3, 5, 5))
    parity(lambda T, x: F(T).adaptive_max_pool2d(x, 2, return_indices=True), _ties())
    parity(lambda T, x: F(T).adaptive_max_pool3d(x, 2), np.ones((1, 3, 3, 3), F64))


# ---------------------------------------------------------------------------- max unpooling
@pytest.mark.parametrize("n,kw,size", [
    (1, {"kernel_size": 2}, (7,)),
    (2, {"kernel_size": 2}, (7, 6)),
    (2, {"kernel_size": 3, "stride": 2, "padding": 1}, (7, 6)),
    (3, {"kernel_size": 2}, (1, 1, 7, 6, 5)),
])
def test_max_unpool(n, kw, size):
    def fn(T, x):
        v, i = getattr(F(T), f"max_pool{n}d")(x, return_indices=True, **kw)
        return getattr(F(T), f"max_unpool{n}d")(v, i, output_size=size, **kw)

    parity(fn, _x(n, True) if n != 2 else _x(n, False, F64))


# ---------------------------------------------------------------------------- errors
def _errs(T):
    f = F(T)
    x = T.zeros(2, 3, 8, 8)
    return [
        lambda: f.max_pool2d(x[0, 0], 2),
        lambda: f.max_pool2d(x[None], 2),
        lambda: f.max_pool2d(x, 2, padding=2),
        lambda: f.max_pool2d(x, 0),
        lambda: f.max_pool2d(x, 2, stride=0),
        lambda: f.max_pool2d(x, 2, dilation=0),
        lambda: f.max_pool2d(x, (2, 2, 2)),
        lambda: f.max_pool2d(x, 2, (1, 1, 1)),
        lambda: f.max_pool2d(x, 9),
        lambda: f.max_pool2d(T.zeros(2, 0, 5, 4), 2),
        lambda: f.max_pool2d(x.bool(), 2),
        lambda: f.max_pool1d(x, 2),
        lambda: f.max_pool1d(x[0], 9),
        lambda: f.max_pool1d(x[0], 2, padding=2),
        lambda: f.max_pool1d(x[0], 2, stride=0),
        lambda: f.max_pool1d(x[0], (2, 2)),
        lambda: f.max_pool1d(x[0].long(), 2),
        lambda: f.max_pool1d(x[0], 9, return_indices=True),
        lambda: f.max_pool3d(x[0], 2),
        lambda: f.max_pool3d(x[None], 9),
        lambda: f.max_pool3d(x[None], 2, dilation=0),
        lambda: f.max_pool3d(x[None], (2, 2)),
        lambda: f.max_pool3d(T.zeros(2, 0, 2, 2, 2), 1),
        lambda: f.avg_pool2d(x[0, 0], 2),
        lambda: f.avg_pool2d(x[None], 2),
        lambda: f.avg_pool2d(x, 2, padding=2),
        lambda: f.avg_pool2d(x, 9),
        lambda: f.avg_pool2d(x, 2, divisor_override=0),
        lambda: f.avg_pool2d(x, (2, 2, 2)),
        lambda: f.avg_pool2d(x.bool(), 2),
        lambda: f.avg_pool1d(x, 2),
        lambda: f.avg_pool3d(x[0, 0], 2),
        lambda: f.avg_pool3d(x[None], (2, 2)),
        lambda: f.avg_pool3d(T.zeros(2, 0, 2, 2, 2), 1),
        lambda: f.adaptive_avg_pool2d(x[0, 0], 2),
        lambda: f.adaptive_avg_pool2d(x, (2, 2, 2)),
        lambda: f.adaptive_avg_pool2d(T.zeros(2, 3, 0, 4), 2),
        lambda: f.adaptive_avg_pool2d(x.long(), 2),
        lambda: f.adaptive_avg_pool1d(x, 2),
        lambda: f.adaptive_avg_pool3d(x[0, 0], 2),
        lambda: f.adaptive_max_pool2d(x[0, 0], 2),
        lambda: f.adaptive_max_pool1d(x, 2),
        lambda: f.max_unpool2d(x, x, 2),
        lambda: f.max_unpool2d(x, x.long()[:, :, :2], 2),
        lambda: f.max_unpool2d(x, x.long(), 2, output_size=(5, 5)),
        lambda: f.max_unpool2d(x, x.long(), 2, output_size=(3, 17, 17)),
        lambda: f.max_unpool2d(x[0, 0], x[0, 0].long(), 2),
        lambda: f.max_unpool3d(x[0], x[0].long(), 2),
        lambda: f.max_unpool2d(x.long(), x.long(), 1),
    ]


@pytest.mark.parametrize("i", range(len(_errs(torch))))
def test_pool_errors(i):
    raises_like(lambda: _errs(torch)[i](), lambda: _errs(jtorch)[i]())


# ---------------------------------------------------------------------------- modules
MODULES = [
    (lambda T: T.nn.MaxPool1d(3, 2, 1), (2, 3, 7)),
    (lambda T: T.nn.MaxPool2d(3, 2, 1, ceil_mode=True), (2, 3, 7, 6)),
    (lambda T: T.nn.MaxPool2d((2, 3), dilation=(2, 1), return_indices=True), (3, 7, 6)),
    (lambda T: T.nn.MaxPool3d(2, stride=1), (2, 2, 3, 4, 3)),
    (lambda T: T.nn.AvgPool1d(3, 2, 1, ceil_mode=True, count_include_pad=False), (2, 3, 7)),
    (lambda T: T.nn.AvgPool2d(3, 2, 1, divisor_override=2), (2, 3, 7, 6)),
    (lambda T: T.nn.AvgPool3d((2, 1, 2), ceil_mode=True), (2, 3, 3, 5)),
    (lambda T: T.nn.LPPool1d(2, 3, 2), (2, 3, 7)),
    (lambda T: T.nn.LPPool2d(3, 2, ceil_mode=True), (2, 3, 7, 6)),
    (lambda T: T.nn.LPPool3d(2, 2), (2, 2, 4, 4, 4)),
    (lambda T: T.nn.AdaptiveAvgPool1d(4), (2, 3, 7)),
    (lambda T: T.nn.AdaptiveAvgPool2d((None, 3)), (2, 3, 7, 6)),
    (lambda T: T.nn.AdaptiveAvgPool2d(1), (2, 3, 7, 6)),
    (lambda T: T.nn.AdaptiveAvgPool3d((2, 3, 1)), (2, 3, 4, 5)),
    (lambda T: T.nn.AdaptiveMaxPool1d(3, return_indices=True), (2, 3, 7)),
    (lambda T: T.nn.AdaptiveMaxPool2d((3, 4)), (2, 3, 7, 6)),
    (lambda T: T.nn.AdaptiveMaxPool3d(2), (2, 3, 4, 5)),
]


@pytest.mark.parametrize("i", range(len(MODULES)))
def test_module_parity(i):
    make, shape = MODULES[i]
    module_parity(make, rand(*shape))
    assert repr(make(jtorch)) == repr(make(torch))


def test_max_unpool_modules():
    for n, shape in ((1, (2, 3, 8)), (2, (2, 3, 6, 6)), (3, (3, 4, 4, 4))):
        def call(m, x, n=n):
            lib = jtorch if isinstance(x, jtorch.Tensor) else torch
            pool = getattr(lib.nn, f"MaxPool{n}d")(2, return_indices=True)
            v, i = pool(x)
            return m(v, i, output_size=x.shape[-n:])

        make = lambda T, n=n: getattr(T.nn, f"MaxUnpool{n}d")(2)  # noqa: E731
        module_parity(make, rand(*shape), call=call)
        assert repr(make(jtorch)) == repr(make(torch))


def test_max_pool_nan_windows():
    # PyTorch keeps the LAST NaN of a window (index and gradient)
    x = np.array([[[1.0, np.nan, 3.0, 4.0], [5.0, 6.0, np.nan, np.nan]]], np.float32)
    parity(lambda T, x: F(T).max_pool2d(x, (1, 2), return_indices=True), x)
    parity(lambda T, x: F(T).adaptive_max_pool2d(x, (1, 2), return_indices=True), x)


# ---------------------------------------------------------------------------- tiled windows
# stride == kernel_size, no padding, dilation 1: the reshape path (jtorch/_ops/nn_pool_tiled.py)
def _nan_tiles(n):
    """Windows of 2**n elements (kernel 2) holding: one NaN, two NaNs, a NaN among ties,
    -inf only, ties only, and plain values; a trailing remainder of one element."""
    shape = (2, 3) + (5,) * n
    x = np.random.default_rng(n).uniform(-2, 2, shape).astype(np.float32)
    flat = x.reshape(-1)
    flat[::7] = np.nan
    flat[3::11] = np.nan
    x[0, 1] = 1.0
    x[0, 1][(1,) * n] = np.nan
    x[1, 0] = -np.inf
    x[1, 2] = 0.5
    return x


@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("indices", [False, True])
def test_tiled_max_pool_nans_ties(n, indices):
    parity(lambda T, x: getattr(F(T), f"max_pool{n}d")(x, 2, return_indices=indices),
           _nan_tiles(n))


@pytest.mark.parametrize("n,kw", [
    (1, {"kernel_size": 3, "return_indices": True}),
    (2, {"kernel_size": (2, 3), "stride": (2, 3), "return_indices": True}),
    (2, {"kernel_size": 2, "ceil_mode": True}),               # no remainder: same windows
    (3, {"kernel_size": (1, 2, 3), "return_indices": True}),
])
def test_tiled_max_pool_constant(n, kw):
    # every element of every window ties: gradient and index go to the window's first element
    parity(lambda T, x: getattr(F(T), f"max_pool{n}d")(x, **kw),
           np.ones((2, 2) + (6,) * n, np.float64))


def test_tiled_max_pool_forms():
    parity(lambda T, x: F(T).max_pool2d(x, 2, return_indices=True), NonContig(rand(2, 3, 7, 6)))
    parity(lambda T, x: F(T).max_pool2d(x, 3, return_indices=True), rand(3, 7, 8))  # unbatched
    parity(lambda T, x: F(T).max_pool3d(x, 2), rand(2, 5, 4, 3, dtype=np.int64, high=3))
    parity(lambda T, x: F(T).max_pool2d(x, 2, ceil_mode=True), rand(1, 2, 5, 5))  # general
    parity(lambda T, x: T.nn.MaxPool1d(4)(x), rand(2, 3, 9, dtype=F64))
    big = rand(1, 2, 19, 18)       # 81-element windows: argmax instead of the unrolled loop
    big[0, 0, :3, :3] = np.nan
    big[0, 1, 9:] = 1.0
    parity(lambda T, x: F(T).max_pool2d(x, 9, return_indices=True), big)
    parity(lambda T, x: F(T).max_pool2d(x, 9), big)


def test_tiled_max_pool_has_no_scatter():
    # the derivative is elementwise selects: no select_and_scatter, scatter or gather
    body = OPS["max_pool2d"].fn
    x = np.ones((2, 3, 7, 6), np.float32)
    jaxpr = str(jax.make_jaxpr(lambda a: jax.vjp(lambda b: body(b, 2), a)[1](
        np.ones((2, 3, 3, 3), np.float32)))(x))
    for prim in ("select_and_scatter", "scatter", "gather", "reduce_window"):
        assert prim not in jaxpr


@pytest.mark.parametrize("n,kw,dt", [
    (1, {"kernel_size": 2}, np.float32),
    (2, {"kernel_size": (3, 2), "stride": (3, 2), "count_include_pad": False}, F64),
    (2, {"kernel_size": 2, "divisor_override": 3}, np.float32),
    (2, {"kernel_size": 2, "ceil_mode": True}, F64),               # remainder: general path
    (3, {"kernel_size": 2, "divisor_override": 7}, np.int64),
    (3, {"kernel_size": (1, 2, 2)}, F64),
])
def test_tiled_avg_pool(n, kw, dt):
    parity(lambda T, x: getattr(F(T), f"avg_pool{n}d")(x, **kw),
           rand(2, 3, *(5,) * n, dtype=dt, low=-9, high=9))


def test_general_max_pool_nans():
    # overlapping windows keep the general path: PyTorch's last-NaN rule there too
    parity(lambda T, x: F(T).max_pool2d(x, 2, 1, return_indices=True), _nan_tiles(2))
    parity(lambda T, x: F(T).max_pool2d(x, 3, 2, 1), _nan_tiles(2))
    parity(lambda T, x: F(T).max_pool1d(x, 2, 1, 0, 2), _nan_tiles(1))


# ---------------------------------------------------------------------------- fractional
def _samples(n, batch=2, channels=3, dt=np.float32, seed=5):
    return np.random.default_rng(seed).random((batch, channels, n)).astype(dt)


@pytest.mark.parametrize("n,batched,dt,kw", [
    (2, True, np.float32, {"kernel_size": 2, "output_size": 3}),
    (2, False, F64, {"kernel_size": (3, 2), "output_size": (4, 5), "return_indices": True}),
    (2, True, F64, {"kernel_size": 2, "output_ratio": (0.5, 0.7), "return_indices": True}),
    (2, True, np.float32, {"kernel_size": 3, "output_size": 1}),
    (3, True, F64, {"kernel_size": 2, "output_size": 3, "return_indices": True}),
    (3, False, np.float32, {"kernel_size": (2, 3, 1), "output_size": (4, 2, 3)}),
    (3, True, np.float32, {"kernel_size": 2, "output_ratio": 0.5}),
])
def test_fractional_max_pool(n, batched, dt, kw):
    """With the same random samples, PyTorch's windows, values, indices and gradients."""
    parity(lambda T, x, s: getattr(F(T), f"fractional_max_pool{n}d")(x, _random_samples=s,
                                                                      **kw),
           _x(n, batched, dt), NoGrad(_samples(n, 2 if batched else 1, dt=dt)))


def test_fractional_max_pool_forms():
    x, s = _x(2, True, F64), NoGrad(_samples(2, dt=F64))
    parity(lambda T, x, s: F(T).fractional_max_pool2d_with_indices(x, 2, 3, _random_samples=s),
           x, s)
    parity(lambda T, x, s: F(T).fractional_max_pool3d_with_indices(x, 2, (2, 2, 1),
                                                                    _random_samples=s),
           _x(3, True, F64), NoGrad(_samples(3, dt=F64)))
    # more samples than the batch: the first ones are used; NaNs win their windows
    xn = rand(2, 3, 6, 6, dtype=F64)
    xn[0, 0, 2, 3] = xn[1, 2, 0, 0] = np.nan
    parity(lambda T, x, s: F(T).fractional_max_pool2d(x, 2, 3, return_indices=True,
                                                       _random_samples=s),
           xn, NoGrad(_samples(2, batch=4, dt=F64)))
    module_parity(lambda T: T.nn.FractionalMaxPool2d(
        (2, 3), output_size=(3, 2), return_indices=True,
        _random_samples=T.tensor(_samples(2))), _x(2, True))
    module_parity(lambda T: T.nn.FractionalMaxPool3d(
        2, output_ratio=(0.5, 0.6, 0.7), _random_samples=T.tensor(_samples(3))), _x(3, True))


def test_fractional_max_pool_draws_samples():
    jtorch.manual_seed(0)
    m = jtorch.nn.FractionalMaxPool2d(3, output_ratio=0.5)
    x = jtorch.randn(2, 3, 8, 8)
    a, b = m(x), m(x)
    assert tuple(a.shape) == (2, 3, 4, 4) and repr(m) == "FractionalMaxPool2d()"
    assert not np.array_equal(a.numpy(), b.numpy())   # new windows on every call
    v, i = jtorch.nn.functional.fractional_max_pool3d(jtorch.randn(3, 5, 5, 5), 2, 2,
                                                      return_indices=True)
    assert tuple(v.shape) == tuple(i.shape) == (3, 2, 2, 2) and i.dtype == jtorch.int64


FRACTIONAL_ERRORS = [
    lambda T: F(T).fractional_max_pool2d(T.ones(1, 1, 4, 4), 2),
    lambda T: F(T).fractional_max_pool2d(T.ones(1, 1, 4, 4), 2, output_ratio=0.5),
    lambda T: F(T).fractional_max_pool2d(T.ones(1, 1, 4, 4), 2, output_ratio=(0.5, 0.5, 0.5)),
    lambda T: F(T).fractional_max_pool2d(T.ones(4, 4), 2, 2, _random_samples=T.rand(1, 1, 2)),
    lambda T: F(T).fractional_max_pool2d(T.ones(1, 1, 7, 7), 2, 7, _random_samples=T.rand(1, 1, 2)),
    lambda T: F(T).fractional_max_pool2d(T.ones(1, 1, 7, 8), (2, 4), (3, 6),
                                         _random_samples=T.rand(1, 1, 2)),
    lambda T: F(T).fractional_max_pool2d(T.ones(2, 2, 4, 4), 2, 2, _random_samples=T.rand(1, 2, 2)),
    lambda T: F(T).fractional_max_pool2d(T.ones(1, 2, 4, 4), 2, 2, _random_samples=T.rand(1, 3, 2)),
    lambda T: F(T).fractional_max_pool2d(T.ones(1, 2, 4, 4), 2, 2, _random_samples=T.rand(1, 2, 3)),
    lambda T: F(T).fractional_max_pool2d(T.ones(1, 1, 4, 4), 2, 2,
                                         _random_samples=T.rand(1, 1, 2, dtype=T.float64)),
    lambda T: F(T).fractional_max_pool2d(T.ones(1, 1, 4, 4), (2,), 2,
                                         _random_samples=T.rand(1, 1, 2)),
    lambda T: F(T).fractional_max_pool2d(T.ones(1, 1, 0, 4), 2, 2, _random_samples=T.rand(1, 1, 2)),
    lambda T: F(T).fractional_max_pool3d(T.ones(5, 5), 2, 2, _random_samples=T.rand(1, 1, 3)),
    lambda T: F(T).fractional_max_pool3d(T.ones(1, 1, 7, 7, 7), 2, 6,
                                         _random_samples=T.rand(1, 1, 3)),
    lambda T: F(T).fractional_max_pool3d(T.ones(1, 1, 5, 5, 5), 2, 2,
                                         _random_samples=T.rand(1, 1, 2)),
    lambda T: T.nn.FractionalMaxPool2d(2),
    lambda T: T.nn.FractionalMaxPool2d(2, output_size=3, output_ratio=0.5),
    lambda T: T.nn.FractionalMaxPool3d(2, output_ratio=1.5),
]


@pytest.mark.parametrize("fn", FRACTIONAL_ERRORS)
def test_fractional_max_pool_errors(fn):
    raises_like(lambda: fn(torch), lambda: fn(jtorch))
