"""Parity of every reduction op (sums, statistics, min/max, norms, scans, softmax) with PyTorch:
values, dtypes, gradients (at ties and kinks too) and the jitted forward/backward."""

import itertools
import warnings

import numpy as np
import pytest
import torch
from helpers import NoGrad, NonContig, assert_close, parity, raises_like, rand

import jtorch

F32, F64 = np.float32, np.float64
INF, NAN = float("inf"), float("nan")


_SEEDS = itertools.count(10)


def rnd(*shape, **kw):
    """helpers.rand with a fresh fixed seed per call (the cases are built at import)."""
    kw.setdefault("seed", next(_SEEDS))
    return rand(*shape, **kw)


def ties(*shape, dtype=F32, high=3, seed=1):
    """Small integers as floats: many tied values."""
    return np.random.default_rng(seed).integers(0, high, shape).astype(dtype)


def arr(values, dtype=F32):
    return np.array(values, dtype=dtype)


P = pytest.param
CASES = []


def case(name, fn, *args, **kw):
    CASES.append(P(fn, args, kw, id=name))


# Each case bundles several calls of one family (one parity run: values, dtypes, the summed
# gradient and the jitted forward/backward); float64 repeats a representative bundle.
DIMS = ((None, False), (1, False), (-1, True), ((0, 2), False), ((2, -3), True), ((), False))


def _dims(f, x, dims=DIMS):
    return tuple(f(x) if d is None else f(x, d, k) for d, k in dims)


# ------------------------------------------------------------------ sum, nansum, mean, nanmean
for op in ("sum", "nansum", "mean", "nanmean"):
    case(f"{op}-float32", lambda T, x, y, op=op: _dims(getattr(T, op), x) + (
        getattr(y, op)(0), getattr(T, op)(y, 1, dtype=T.float64)),
         rnd(2, 3, 4), NonContig(rnd(3, 4)))
case("nan-float32", lambda T, x: (T.nansum(x, 0), T.nanmean(x, 1), x.nansum(), x.nanmean()),
     arr([[1, NAN, 2], [NAN, NAN, 3]]))
for dt in (np.int32, np.int64, np.uint8, np.bool_, np.int8):
    case(f"sum-int-{np.dtype(dt).name}",
         lambda T, x: (x.sum(), T.sum(x, 0), x.sum(dtype=T.int32), x.nansum(1), x.prod(),
                       x.prod(1, True), T.mean(x, dtype=T.float64)),
         rnd(3, 4, dtype=dt, low=0, high=4))

# ------------------------------------------------------------------ prod
dt = F32
case(f"prod-{np.dtype(dt).name}",
     lambda T, x, z, y: (x.prod(), T.prod(x, 1), T.prod(x, -1, True), x.prod(0, True),
                         z.prod(), z.prod(0), z.prod(1), T.prod(y, 0, dtype=T.float64)),
     rnd(3, 4, dtype=dt, low=0.5, high=1.5), arr([[2, 0, 3], [0, 0, 1], [1, 2, 3]], dt),
     NonContig(rnd(3, 4, dtype=dt)))

# ------------------------------------------------------------------ std, var, std_mean, var_mean
dt, n = F32, "float32"
for op in ("std", "var"):
    case(f"{op}-{n}",
         lambda T, x, y, op=op: (getattr(T, op)(x), getattr(x, op)(False),
                                 getattr(T, op)(x, 1, True, True),
                                 getattr(T, op)(x, (0, -1), correction=0),
                                 getattr(T, op)(x, -2, correction=2, keepdim=True),
                                 getattr(x, op)(dim=2, unbiased=False),
                                 getattr(T, op)(y, 0)),
         rnd(3, 4, 5, dtype=dt), NonContig(rnd(3, 4, dtype=dt)))
    case(f"{op}-const-{n}", lambda T, x, op=op: (getattr(T, op)(x), getattr(T, op)(x, 1)),
         np.full((2, 3), 1.5, dt))
case(f"std_var_mean-{n}",
     lambda T, x: (T.std_mean(x), T.var_mean(x, 1),
                   T.std_mean(x, (0, 2), keepdim=True, correction=0),
                   T.var_mean(x, -1, False)), rnd(3, 4, 5, dtype=dt))
