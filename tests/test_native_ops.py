"""torch.native_layer_norm/native_batch_norm/native_group_norm/native_dropout/native_norm,
frobenius_norm, nuclear_norm, norm_except_dim, empty_permuted, histogramdd, is_inference,
set_warn_always and the sym_* helpers on plain numbers, against PyTorch."""

import math
import warnings

import numpy as np
import pytest
import torch
from helpers import assert_close, parity, raises_like, rand

import jtorch


# ------------------------------------------------------------------------ sym_* helpers
@pytest.mark.parametrize("name,args", [
    ("sym_int", (2.7,)), ("sym_int", (-2.7,)), ("sym_int", (5,)), ("sym_int", (True,)),
    ("sym_float", (3,)), ("sym_float", (2.5,)),
    ("sym_max", (1, 2)), ("sym_max", (1, 2.0)), ("sym_max", (3.5, 2)), ("sym_max", (True, 0)),
    ("sym_max", (np.int64(3), 2.0)), ("sym_min", (1, 2)), ("sym_min", (4, 2.5)),
    ("sym_not", (True,)), ("sym_not", (0,)), ("sym_sqrt", (4,)), ("sym_sqrt", (2.0,)),
    ("sym_sum", ([1, 2, 3],)), ("sym_sum", (1, 2, 3)), ("sym_sum", ((1.5, 2),)),
    ("sym_sum", ([],)), ("sym_ite", (True, 1, 2)), ("sym_ite", (False, 1.0, 2.0)),
])
def test_sym_helpers(name, args):
    t, j = getattr(torch, name)(*args), getattr(jtorch, name)(*args)
    assert type(j) is type(t) and j == t


@pytest.mark.parametrize("name,args", [
    ("sym_max", ("a", 1)), ("sym_min", (1, None)), ("sym_ite", (1, 1, 2)),
    ("sym_ite", (True, 1, 2.0)), ("sym_int", ("x",)), ("sym_float", (None,)),
    ("sym_sqrt", (-1.0,)),
])
def test_sym_helper_errors(name, args):
    raises_like(lambda: getattr(torch, name)(*args), lambda: getattr(jtorch, name)(*args))


def test_sym_helpers_on_tensors():
    for T in (torch, jtorch):
        assert T.sym_int(T.tensor(2.7)) == 2
        assert T.sym_float(T.tensor(3)) == 3.0 and isinstance(T.sym_float(T.tensor(3)), float)
        assert T.sym_not(T.tensor(True)) is False
        assert T.sym_sqrt(T.tensor(4.0)) == 2.0
        assert int(T.sym_sum([T.tensor(1), 2])) == 3
    with pytest.raises(AssertionError, match="expected .*got <class 'jtorch"):
        jtorch.sym_max(jtorch.tensor(1), 2)


# ------------------------------------------------------------------------ inference, warnings
def test_is_inference():
    x = jtorch.ones(2)
    assert not x.is_inference() and not jtorch.is_inference(x)
    with jtorch.inference_mode():
        y = jtorch.ones(2)
        z = x * 2
    with jtorch.inference_mode(False):
        w = jtorch.ones(2)
    with jtorch.no_grad():
        v = jtorch.ones(2)
    assert y.is_inference() and z.is_inference() and jtorch.is_inference(z)
    assert not w.is_inference() and not v.is_inference()
    assert not (y + 1).is_inference()          # an op outside the mode makes a normal tensor
    with torch.inference_mode():
        ty = torch.ones(2)
    assert ty.is_inference() and not (ty + 1).is_inference()
    raises_like(lambda: torch.is_inference(1), lambda: jtorch.is_inference(1))


