"""F.linear / F.bilinear parity and errors; Identity, Linear, Bilinear, LazyLinear modules."""

# the loop lambdas below are called within their iteration
# ruff: noqa: B023

import math

import numpy as np
import pytest
import torch
from helpers import NoGrad, NonContig, parity, raises_like, rand
from nn_helpers import module_parity

import jtorch


@pytest.mark.parametrize("xs,ws,bias", [((2, 3), (5, 3), True), ((2, 3), (5, 3), False),
                                         ((4, 2, 3), (5, 3), True), ((3,), (5, 3), True),
                                         ((3,), (5, 3), False), ((2, 3), (3,), False),
                                         ((0, 3), (5, 3), True), ((2, 4, 2, 3), (1, 3), True)])
def test_linear_parity(xs, ws, bias):
    for dt in (np.float32, np.float64):
        args = [rand(*xs, dtype=dt), rand(*ws, dtype=dt)]
        if bias:
            args.append(rand(ws[0], dtype=dt))
        parity(lambda T, *a: T.nn.functional.linear(*a), *args)


def test_linear_variants():
    F = lambda T: T.nn.functional  # noqa: E731
    parity(lambda T, x, w, b: F(T).linear(x, w, b), NonContig(rand(3, 4)), NonContig(rand(5, 4)),
           rand(5))
    parity(lambda T, x, w, b: F(T).linear(x, w, b), rand(4, 2, 3), rand(5, 3), rand(2, 5))
    parity(lambda T, x, w, b: F(T).linear(x, w, bias=b), rand(2, 3), NoGrad(rand(5, 3)),
           rand(5))
    parity(lambda T, x, w, b: F(T).linear(x, w, b), rand(2, 3), rand(5, 3), rand())
    parity(lambda T, x, w: F(T).linear(x, w), rand(2, 3, dtype=np.int32),
           rand(5, 3, dtype=np.int32))


def test_linear_grad_fn_names():
    x = jtorch.randn(2, 3, requires_grad=True)
    w = jtorch.randn(5, 3)
    assert type(jtorch.nn.functional.linear(x, w).grad_fn).__name__ == "MmBackward0"
    assert type(jtorch.nn.functional.linear(x, w, jtorch.randn(5)).grad_fn).__name__ == \
        "AddmmBackward0"


LINEAR_ERRORS = [((2, 3), (5, 4), None), ((7, 2, 3), (5, 4), None), ((3,), (5, 4), None),
                 ((2, 3), (5, 3), (4,)), ((4, 2, 3), (5, 3), (4,)), ((3,), (5, 3), (4,)),
                 ((4, 2, 3), (5, 3), (3, 2, 5)), ((2, 3), (5, 3), (1, 1, 5)),
                 ((2, 3), (2, 5, 3), None), ((), (5, 3), None), ((2, 3), (3,), (2,)),
                 ((2, 3), (4,), None), ((3,), (4,), None)]


@pytest.mark.parametrize("xs,ws,bs", LINEAR_ERRORS)
def test_linear_errors(xs, ws, bs):
    def call(lib):
        b = None if bs is None else lib.randn(bs)
        return lambda: lib.nn.functional.linear(lib.randn(xs), lib.randn(ws), b)

    raises_like(call(torch), call(jtorch))


def test_linear_dtype_errors():
    r, j = torch.randn, jtorch.randn
    for xd, wd, bd in ((1, 0, 0), (0, 0, 1), (0, 1, 0), (1, 0, None), (0, 1, None)):
        def make(lib, rnd):
            dts = (lib.float32, lib.float64)
            b = None if bd is None else rnd(5, dtype=dts[bd])
            return lambda: lib.nn.functional.linear(rnd(2, 3, dtype=dts[xd]),
                                                    rnd(5, 3, dtype=dts[wd]), b)

        raises_like(make(torch, r), make(jtorch, j))


@pytest.mark.parametrize("s1,s2,bias", [((2, 3), (2, 4), True), ((6, 2, 3), (6, 2, 4), True),
                                        ((3,), (4,), True), ((2, 3), (2, 4), False)])
def test_bilinear_parity(s1, s2, bias):
    for dt in (np.float32, np.float64):
        args = [rand(*s1, dtype=dt), rand(*s2, dtype=dt), rand(5, s1[-1], s2[-1], dtype=dt)]
        if bias:
            args.append(rand(5, dtype=dt))
        parity(lambda T, *a: T.nn.functional.bilinear(*a), *args)
    parity(lambda T, *a: T.bilinear(*a), *args)


BILINEAR_ERRORS = [((2, 3), (3, 4), (5, 3, 4), None), ((2, 3), (2, 4), (5, 4, 4), None),
                   ((2, 3), (2, 4), (5, 3, 3), None), ((2, 3), (2, 4), (5, 3, 4), (4,)),
                   ((2, 3), (2, 4), (3, 4), None), ((2, 3), (2, 2, 4), (5, 3, 4), None)]