case("std-complex", lambda T, x: (T.var(x.to(T.complex64)), T.std(x.to(T.complex128), 0)),
     NoGrad(rnd(3, 4)))

# ------------------------------------------------------------------ max, min, amax, amin, ...
dt, n = F32, "float32"
t = ties(3, 4, dtype=dt)
for op in ("max", "min"):
    case(f"{op}-{n}",
         lambda T, x, y, op=op: (getattr(T, op)(x), getattr(x, op)(), getattr(T, op)(x, 0),
                                 getattr(T, op)(x, 1, True), getattr(x, op)(-1),
                                 getattr(T, op)(x, -2, keepdim=True),
                                 getattr(y, op)(dim=1, keepdim=True)),
         t, NonContig(rnd(3, 4, dtype=dt)))
    case(f"{op}-binary-{n}",
         lambda T, x, y, z, op=op: (getattr(T, op)(x, y), getattr(x, op)(z)),
         t, ties(4, dtype=dt), NonContig(ties(3, 4, dtype=dt, seed=2)))
    case(f"{op}-nan-{n}", lambda T, x, op=op: (getattr(T, op)(x), getattr(T, op)(x, 1)),
         arr([[1, NAN, 2, NAN], [3, 1, 3, 0]], dt))
for op in ("amax", "amin"):
    case(f"{op}-{n}", lambda T, x, op=op: _dims(getattr(T, op), x, DIMS[1:]) + (
        getattr(x, op)(), getattr(T, op)(x, (2, 0, 1), True)), ties(2, 3, 4, dtype=dt))
# a NaN result: amax's backward gives NaN to every element of its slice (grad / 0 * mask),
# max's to the NaN elements only; the inf-norms give 0 (sgn(NaN) is 0), matrix inf-norms
# are an amax of sums
case(f"amax-amin-nan-{n}", lambda T, x: (T.amax(x, 1), x.amin(0), x.amax(), T.aminmax(x, dim=1)),
     arr([[1, NAN, 2, NAN], [3, 1, 3, 0]], dt))
case(f"norms-nan-{n}",
     lambda T, x: tuple(T.linalg.vector_norm(x, p, dim=1) for p in (INF, -INF, 1, 3))
     + (T.norm(x, INF), T.linalg.matrix_norm(x, INF), T.linalg.matrix_norm(x, -1)),
     arr([[1, NAN, -2, 4], [3, -1, 3, 0]], dt))
case(f"aminmax-{n}", lambda T, x, y: (T.aminmax(x), x.aminmax(dim=1),
                                      T.aminmax(x, dim=-1, keepdim=True),
                                      T.aminmax(y, keepdim=True)),
     ties(3, 4, dtype=dt), rnd(3, 4, dtype=dt))
case(f"argmax-{n}", lambda T, x, y: (T.argmax(x), x.argmin(), T.argmax(x, 1),
                                     x.argmin(0, True), T.argmax(x, keepdim=True),
                                     T.argmin(x, -1, False), y.argmax(), y.argmin(1)),
     ties(3, 4, dtype=dt), arr([[1, NAN, 2, NAN], [3, 1, 3, 0]], dt))
for dt in (np.int32, np.int64, np.uint8):
    case(f"minmax-int-{np.dtype(dt).name}",
         lambda T, x, y: (x.max(), T.min(x), x.max(1), T.min(x, 0, True), T.amax(x, (0, 1)),
                          x.amin(1), T.aminmax(x), x.argmax(), T.argmin(x, 1), T.max(x, y),
                          T.min(x, y)),
         rnd(3, 4, dtype=dt, low=0, high=3), rnd(3, 4, dtype=dt, low=0, high=3))
case("minmax-bool", lambda T, x: (x.max(), x.min(0), T.amax(x, 1), T.aminmax(x)),
     rnd(3, 4, dtype=bool))
case("max-binary-promote", lambda T, x, y: (T.max(x, y), T.min(y, x)), rnd(3, 4),
     rnd(4, dtype=np.int64, low=-2, high=3))