def test_warn_always():
    assert jtorch.is_warn_always_enabled() is torch.is_warn_always_enabled() is False
    try:
        jtorch.set_warn_always(True)
        assert jtorch.is_warn_always_enabled() is True
        x = jtorch.ones(2, 2)
        for _ in range(2):   # deprecation warnings repeat while warn_always is on
            with pytest.warns(UserWarning, match="frobenius_norm is deprecated"):
                jtorch.frobenius_norm(x, [0, 1])
    finally:
        jtorch.set_warn_always(False)
    assert jtorch.is_warn_always_enabled() is False


def test_float_of_a_tensor_requiring_grad_warns():
    # PyTorch 2.13 warns (once a process; every time under set_warn_always) when float()
    # converts a tensor that requires grad while grad mode is on; int(), item() do not
    seen = {}
    for T in (torch, jtorch):
        T.set_warn_always(True)
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                t = T.tensor([1.5], requires_grad=True)
                values = [float(t), int(t), t.item(), float(t.detach()), float(t * 2)]
                with T.no_grad():
                    values.append(float(t))
        finally:
            T.set_warn_always(False)
        texts = [str(w.message).split(" (Triggered internally")[0] for w in caught
                 if "scalar" in str(w.message)]
        assert all(w.filename == __file__ for w in caught if "scalar" in str(w.message))
        seen[T] = (values, texts)
    assert seen[torch] == seen[jtorch]
    assert len(seen[jtorch][1]) == 2


# ------------------------------------------------------------------------ native norms
@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("shape,ns,affine", [((2, 3, 4), [4], True), ((2, 3, 4), [3, 4], False),
                                              ((5, 6), (6,), True)])
def test_native_layer_norm(dt, shape, ns, affine):
    def f(T, x, w, b):
        out, mean, rstd = T.native_layer_norm(x, ns, w if affine else None,
                                              b if affine else None, 1e-5)
        assert not mean.requires_grad and not rstd.requires_grad
        return out, mean, rstd
    nshape = tuple(ns)
    parity(f, rand(*shape, dtype=dt), rand(*nshape, dtype=dt), rand(*nshape, dtype=dt))


def test_native_layer_norm_half_and_errors():
    x = rand(2, 3, 4)
    for dt in (torch.float16, torch.bfloat16):
        t = torch.native_layer_norm(torch.tensor(x).to(dt), [4], None, None, 1e-5)
        j = jtorch.native_layer_norm(jtorch.tensor(x).to(getattr(jtorch, str(dt)[6:])), [4],
                                     None, None, 1e-5)
        assert_close(j, t, atol=2e-2, rtol=2e-2)
    raises_like(lambda: torch.native_layer_norm(torch.ones(2, 3), [4], None, None, 1e-5),
                lambda: jtorch.native_layer_norm(jtorch.ones(2, 3), [4], None, None, 1e-5))


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("dt,shape", [(np.float32, (4, 3)), (np.float64, (2, 3, 5))])
def test_native_batch_norm(training, dt, shape):
    def f(T, x, w, b):
        rm = T.tensor(np.linspace(-1, 1, 3).astype(dt))
        rv = T.tensor(np.linspace(0.5, 2, 3).astype(dt))
        out, mean, invstd = T.native_batch_norm(x, w, b, rm, rv, training, 0.2, 1e-3)
        assert not mean.requires_grad and not invstd.requires_grad
        return out, mean, invstd, rm, rv
    parity(f, rand(*shape, dtype=dt), rand(3, dtype=dt), rand(3, dtype=dt))


def test_native_batch_norm_variants():
    parity(lambda T, x: T.native_batch_norm(x, None, None, None, None, True, 0.1, 1e-5),
           rand(4, 3, 2))
    # half input, float32 running stats: the statistics come back in float32
    x = rand(4, 3)
    t = torch.native_batch_norm(torch.tensor(x).half(), None, None, torch.zeros(3),
                                torch.ones(3), True, 0.1, 1e-5)
    j = jtorch.native_batch_norm(jtorch.tensor(x).half(), None, None, jtorch.zeros(3),
                                 jtorch.ones(3), True, 0.1, 1e-5)
    assert_close(j, t, atol=1e-2, rtol=1e-2)
    # one value per channel is allowed here (F.batch_norm refuses it)
    parity(lambda T, x: T.native_batch_norm(x, None, None, T.zeros(3), T.ones(3), True, 0.1,
                                            1e-5)[0], rand(1, 3), grad=False, atol=1e-4)


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("shape,group,affine", [((2, 6, 2, 2), 3, True), ((3, 4, 5), 2, False),
                                                 ((2, 4), 4, True)])
