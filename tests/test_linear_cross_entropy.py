"""F.linear_cross_entropy, nn.LinearCrossEntropyLoss and nn.LinearCrossEntropyOptions against
PyTorch 2.13: values and gradients (input, linear weight, bias) on the reference path and the
chunked one (``options``), errors and warnings."""

import warnings

import numpy as np
import pytest
import torch
from helpers import NoGrad, assert_close, parity, raises_like, rand, warns_like

import jtorch

RED = ("none", "mean", "sum")
N, F_IN, C = 7, 4, 5


def _targets(ignore=None, seed=3):
    t = rand(N, dtype=np.int64, low=0, high=C, seed=seed)
    if ignore is not None:
        t[[1, 4]] = ignore
    return NoGrad(t)


def _lce(T, x, w, t, b=None, **kw):
    return tuple(T.nn.functional.linear_cross_entropy(x, w, t, linear_bias=b, reduction=r, **kw)
                 for r in RED)


@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("kw", [{}, {"ignore_index": 2}, {"label_smoothing": 0.2},
                                {"weight": "w"}, {"weight": "w", "ignore_index": 0,
                                                  "label_smoothing": 0.1}])
def test_class_indices(bias, kw):
    x, w, b = rand(N, F_IN, seed=1), rand(C, F_IN, seed=2), rand(C, seed=4)
    ignore = kw.get("ignore_index")
    t = _targets(ignore if ignore is not None else -100 if "weight" in kw else None)
    cw = NoGrad(rand(C, low=0.1, high=2.0, seed=5))

    def fn(T, x, w, t, b, cw):
        args = {k: (cw if v == "w" else v) for k, v in kw.items()}
        return _lce(T, x, w, t, b if bias else None, **args)

    parity(fn, x, w, t, b, cw, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("kw", [{}, {"label_smoothing": 0.3}, {"weight": True}])
def test_class_probabilities(kw):
    probs = np.exp(rand(N, C, seed=6))
    probs = NoGrad((probs / probs.sum(1, keepdims=True)).astype(np.float32))
    cw = NoGrad(rand(C, low=0.1, high=2.0, seed=5))

    def fn(T, x, w, b, t, cw):
        args = dict(kw, weight=cw) if kw.get("weight") else kw
        return _lce(T, x, w, t, b, **args)

    parity(fn, rand(N, F_IN, seed=1), rand(C, F_IN, seed=2), rand(C, seed=4), probs, cw,
           atol=1e-5, rtol=1e-5)


def test_unbatched_and_k_dimensional():
    t0 = NoGrad(np.array(3, dtype=np.int64))
    parity(lambda T, x, w, t: _lce(T, x, w, t), rand(F_IN, seed=1), rand(C, F_IN, seed=2), t0,
           atol=1e-5)
    tk = NoGrad(rand(N, 2, 3, dtype=np.int64, low=0, high=C, seed=7))
    parity(lambda T, x, w, b, t: _lce(T, x, w, t, b, ignore_index=1), rand(N, F_IN, seed=1),
           rand(C, 2, 3, F_IN, seed=2), rand(C, 2, 3, seed=4), tk, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("opts", [{}, {"batch_chunk_size": 3}, {"batch_chunk_size": 1},
                                  {"chunking_method": "aspect_ratio"},
                                  {"acc_dtype": "float32", "acc_policy": "accurate"}])
def test_chunked_options(opts):
    """The chunked path gives the reference values and gradients, chunk sizes that do not
    divide the batch included."""
    cw = NoGrad(rand(C, low=0.1, high=2.0, seed=5))

    def fn(T, x, w, b, t, cw):
        kw = {k: (getattr(T, v) if k == "acc_dtype" else v) for k, v in opts.items()}
        o = T.nn.LinearCrossEntropyOptions(**kw)
        return _lce(T, x, w, t, b, options=o) + _lce(T, x, w, t, b, options=o, weight=cw)

    parity(fn, rand(N, F_IN, seed=1), rand(C, F_IN, seed=2), rand(C, seed=4), _targets(-100),
           cw, atol=1e-5, rtol=1e-5)


def test_chunked_low_precision_accumulates_in_float32():
    """bfloat16 input: PyTorch's auto acc_dtype is float32 on CPU; results match to bfloat16
    precision, and a float64 acc_dtype for float32 input raises PyTorch's error."""
    x, w = rand(N, F_IN, seed=1), rand(C, F_IN, seed=2)
    t = _targets(-100).array
    got = {}
    for lib in (torch, jtorch):
        o = lib.nn.LinearCrossEntropyOptions(batch_chunk_size=3)
        got[lib] = [lib.nn.functional.linear_cross_entropy(
            lib.tensor(x).bfloat16(), lib.tensor(w).bfloat16(), lib.tensor(t), reduction=r,
            options=o) for r in RED]
    for j, t_ in zip(got[jtorch], got[torch]):
        assert j.dtype == jtorch.bfloat16
        np.testing.assert_allclose(j.float().numpy(), t_.float().numpy(), rtol=2e-2, atol=2e-2)

    def f64(lib):
        o = lib.nn.LinearCrossEntropyOptions(acc_dtype=lib.float64)
        return lambda: lib.nn.functional.linear_cross_entropy(
            lib.tensor(x), lib.tensor(w), lib.tensor(t), options=o)

    raises_like(f64(torch), f64(jtorch))


def test_chunked_unbatched_and_fallback_warning():
    o = {"options": None}
    for lib in (torch, jtorch):
        o[lib] = lib.nn.LinearCrossEntropyOptions(batch_chunk_size=2)
    parity(lambda T, x, w, t: _lce(T, x, w, t, options=o[T]), rand(F_IN, seed=1),
           rand(C, F_IN, seed=2), NoGrad(np.array(1, dtype=np.int64)), atol=1e-5)

    def smoothed(lib):
        x, w = lib.tensor(rand(N, F_IN, seed=1)), lib.tensor(rand(C, F_IN, seed=2))
        t = lib.tensor(_targets().array)
        return lambda: lib.nn.functional.linear_cross_entropy(
            x, w, t, label_smoothing=0.1, options=lib.nn.LinearCrossEntropyOptions())

    warns_like(smoothed(torch), smoothed(jtorch))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_close(smoothed(jtorch)(), smoothed(torch)(), atol=1e-6)


def test_options_resolution_and_errors():
    for kw in [{}, {"batch_chunk_size": 3}, {"chunking_method": "aspect_ratio:2"},
               {"chunking_method": None}]:
        for args in [(6, 4, 5), (64, 8, 1000)]:
            for dt in ("float32", "bfloat16"):
                t = torch.nn.LinearCrossEntropyOptions(**kw)._adjust(
                    *args, getattr(torch, dt), torch.device("cpu"))
                j = jtorch.nn.LinearCrossEntropyOptions(**kw)._adjust(
                    *args, getattr(jtorch, dt), jtorch.device("cpu"))
                assert (j.batch_chunk_size, j.chunking_method, j.acc_policy, str(j.acc_dtype)) \
                    == (t.batch_chunk_size, t.chunking_method, t.acc_policy, str(t.acc_dtype))
    for kw in [{"acc_policy": "x"}, {"chunking_method": "foo"}, {"batch_chunk_size": 0}]:
        raises_like(lambda kw=kw: torch.nn.LinearCrossEntropyOptions(**kw),
                    lambda kw=kw: jtorch.nn.LinearCrossEntropyOptions(**kw))
    raises_like(lambda: torch.nn.LinearCrossEntropyOptions(acc_dtype=torch.int32),
                lambda: jtorch.nn.LinearCrossEntropyOptions(acc_dtype=jtorch.int32), ValueError)

    def call(lib, x_shape, w_shape, t, b_shape=None, **kw):
        x, w = lib.zeros(x_shape), lib.zeros(w_shape)
        b = None if b_shape is None else lib.zeros(b_shape)
        if "options" in kw:
            kw["options"] = lib.nn.LinearCrossEntropyOptions(**kw["options"])
        return lambda: lib.nn.functional.linear_cross_entropy(x, w, lib.tensor(t),
                                                              linear_bias=b, **kw)

    probs = np.full((2, 5), 0.2, np.float32)
    for case in [((2, 3, 4), (5, 4), [0, 1]), ((2, 4), (5,), [0, 1]), ((2, 4), (5, 3), [0, 1]),
                 ((2, 4), (5, 4), [0, 1], (4,)), ((4,), (5, 2, 4), 0),
                 ((2, 4), (5, 4), [0, 7])]:
        raises_like(call(torch, *case), call(jtorch, *case))
    raises_like(call(torch, (2, 4), (5, 4), probs, ignore_index=1),
                call(jtorch, (2, 4), (5, 4), probs, ignore_index=1))
    raises_like(call(torch, (2, 4), (5, 4), [0, 7], options={}),
                call(jtorch, (2, 4), (5, 4), [0, 7], options={}))
    raises_like(call(torch, (6, 4), (5, 4), [0] * 6, options={"batch_chunk_size": 3,
                                                               "chunking_method": "aspect_ratio"}),
                call(jtorch, (6, 4), (5, 4), [0] * 6, options={"batch_chunk_size": 3,
                                                               "chunking_method": "aspect_ratio"}))


def test_module():
    torch.manual_seed(0)
    tm = torch.nn.LinearCrossEntropyLoss(F_IN, C, out_features=(2,), bias=True,
                                         ignore_index=1, label_smoothing=0.1)
    jm = jtorch.nn.LinearCrossEntropyLoss(F_IN, C, out_features=(2,), bias=True,
                                          ignore_index=1, label_smoothing=0.1)
    assert repr(jm) == repr(tm)
    assert list(jm.state_dict()) == list(tm.state_dict())
    assert tuple(jm.linear.weight.shape) == tuple(tm.linear.weight.shape) == (C * 2, F_IN)
    jm.load_state_dict({k: jtorch.tensor(v.detach().numpy()) for k, v in
                        tm.state_dict().items()})
    x = rand(N, F_IN, seed=1)
    t = rand(N, 2, dtype=np.int64, low=0, high=C, seed=2)
    tx, jx = torch.tensor(x, requires_grad=True), jtorch.tensor(x, requires_grad=True)
    tl, jl = tm(tx, torch.tensor(t)), jm(jx, jtorch.tensor(t))
    tl.backward()
    jl.backward()
    assert_close(jl, tl, atol=1e-5)
    assert_close(jx.grad, tx.grad, atol=1e-5)
    assert_close(jm.linear.weight.grad, tm.linear.weight.grad, atol=1e-5)
    assert_close(jm.linear.bias.grad, tm.linear.bias.grad, atol=1e-5)
    raises_like(lambda: torch.nn.LinearCrossEntropyLoss(4, 5, weight=torch.ones(3)),
                lambda: jtorch.nn.LinearCrossEntropyLoss(4, 5, weight=jtorch.ones(3)))
    raises_like(lambda: torch.nn.LinearCrossEntropyLoss(4, 5, label_smoothing=2.0),
                lambda: jtorch.nn.LinearCrossEntropyLoss(4, 5, label_smoothing=2.0))


def test_chunked_under_compile_matches_eager():
    x, w = jtorch.tensor(rand(N, F_IN, seed=1)), jtorch.nn.Parameter(jtorch.tensor(
        rand(C, F_IN, seed=2)))
    t = jtorch.tensor(_targets(-100).array)
    opts = jtorch.nn.LinearCrossEntropyOptions(batch_chunk_size=2)

    def step(x, t):
        w.grad = None
        loss = jtorch.nn.functional.linear_cross_entropy(x, w, t, options=opts)
        loss.backward()
        return loss

    eager = step(x, t).item(), w.grad.numpy().copy()
    compiled = jtorch.compile(step, fullgraph=True)
    for _ in range(2):
        got = compiled(x, t).item(), w.grad.numpy().copy()
        np.testing.assert_allclose(got[0], eager[0], rtol=1e-6)
        np.testing.assert_allclose(got[1], eager[1], rtol=1e-5, atol=1e-6)