# ------------------------------------------------------------------ all, any, count_nonzero
for dt in (F32, np.int64, np.bool_, np.uint8):
    case(f"allany-{np.dtype(dt).name}",
         lambda T, x: (T.all(x), x.any(), T.all(x, 1), x.any(-1, True), T.all(x, (0, 2)),
                       T.any(x, dim=(1, 2), keepdim=True), T.all(x, ()), T.count_nonzero(x),
                       x.count_nonzero(1), T.count_nonzero(x, (0, -1))),
         NoGrad(rnd(2, 3, 4, dtype=dt, low=0, high=2)))

# ------------------------------------------------------------------ logsumexp, softmax family
dt, n = F32, "float32"
case(f"logsumexp-{n}",
     lambda T, x, y, z: (T.logsumexp(x, 1), x.logsumexp(-1, True), T.logsumexp(x, (0, 2)),
                         T.logsumexp(y, 1), T.special.logsumexp(y, 0), T.logsumexp(z, 0)),
     rnd(2, 3, 4, dtype=dt), arr([[-INF, -INF, -INF], [-INF, 1, 2]], dt),
     NonContig(rnd(3, 4, dtype=dt)))
for op in ("softmax", "log_softmax"):
    case(f"{op}-{n}",
         lambda T, x, y, z, op=op: (getattr(T, op)(x, 0), getattr(x, op)(-1),
                                    getattr(T.nn.functional, op)(y, dim=1),
                                    getattr(T.special, op)(y, 0),
                                    getattr(y, op)(0, T.float64), getattr(T, op)(z, 1)),
         rnd(2, 3, 4, dtype=dt), NonContig(rnd(3, 4, dtype=dt)),
         arr([[-INF, -INF], [-INF, 1]], dt))
case(f"softmin-{n}", lambda T, x: (T.nn.functional.softmin(x, 1),
                                   T.nn.functional.softmin(x, dim=0, dtype=T.float64)),
     rnd(3, 4, dtype=dt))
case("softmax-implicit-dim", lambda T, x, y: (T.nn.functional.softmax(x),
                                               T.nn.functional.log_softmax(y)),
     rnd(2, 3), rnd(2, 3, 4))
case("softmax-int-dtype", lambda T, x: (T.softmax(x, 0, dtype=T.float32), x.logsumexp(1),
                                        T.log_softmax(x, 1, dtype=T.float64)),
     rnd(3, 4, dtype=np.int64))

# ------------------------------------------------------------------ cumulative ops
dt, n = F32, "float32"
case(f"cumsum-cumprod-{n}",
     lambda T, x, y: (T.cumsum(x, 0), x.cumsum(-1), x.cumprod(1), T.cumprod(x, -3),
                      T.logcumsumexp(x, 2), x.logcumsumexp(-2),
                      T.cumsum(y, 0, dtype=T.float64), y.cumprod(1, dtype=T.float64)),
     rnd(2, 3, 4, dtype=dt), NonContig(rnd(3, 4, dtype=dt)))
case(f"cummax-cummin-{n}",
     lambda T, x, y: (T.cummax(x, 0), x.cummin(1), x.cummax(-1), T.cummin(x, -3),
                      T.cummax(y, 0), T.cummin(y, 0)),
     ties(2, 3, 4, dtype=dt), arr([1, NAN, 2, NAN, 0], dt))
case(f"cumprod-zeros-{n}", lambda T, x: (T.cumprod(x, 1), T.cumprod(x, 0)),
     arr([[2, 0, 3, 1], [0, 0, 2, 1], [1, 2, 0, 3]], dt))
for dt in (np.int32, np.int64, np.uint8, np.bool_):
    case(f"cum-int-{np.dtype(dt).name}",
         lambda T, x: (x.cumsum(0), T.cumprod(x, 1), T.cummax(x, 1), x.cummin(0),
                       T.cumsum(x, 1, dtype=T.float64)),
         rnd(3, 4, dtype=dt, low=0, high=3))

# ------------------------------------------------------------------ median, mode, quantile
dt, n = F32, "float32"
case(f"median-mode-{n}",
     lambda T, x, z: (T.median(x), T.median(x, -1), x.nanmedian(0, True), T.mode(x),
                      T.median(z, 0), z.mode(0, True)),
     ties(3, 6, dtype=dt), NonContig(ties(3, 5, dtype=dt)))