def test_native_group_norm(dt, shape, group, affine):
    n, c = shape[0], shape[1]
    hxw = int(np.prod(shape[2:]))

    def f(T, x, w, b):
        return T.native_group_norm(x, w if affine else None, b if affine else None, n, c, hxw,
                                   group, 1e-5)
    parity(f, rand(*shape, dtype=dt), rand(c, dtype=dt), rand(c, dtype=dt), atol=1e-4)


@pytest.mark.parametrize("args", [(2, 3, 5, 3), (2, 3, 4, 2), (2, 3, 4, 0)])
def test_native_group_norm_errors(args):
    n, c, hxw, g = args
    raises_like(lambda: torch.native_group_norm(torch.ones(2, 3, 4), None, None, n, c, hxw, g,
                                                1e-5),
                lambda: jtorch.native_group_norm(jtorch.ones(2, 3, 4), None, None, n, c, hxw,
                                                 g, 1e-5))
    raises_like(lambda: torch.native_group_norm(torch.ones(2, 4, 4), torch.ones(3), None, 2, 4,
                                                4, 2, 1e-5),
                lambda: jtorch.native_group_norm(jtorch.ones(2, 4, 4), jtorch.ones(3), None, 2,
                                                 4, 4, 2, 1e-5))


# ------------------------------------------------------------------------ native_dropout
def test_native_dropout_structure_and_statistics():
    jtorch.manual_seed(0)
    x = jtorch.ones(200, 100, requires_grad=True)
    out, mask = jtorch.native_dropout(x, 0.3, True)
    assert mask.dtype == jtorch.bool and tuple(mask.shape) == (200, 100)
    assert not mask.requires_grad and out.grad_fn.name() == "NativeDropoutBackward0"
    kept = mask.float().mean().item()
    assert abs(kept - 0.7) < 0.02
    m = mask.numpy()
    np.testing.assert_allclose(out.detach().numpy()[m], 1 / 0.7, rtol=1e-6)
    assert not out.detach().numpy()[~m].any()
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.where(m, 1 / 0.7, 0.0), rtol=1e-6)
    # train=None counts as training; the same seed gives the same mask
    jtorch.manual_seed(0)
    assert jtorch.equal(jtorch.native_dropout(x, 0.3, None)[1], mask)


@pytest.mark.parametrize("p,train", [(0.5, False), (0.0, True), (1.0, True)])
def test_native_dropout_deterministic_cases(p, train):
    parity(lambda T, x: T.native_dropout(x, p, train), rand(3, 4), jit=False)


def test_native_dropout_errors_and_compile():
    raises_like(lambda: torch.native_dropout(torch.ones(3), 1.5, True),
                lambda: jtorch.native_dropout(jtorch.ones(3), 1.5, True))
    f = jtorch.compile(lambda x: jtorch.native_dropout(x, 0.5, True))
    x = jtorch.ones(1000)
    a = f(x)
    b = f(x)
    assert a[1].dtype == jtorch.bool and not jtorch.equal(a[1], b[1])   # a new key each call
    assert abs(a[1].float().mean().item() - 0.5) < 0.07


# ------------------------------------------------------------------------ other norms
def test_native_norm_sparse():
    x = rand(3, 4)
    x[x < 0] = 0
    for p in (2, 1, 3.0, float("inf")):
        t = torch.native_norm(torch.tensor(x).to_sparse(), p)
        j = jtorch.native_norm(jtorch.tensor(x).to_sparse(), p)
        assert_close(j, t)
    parity(lambda T, x: T.linalg.vector_norm(x, 3) if T is torch else T.native_norm(x, 3),
           rand(3, 4))