@pytest.mark.parametrize("s1,s2,ws,bs", BILINEAR_ERRORS)
def test_bilinear_errors(s1, s2, ws, bs):
    def call(lib):
        b = None if bs is None else lib.randn(bs)
        return lambda: lib.nn.functional.bilinear(lib.randn(s1), lib.randn(s2), lib.randn(ws), b)

    raises_like(call(torch), call(jtorch))
    raises_like(lambda: torch.nn.functional.bilinear(torch.randn(2, 3).double(),
                                                     torch.randn(2, 4), torch.randn(5, 3, 4)),
                lambda: jtorch.nn.functional.bilinear(jtorch.randn(2, 3).double(),
                                                      jtorch.randn(2, 4), jtorch.randn(5, 3, 4)))


MODULES = [(lambda T: T.nn.Linear(3, 4), [(2, 3)]), (lambda T: T.nn.Linear(3, 4, bias=False),
                                                      [(5, 2, 3)]),
           (lambda T: T.nn.Linear(3, 1), [(3,)]),
           (lambda T: T.nn.Bilinear(2, 3, 4), [(5, 2), (5, 3)]),
           (lambda T: T.nn.Bilinear(2, 3, 4, bias=False), [(5, 2), (5, 3)]),
           (lambda T: T.nn.Identity(3, a=1), [(2, 3)])]


@pytest.mark.parametrize("make,shapes", MODULES, ids=lambda v: repr(v(torch)) if callable(v)
                         else str(v))
def test_modules(make, shapes):
    assert repr(make(jtorch)) == repr(make(torch))
    inputs = [rand(*s) for s in shapes]
    module_parity(make, *inputs)
    module_parity(make, *[x.astype(np.float64) for x in inputs], double=True)
    t, j = make(torch), make(jtorch)
    assert [(n, tuple(p.shape)) for n, p in j.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in t.named_parameters()]


def test_identity_returns_input():
    x = jtorch.randn(3)
    assert jtorch.nn.Identity()(x) is x


@pytest.mark.parametrize("cls,args,fan_in", [("Linear", (300, 200), 300),
                                             ("Bilinear", (150, 20, 400), 150)])
def test_default_init_bounds(cls, args, fan_in):
    m = getattr(jtorch.nn, cls)(*args)
    bound = 1 / math.sqrt(fan_in)
    for p in (m.weight, m.bias):
        a = p.detach().numpy()
        assert -bound <= a.min() and a.max() <= bound
        assert a.min() < -0.95 * bound and a.max() > 0.95 * bound
        if a.size > 1000:
            np.testing.assert_allclose(a.std(), bound / math.sqrt(3), rtol=0.03)


def test_factory_kwargs():
    m = jtorch.nn.Linear(3, 4, dtype=jtorch.float64, device="cpu")
    assert m.weight.dtype == jtorch.float64 and m.bias.dtype == jtorch.float64
    assert m.weight.requires_grad and m.weight.is_leaf
    m = jtorch.nn.Bilinear(2, 3, 4, dtype=jtorch.float64)
    assert m.weight.dtype == jtorch.float64


def test_lazy_linear():
    m = jtorch.nn.LazyLinear(4)
    assert repr(m) == repr(torch.nn.LazyLinear(4))
    y = m(jtorch.randn(2, 7))
    assert tuple(y.shape) == (2, 4)
    assert type(m) is jtorch.nn.Linear and m.in_features == 7
    assert repr(m) == repr(torch.nn.Linear(7, 4))
    assert tuple(m.weight.shape) == (4, 7) and tuple(m.bias.shape) == (4,)
    a = m.weight.detach().numpy()
    assert np.abs(a).max() <= 1 / math.sqrt(7)
    m2 = jtorch.nn.LazyLinear(3, bias=False)
    m2(jtorch.randn(5, 2))
    assert m2.bias is None and tuple(m2.weight.shape) == (3, 2)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_low_precision_linear_with_bias_rounds_once(dtype):
    """PyTorch adds the bias to the float32 accumulator and rounds once: equal bit for bit."""
    r = np.random.default_rng(0)
    x, w, b = (r.standard_normal(s).astype(np.float32) for s in ((4, 5, 100), (7, 100), (7,)))
    got = jtorch.nn.functional.linear(*(jtorch.tensor(v).to(getattr(jtorch, dtype))
                                        for v in (x, w, b)))
    want = torch.nn.functional.linear(*(torch.tensor(v).to(getattr(torch, dtype))
                                        for v in (x, w, b)))
    assert got.dtype == getattr(jtorch, dtype)
    np.testing.assert_array_equal(got.float().numpy(), want.float().numpy())