case(f"median-mode-nan-{n}",
     lambda T, x, y: (T.median(x, 1), x.nanmedian(1), T.median(x), x.nanmedian(),
                      T.mode(y, 1)),
     arr([[3, NAN, 1, NAN, 2], [1, 2, 2, NAN, 3], [4, 1, 1, 5, 1]], dt),
     arr([[1, NAN, 2, NAN], [NAN, 1, 1, 2]], dt))
case(f"quantile-nan-{n}",
     lambda T, x, q: (T.quantile(x, q, 1), T.nanquantile(x, q, 1, True), x.nanquantile(0.5),
                      T.nanquantile(x, 0.4, 0, interpolation="nearest")),
     arr([[1, NAN, 3, 2], [NAN, 2, NAN, 5], [4, 1, 1, NAN]], dt),
     NoGrad(arr([0.1, 0.5, 1.0], dt)))
case("quantile-linear",
     lambda T, x, q: (T.quantile(x, 0.3), x.quantile(q, 1, True), T.nanquantile(x, q, dim=0),
                      T.quantile(x, 0.5, -1)),
     ties(3, 5, high=4), NoGrad(arr([0.0, 0.25, 0.5, 0.6, 1.0])))
case("quantile-interpolations",
     lambda T, x, q: (T.quantile(x, q, 1, True, interpolation="lower"),
                      T.nanquantile(x, q, 1, interpolation="higher"),
                      T.quantile(x, q, 0, interpolation="midpoint"),
                      x.nanquantile(q, -1, True, interpolation="nearest")),
     ties(3, 5, high=4), NoGrad(arr([0.0, 0.25, 0.5, 0.6, 1.0])))
case("median-all-nan",  # which NaN PyTorch's unstable sort picks is arbitrary: values only
     lambda T, x: (T.nanquantile(x, 0.5, 1), T.quantile(x, 0.2, 1), x.nanmedian(),
                   x.nanmedian(1).values), NoGrad(arr([[NAN, NAN, NAN], [1, NAN, 2]])))
case("median-mode-int", lambda T, x: (x.median(), T.median(x, 1), x.nanmedian(0), T.mode(x, 1),
                                      x.mode(0)), rnd(3, 6, dtype=np.int64, low=0, high=3))
case("mode-bool", lambda T, x: T.mode(x, 1), rnd(3, 6, dtype=bool))

# ------------------------------------------------------------------ norms
WITH_ZERO = [[0, 1, -2, 0], [0, 0, 0, 0], [3, 0, -1, 2]]
for ord in (2, 1, 0, 3, 0.5, 1.5, -1, INF, -INF):
    case(f"vector_norm-{ord}",
         lambda T, x, z, ord=ord: (T.linalg.vector_norm(x, ord, (0, -1), keepdim=True),
                                   T.linalg.vector_norm(z, ord, dim=1)),
         rnd(3, 4), arr(WITH_ZERO))
case("vector_norm-ties-dtype",
     lambda T, x, t: (T.linalg.vector_norm(t, INF, 1), T.linalg.vector_norm(t, -INF, 0),
                      T.linalg.vector_norm(x, 3, dtype=T.float64)),
     NonContig(rnd(3, 4)), arr([[2, -2, 1], [1, -1, 3]]))
for ord in ("fro", "nuc", 2, -2, 1, -1, INF, -INF):
    case(f"matrix_norm-{ord}",
         lambda T, x, y, ord=ord: (T.linalg.matrix_norm(x, ord, dim=(-1, 0), keepdim=True),
                                   T.linalg.norm(y, ord)),
         rnd(3, 4, 5), NonContig(rnd(3, 4)))
dt, n = F32, "float32"
case(f"norm-{n}",
     lambda T, x: (T.norm(x), x.norm(1), T.norm(x, 3, 1), x.norm(dim=(0, 1), keepdim=True),
                   T.norm(x, "nuc"), x.norm("fro", 0), x.norm(p=None, dtype=T.float64),
                   T.linalg.norm(x, dim=1), T.linalg.norm(x, 3, -1, True),
                   T.linalg.norm(x[0], INF), T.linalg.norm(x, dim=(0, 1))),
     rnd(3, 4, dtype=dt))