@pytest.mark.parametrize("dim,keepdim", [([1, 2], False), ([1], True), (1, False),
                                         ([0, 2], True)])
def test_frobenius_norm(dim, keepdim):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parity(lambda T, x: T.frobenius_norm(x, dim, keepdim), rand(2, 3, 4))


def test_frobenius_nuclear_errors_and_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for call in (lambda T: T.frobenius_norm(T.ones(2, 3, 4), [0, 1, 2]),
                     lambda T: T.frobenius_norm(T.ones(2, 3, 4), [1, 1]),
                     lambda T: T.nuclear_norm(T.ones(2, 3, dtype=T.int64))):
            raises_like(lambda c=call: c(torch), lambda c=call: c(jtorch))
    jtorch.set_warn_always(True)
    try:
        with pytest.warns(UserWarning, match="nuclear_norm is deprecated"):
            jtorch.nuclear_norm(jtorch.eye(2))
    finally:
        jtorch.set_warn_always(False)


@pytest.mark.parametrize("args", [(), (True,), ([1, 2],), ([0, 2], True)])
def test_nuclear_norm(args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parity(lambda T, x: T.nuclear_norm(x, *args), rand(3, 4, 5, dtype=np.float64))


@pytest.mark.parametrize("pow,dim", [(2, 0), (2, 1), (2, -1), (3, 2), (1, 1), (2, -2)])
def test_norm_except_dim(pow, dim):
    parity(lambda T, v: T.norm_except_dim(v, pow, dim), rand(3, 4, 5))


def test_norm_except_dim_small():
    parity(lambda T, v: T.norm_except_dim(v), rand(4))
    parity(lambda T, v: T.norm_except_dim(v, 2, 1), rand(4, 3))
    raises_like(lambda: torch.norm_except_dim(torch.ones(3, 4, 5), 2, 5),
                lambda: jtorch.norm_except_dim(jtorch.ones(3, 4, 5), 2, 5))


# ------------------------------------------------------------------------ empty_permuted
@pytest.mark.parametrize("size,layout", [((2, 3, 4), (0, 2, 1)), ((2, 3, 4, 5), (0, 2, 3, 1)),
                                         ((3,), (0,)), ((), ()), ((2, 0, 3), (2, 1, 0))])
def test_empty_permuted(size, layout):
    t = torch.empty_permuted(size, layout)
    j = jtorch.empty_permuted(size, layout)
    assert tuple(j.shape) == tuple(t.shape) and j.stride() == t.stride()
    assert j.dtype == jtorch.float32
    j = jtorch.empty_permuted(size, layout, dtype=jtorch.float64, requires_grad=True)
    assert j.dtype == jtorch.float64 and j.requires_grad and j.is_leaf


@pytest.mark.parametrize("size,layout", [((2, 3), (0,)), ((2, 3), (0, 0)), ((2, 3), (0, 2)),
                                         ((2, 3), (0, -1))])
def test_empty_permuted_errors(size, layout):
    raises_like(lambda: torch.empty_permuted(size, layout),
                lambda: jtorch.empty_permuted(size, layout))


# ------------------------------------------------------------------------ histogramdd
def _edges(T, dt):
    return [T.tensor([-2.0, -0.5, 0.0, 1.5], dtype=dt), T.tensor([-1.0, 0.0, 2.5], dtype=dt)]


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("bins,kw", [
    (3, {}), ([2, 4], {}), (4, {"range": [-1.0, 1.0, 0.0, 2.0]}), ([3, 2], {"density": True}),
    (5, {"weight": True}), ([2, 3], {"weight": True, "density": True,
                                     "range": [-1.0, 1.0, -2.0, 2.0]}),
    ("edges", {}), ("edges", {"density": True, "weight": True}),
])
def test_histogramdd(dt, bins, kw):
    x = rand(40, 2, dtype=dt)
    w = np.abs(rand(40, dtype=dt))

    def f(T, x, w):
        b = _edges(T, x.dtype) if bins == "edges" else bins
        kwargs = dict(kw)
        if kwargs.get("weight"):
            kwargs["weight"] = w
        res = T.histogramdd(x, b, **kwargs)
        assert type(res).__name__ == "histogramdd" and isinstance(res.bin_edges, tuple)
        return res.hist, res.bin_edges
    parity(f, x, w, grad=False)


def test_histogramdd_shapes():
    parity(lambda T, x: tuple(T.histogramdd(x, bins=2)), rand(3, 4, 3), grad=False)
    parity(lambda T, x: tuple(T.histogramdd(x, bins=[2, 3, 1])), np.zeros((0, 3), np.float32),
           grad=False)
    parity(lambda T, x: tuple(T.histogramdd(x, bins=3)), np.ones((5, 2), np.float32),
           grad=False)
    parity(lambda T, x: tuple(T.histogramdd(x, bins=[2])), rand(6, 1), grad=False)


@pytest.mark.parametrize("call", [
    lambda T: T.histogramdd(T.ones(5, 2), bins=[2]),
    lambda T: T.histogramdd(T.ones(5, 2), bins=0),
    lambda T: T.histogramdd(T.ones(5, 2), bins=[2, -1]),
    lambda T: T.histogramdd(T.ones(5, 2), bins=2, range=[0.0, 1.0]),
    lambda T: T.histogramdd(T.ones(5, 2), bins=2, range=[1.0, 0.0, 0.0, 1.0]),
    lambda T: T.histogramdd(T.ones(5, 2, dtype=T.int64), bins=2),
    lambda T: T.histogramdd(T.ones(6), bins=2),
    lambda T: T.histogramdd(T.ones(5, 2), bins=2, weight=T.ones(4)),
    lambda T: T.histogramdd(T.ones(5, 2), bins=[T.ones(3, dtype=T.float64), T.ones(3)]),
])
def test_histogramdd_errors(call):
    raises_like(lambda: call(torch), lambda: call(jtorch))


def test_histogramdd_under_compile():
    f = jtorch.compile(lambda x: jtorch.histogramdd(x, bins=[3, 2]).hist)
    x = rand(30, 2)
    want = torch.histogramdd(torch.tensor(x), bins=[3, 2]).hist
    for _ in range(2):
        assert_close(f(jtorch.tensor(x)), want)
    assert math.isclose(float(f(jtorch.tensor(x)).sum()), 30.0)


def test_set_warn_always_repeats_every_once_only_warning():
    # PyTorch's TORCH_WARN_ONCE warnings (torch.lu's deprecation, a tensor from a list of
    # ndarrays, the deprecated add(input, alpha, other) overload) come every time while
    # set_warn_always(True) is on; jtorch routes them all through one switch. (PyTorch gives
    # the ndarray one twice a call, from two internal checks, and points torch.lu's at its
    # torch/functional.py; jtorch gives each once a call, at the caller's line.)
    seen = {}
    for T in (torch, jtorch):
        a = T.tensor([[2.0, 1.0], [1.0, 3.0]])
        T.set_warn_always(True)
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                for _ in range(2):
                    T.lu(a)
                    T.tensor([np.zeros(2), np.ones(2)])
                    T.add(a, 2.0, a)
        finally:
            T.set_warn_always(False)
        seen[T] = [str(w.message).split(" (Triggered internally")[0].split("\n")[0][:40]
                   for w in caught]
    assert all(w.filename == __file__ for w in caught)
    assert sorted(set(seen[torch])) == sorted(set(seen[jtorch]))
    assert all(seen[T].count(m) >= 2 for T in (torch, jtorch) for m in set(seen[T]))
    assert len(seen[jtorch]) == 6