case(f"norm-zero-{n}", lambda T, x: (T.norm(x), T.linalg.matrix_norm(x), x.norm(1),
                                     T.linalg.vector_norm(x, 3), x.norm(0.5), x.norm(INF)),
     np.zeros((2, 3), dt))
case("norm-complex", lambda T, x: (T.linalg.vector_norm(x.to(T.complex64)),
                                   T.linalg.vector_norm(x.to(T.complex128), 1, 0),
                                   T.linalg.matrix_norm(x.to(T.complex64), "nuc")),
     NoGrad(rnd(3, 4)))

# ------------------------------------------------------------------ empty and 0-d inputs
case("empty", lambda T, x: (x.sum(), T.sum(x, 0), x.prod(), T.prod(x, 0), x.mean(),
                            T.mean(x, 0), x.nansum(1), T.cumsum(x, 0), x.cumprod(1),
                            T.logsumexp(x, 0), T.softmax(x, 1), T.norm(x),
                            T.linalg.vector_norm(x, 2, 0), x.std(1), T.count_nonzero(x),
                            x.all(), T.any(x, 0), T.linalg.matrix_norm(x, 1), x.max(1),
                            T.min(x, 1), x.amax(1), x.argmax(1), x.median(1), x.mode(1),
                            T.cummax(x, 0), x.aminmax(dim=1), T.linalg.vector_norm(x, INF, 1)),
     NoGrad(np.zeros((0, 3), F32)))
dt = F32
case(f"0d-{np.dtype(dt).name}",
     lambda T, x: (x.sum(), T.sum(x, 0), x.mean(-1, True), x.prod(0), x.max(), T.max(x, 0),
                   x.amin(), T.amax(x, 0), x.argmax(), x.argmin(0), T.aminmax(x),
                   x.std(correction=0), x.var(0, correction=0), T.logsumexp(x, 0),
                   T.softmax(x, 0), x.log_softmax(0), x.cumsum(0), T.cumprod(x, 0),
                   T.cummax(x, 0), T.logcumsumexp(x, 0), x.median(), T.median(x, 0),
                   T.mode(x), T.quantile(x, 0.3), x.norm(), T.linalg.vector_norm(x, 1),
                   x.all(), T.any(x, 0), T.count_nonzero(x, 0), x.nansum(0), x.nanmean()),
     arr(1.5, dt))

# ------------------------------------------------------------------ float64 (one bundle a family)
D64 = {"dtype": F64}
case("float64-sums", lambda T, x: (T.sum(x, (0, 2)), x.nansum(1, True), T.mean(x, -1),
                                   x.nanmean(), x.prod(1), T.cumsum(x, 0), x.cumprod(-1),
                                   T.logcumsumexp(x, 1), T.logsumexp(x, (0, 1))),
     rnd(2, 3, 4, **D64))
case("float64-stats", lambda T, x, y: (x.std(), T.var(x, 1, correction=2, keepdim=True),
                                       T.std_mean(x, 0), T.softmax(x, 1), x.log_softmax(0),
                                       T.quantile(x, 0.3, 1), x.nanquantile(y, 0)),
     rnd(3, 4, **D64), NoGrad(arr([0.2, 0.9], F64)))
case("float64-minmax", lambda T, x, y: (x.max(), T.min(x, 1), T.amax(x, 0), x.amin((0, 1)),
                                        T.aminmax(x, dim=0), x.argmax(1), T.max(x, y),
                                        T.cummax(x, 1), x.median(), T.median(x, 1), x.mode(1)),
     ties(3, 4, **D64), ties(4, **D64))
case("float64-norms", lambda T, x, z: (
    x.norm(), T.norm(x, 1, 1), T.linalg.vector_norm(x, 3, 0), T.linalg.vector_norm(z, 0.5, 1),
    T.linalg.vector_norm(x, -INF, 1), T.linalg.matrix_norm(x, "nuc"), T.linalg.norm(x, -1),
    T.norm(z, 2, 0)), rnd(3, 4, **D64), arr(WITH_ZERO, F64))
case("float64-0d-empty", lambda T, x, e: (x.sum(), x.max(), T.max(x, 0), x.std(correction=0),
                                          T.softmax(x, 0), x.cumsum(0), T.median(x, 0),
                                          x.norm(), e.sum(0), e.amax(1), T.logsumexp(e, 0)),
     arr(1.5, F64), NoGrad(np.zeros((0, 3), F64)))


@pytest.mark.parametrize("fn,args,kw", CASES)
def test_parity(fn, args, kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        parity(fn, *args, **kw)


# ------------------------------------------------------------------ out=, in-place, namedtuples
def test_out_and_inplace():
    x = rnd(3, 4)
    for T in (torch, jtorch):
        t = T.tensor(x)
        o = T.empty(0)
        v, i = T.empty(3), T.empty(3, dtype=T.int64)
        r = T.max(t, 1, out=(v, i))
        assert r.values is v and r.indices is i
        s = T.sum(t, 0, out=o)
        assert s is o
    parity(lambda T, x: (T.sum(x, 1, out=T.empty(3)), T.cumsum(x, 0, out=T.empty(0)),
                         T.max(x, 0, out=(T.empty(4), T.empty(4, dtype=T.int64))),
                         T.amax(x, 1, out=T.empty(3)), T.logsumexp(x, 1, out=T.empty(3)),
                         T.median(x, 1, out=(T.empty(3), T.empty(3, dtype=T.int64))),
                         T.linalg.vector_norm(x, out=T.empty(())),
                         T.quantile(x, 0.5, out=T.empty(())),
                         T.max(x, x * 2, out=T.empty(3, 4)),
                         T.all(x > 0, 1, out=T.empty(3, dtype=T.bool)),
                         T.cummax(x, 1, out=(T.empty(3, 4), T.empty(3, 4, dtype=T.int64)))),
           NoGrad(x))
    parity(lambda T, x: (x.clone().cumsum_(0), x.clone().cumprod_(1)), NoGrad(x))
    parity(lambda T, x: x.cumsum_(1), NoGrad(rnd(3, 4, dtype=np.int32, high=5)))


def test_namedtuple_fields():
    x = ties(3, 4)
    cases = [("max", lambda T, t: T.max(t, 1), ("values", "indices")),
             ("min", lambda T, t: t.min(0), ("values", "indices")),
             ("aminmax", lambda T, t: T.aminmax(t), ("min", "max")),
             ("median", lambda T, t: t.median(1), ("values", "indices")),
             ("nanmedian", lambda T, t: t.nanmedian(1), ("values", "indices")),
             ("mode", lambda T, t: t.mode(1), ("values", "indices")),
             ("cummax", lambda T, t: t.cummax(1), ("values", "indices")),
             ("cummin", lambda T, t: T.cummin(t, 0), ("values", "indices"))]
    for name, fn, fields in cases:
        tr, jr = fn(torch, torch.tensor(x)), fn(jtorch, jtorch.tensor(x))
        assert len(jr) == len(tr) == 2 and type(jr).__name__ == type(tr).__name__, name
        for f in fields:
            assert_close(getattr(jr, f), getattr(tr, f), msg=f"{name}.{f}")
    for op in ("std_mean", "var_mean"):
        jr, tr = getattr(jtorch, op)(jtorch.tensor(x)), getattr(torch, op)(torch.tensor(x))
        assert type(jr) is tuple and type(tr) is tuple and len(jr) == 2
        assert not hasattr(jtorch.Tensor, op) and not hasattr(torch.Tensor, op)


def test_warnings():
    """PyTorch warns on every call; jtorch warns when the kernel is traced (the first call per
    shape and arguments), so this test uses shapes no other test uses."""
    x = rnd(2, 5)
    for T in (torch, jtorch):
        with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
            T.nn.functional.softmax(T.tensor(x))
    for op in ("std", "var", "std_mean", "var_mean"):
        with pytest.warns(UserWarning, match=f"{op}\\(\\): degrees of freedom is <= 0"):
            j = getattr(jtorch, op)(jtorch.tensor(x), 0, correction=3)
        with pytest.warns(UserWarning, match="degrees of freedom"):
            t = getattr(torch, op)(torch.tensor(x), 0, correction=3)
        assert_close(j, t)


def test_grad_conventions_at_kinks():
    """PyTorch's gradient at ties and zeros, one op per output (cotangents differ per output)."""
    parity(lambda T, x: (x.max(), T.amax(x, 0), x.max(0).values, x.median(), x.median(0).values,
                         T.aminmax(x).max, T.max(x, x.detach()), T.cummax(x, 0).values,
                         T.quantile(x, 0.5)), arr([1, 3, 3, 2]))
    parity(lambda T, x: (x.norm(), x.std(), x.var(), T.linalg.vector_norm(x, INF), x.prod(),
                         T.linalg.vector_norm(x, 0.5), T.cumprod(x, 0), x.norm(1)),
           np.zeros(3, F32))


def test_logcumsumexp_minus_inf_grad():
    """PyTorch's logcumsumexp backward gives NaN at -inf inputs (its log-space formula);
    jtorch keeps JAX's derivative there. Finite inputs agree (parity cases above)."""
    x = arr([-INF, 1, -INF, 2])
    t = torch.tensor(x, requires_grad=True)
    torch.logcumsumexp(t, 0).sum().backward()
    j = jtorch.tensor(x, requires_grad=True)
    jtorch.logcumsumexp(j, 0).sum().backward()
    tg, jg = t.grad.numpy(), j.grad.numpy()
    assert np.isnan(tg[0]) and np.isfinite(jg).all()
    np.testing.assert_allclose(jg[1:], tg[1:], rtol=1e-5)


# ------------------------------------------------------------------ errors
ERRORS = [
    ("mean-int", lambda L: L.mean(L.ones(3, dtype=L.int64))),
    ("mean-int32", lambda L: L.ones(3, dtype=L.int32).mean(0)),
    ("mean-dtype-int", lambda L: L.ones(3).mean(dtype=L.int64)),
    ("nanmean-int", lambda L: L.ones(3, dtype=L.int64).nanmean()),
    ("std-int", lambda L: L.ones(3, dtype=L.int64).std()),
    ("var-bool", lambda L: L.var(L.ones(3, dtype=L.bool))),
    ("sum-dup-dims", lambda L: L.ones(2, 3).sum((0, -2))),
    ("amax-dup-dims", lambda L: L.amax(L.ones(2, 3), (1, 1))),
    ("sum-dim-range", lambda L: L.ones(2, 3).sum(2)),
    ("max-dim-range", lambda L: L.ones(2, 3).max(-3)),
    ("max-empty", lambda L: L.ones(0, 3).max()),
    ("min-empty", lambda L: L.min(L.ones(0))),
    ("max-empty-dim", lambda L: L.ones(0, 3).max(0)),
    ("amax-empty", lambda L: L.ones(0, 3).amax()),
    ("amin-empty-dim", lambda L: L.amin(L.ones(0, 3), 0)),
    ("amax-empty-dims", lambda L: L.amax(L.ones(0, 3), (0, 1))),
    ("aminmax-empty", lambda L: L.aminmax(L.ones(0, 3))),
    ("aminmax-empty-dim", lambda L: L.aminmax(L.ones(0, 3), dim=0)),
    ("argmax-empty", lambda L: L.ones(0, 3).argmax()),
    ("argmin-empty-dim", lambda L: L.ones(0, 3).argmin(0)),
    ("argmax-bool", lambda L: L.ones(3, dtype=L.bool).argmax()),
    ("median-empty-dim", lambda L: L.ones(0, 3).median(0)),
    ("median-bool", lambda L: L.ones(3, dtype=L.bool).median()),
    ("median-bool-dim", lambda L: L.ones(3, dtype=L.bool).median(0)),
    ("mode-empty-dim", lambda L: L.ones(0, 3).mode(0)),
    ("softmax-int", lambda L: L.softmax(L.ones(2, 3, dtype=L.int64), 1)),
    ("softmax-int-dim0", lambda L: L.ones(2, 3, dtype=L.int64).softmax(0)),
    ("log_softmax-int", lambda L: L.ones(2, 3, dtype=L.int32).log_softmax(1)),
    ("log_softmax-int-dim0", lambda L: L.log_softmax(L.ones(2, 3, dtype=L.uint8), 0)),
    ("logcumsumexp-int", lambda L: L.ones(3, dtype=L.int64).logcumsumexp(0)),
    ("cumsum-dim", lambda L: L.ones(2, 2).cumsum(2)),
    ("quantile-int", lambda L: L.quantile(L.ones(3, dtype=L.int64), 0.5)),
    ("quantile-range", lambda L: L.quantile(L.ones(3), 1.5)),
    ("nanquantile-range", lambda L: L.nanquantile(L.ones(3), -0.5)),
    ("quantile-q-dtype", lambda L: L.quantile(L.ones(3), L.tensor([0.5], dtype=L.float64))),
    ("quantile-q-2d", lambda L: L.quantile(L.ones(3), L.tensor([[0.5]]))),
    ("quantile-empty", lambda L: L.quantile(L.ones(0), 0.5)),
    ("quantile-interp", lambda L: L.quantile(L.ones(3), 0.5, interpolation="foo")),
    ("vector_norm-int", lambda L: L.linalg.vector_norm(L.ones(3, dtype=L.int64))),
    ("norm-int", lambda L: L.ones(3, dtype=L.int32).norm()),
    ("vector_norm-inf-empty", lambda L: L.linalg.vector_norm(L.ones(0, 2), INF)),
    ("vector_norm-neg-empty", lambda L: L.linalg.vector_norm(L.ones(0, 2), -1.5)),
    ("vector_norm-neg-empty-dim", lambda L: L.linalg.vector_norm(L.ones(0, 2), -1, dim=0)),
    ("vector_norm-narrow", lambda L: L.linalg.vector_norm(L.ones(3, dtype=L.float64),
                                                          dtype=L.float32)),
    ("matrix_norm-narrow", lambda L: L.linalg.matrix_norm(L.ones(2, 2, dtype=L.float64),
                                                          dtype=L.float32)),
    ("matrix_norm-nuc-narrow", lambda L: L.linalg.matrix_norm(L.ones(2, 2, dtype=L.float64),
                                                              "nuc", dtype=L.float32)),
    ("matrix_norm-1d", lambda L: L.linalg.matrix_norm(L.ones(3))),
    ("matrix_norm-order", lambda L: L.linalg.matrix_norm(L.ones(2, 2), 3)),
    ("matrix_norm-order-str", lambda L: L.linalg.matrix_norm(L.ones(2, 2), "abc")),
    ("matrix_norm-int", lambda L: L.linalg.matrix_norm(L.ones(2, 2, dtype=L.int64), "nuc")),
    ("matrix_norm-same-dims", lambda L: L.linalg.matrix_norm(L.ones(2, 2), dim=(-2, 0))),
    ("matrix_norm-dim-len", lambda L: L.linalg.matrix_norm(L.ones(2, 2, 2), dim=(0,))),
    ("linalg.norm-3d", lambda L: L.linalg.norm(L.ones(2, 2, 2), 2)),
    ("linalg.norm-dims", lambda L: L.linalg.norm(L.ones(2, 2, 2), dim=(0, 1, 2))),
    ("linalg.norm-fro-dim", lambda L: L.linalg.norm(L.ones(3, 2), "fro", dim=0)),
    ("linalg.norm-fro-1d", lambda L: L.linalg.norm(L.ones(3), "fro")),
    ("norm-nuc-3d", lambda L: L.norm(L.ones(2, 2, 2), "nuc")),
    ("norm-bad-str", lambda L: L.norm(L.ones(2, 2), "abc")),
]


@pytest.mark.parametrize("fn", [P(f, id=n) for n, f in ERRORS])
def test_errors(fn):
    raises_like(lambda: fn(torch), lambda: fn(jtorch))


def test_prod_tuple_dim_is_type_error():
    for L in (torch, jtorch):
        with pytest.raises(TypeError):
            L.prod(L.ones(2, 3), (0, 1))
