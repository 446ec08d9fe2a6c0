"""Parity with PyTorch of the torch functions PyTorch programs use that are not in an op family
of their own: constants, finite differences and integrals (diff, trapezoid...), cov/corrcoef,
vander, dist, renorm, gcd/lcm, frexp, isin, index factories (tril/triu_indices, unravel_index),
block_diag/diagflat/combinations, the window functions, the *_scatter ops, fill_diagonal_,
sum_to_size, and the predicates (is_nonzero, is_same_size, is_conj...): values, dtypes,
gradients (under jax.jit too, see helpers.parity) and PyTorch's errors for common misuse."""

import itertools
import math

import numpy as np
import pytest
import torch
from helpers import NoGrad, NonContig, parity, raises_like, rand, warns_like

import jtorch

F32, F64 = np.float32, np.float64
I64 = np.int64
_SEEDS = itertools.count(700)
P = pytest.param
CASES = []


def rnd(*shape, **kw):
    kw.setdefault("seed", next(_SEEDS))
    return np.asarray(rand(*shape, **kw))


def case(name, fn, *args, **kw):
    CASES.append(P(fn, args, kw, id=name))


def test_constants():
    for name in ("pi", "e", "inf", "nan"):
        assert type(getattr(jtorch, name)) is float
        assert getattr(jtorch, name) is getattr(torch, name), name   # math's own floats
    assert jtorch.newaxis is None and torch.newaxis is None
    assert jtorch.ones(3)[jtorch.newaxis].shape == (1, 3)
    # as LLMs-from-scratch masks attention scores: masked_fill_(mask, -torch.inf)
    scores = np.arange(6, dtype=np.float32).reshape(2, 3)
    mask = np.triu(np.ones((2, 3), dtype=bool), 1)

    def masked(T):
        x = T.tensor(scores).masked_fill_(T.tensor(mask), -T.inf)
        return (x.softmax(-1)[:, T.newaxis] * T.pi).numpy()

    np.testing.assert_allclose(masked(jtorch), masked(torch), rtol=1e-6)


# ------------------------------------------------------------------ diff
case("diff", lambda T, x: (T.diff(x), T.diff(x, dim=0), x.diff(n=2), T.diff(x, n=0),
                           T.diff(x, n=7)), rnd(3, 5))
case("diff-prepend-append", lambda T, x, p, a: (T.diff(x, prepend=p, append=a),
                                                T.diff(x, 2, 0, append=x[:1] * 2)),
     rnd(2, 4), rnd(2, 1, dtype=F64), rnd(2, 3))
case("diff-noncontig", lambda T, x: T.diff(x, dim=0), NonContig(rnd(3, 4)))
case("diff-int-bool", lambda T, i, b: (T.diff(i), T.diff(b), T.diff(i, prepend=T.tensor([1.5])),
                                       T.diff(i.to(T.uint8))),
     rnd(6, dtype=I64, low=-5, high=5), rnd(6, dtype=np.bool_), grad=False)

# ------------------------------------------------------------------ trapezoid family
case("trapezoid-dx", lambda T, y: (T.trapezoid(y), T.trapezoid(y, dx=0.5, dim=0),
                                   T.trapz(y, dx=2), T.trapezoid(y[:, :1])), rnd(3, 4))
case("trapezoid-x", lambda T, y, x, x2: (T.trapezoid(y, x), T.trapz(y, x), T.trapezoid(y, x2),
                                         T.trapezoid(y.T, x, dim=0)),
     rnd(3, 4), rnd(4, low=0, high=3), rnd(3, 4, dtype=F64))
case("cumulative-trapezoid", lambda T, y, x: (T.cumulative_trapezoid(y),
                                              T.cumulative_trapezoid(y, dx=2, dim=0),
                                              T.cumulative_trapezoid(y, x)),
     rnd(3, 4), rnd(4, low=0, high=3))
case("trapezoid-int-empty", lambda T, i, x: (T.trapezoid(i), T.trapezoid(i, x),
                                             T.trapezoid(i, dx=2),
                                             T.cumulative_trapezoid(i),
                                             T.trapezoid(T.ones(0, 3), dim=0),
                                             T.cumulative_trapezoid(T.ones(0))),
     rnd(5, dtype=I64, low=-3, high=3), rnd(5, dtype=I64, low=0, high=9), grad=False)

# ------------------------------------------------------------------ cov / corrcoef
case("cov", lambda T, x: (T.cov(x), T.cov(x, correction=0), T.cov(x[0]), x.cov()), rnd(3, 6))
case("cov-weights", lambda T, x, f, a: (T.cov(x, fweights=f, aweights=a),
                                        T.cov(x, fweights=f), T.cov(x, aweights=a,
                                                                     correction=0)),
     rnd(2, 5), rnd(5, dtype=I64, low=1, high=4), rnd(5, low=0.1, high=2, dtype=F64))
case("cov-int-complex", lambda T, i, z: (T.cov(i), T.cov(z)),
     rnd(2, 5, dtype=I64, low=-4, high=4), NoGrad(rnd(2, 4, dtype=np.complex64)), grad=False)
case("corrcoef", lambda T, x: (T.corrcoef(x), x.corrcoef(), T.corrcoef(x[0])), rnd(3, 6))
case("corrcoef-complex-int", lambda T, z, i: (T.corrcoef(z), T.corrcoef(i)),
     NoGrad(rnd(2, 4, dtype=np.complex128)), rnd(2, 4, dtype=I64, low=-3, high=3), grad=False)

# ------------------------------------------------------------------ vander / dist / renorm
# PyTorch 2.13's backward of vander raises (it writes into a tensor it saved): values here,
# jtorch's gradient in test_vander_gradient
case("vander", lambda T, x: (T.vander(x), T.vander(x, N=2), T.vander(x, N=0),
                             T.vander(x, 3, True)), rnd(4, low=0.5, high=1.5), grad=False)
case("vander-int", lambda T, i, b: (T.vander(i), T.vander(i.to(T.int8), 3), T.vander(b)),
     rnd(3, dtype=I64, low=-3, high=3), rnd(2, dtype=np.bool_), grad=False)
case("dist", lambda T, a, b: tuple(T.dist(a, b, p) for p in (2, 1, 1.5, 3, math.inf,
                                                               -math.inf, -1)) + (a.dist(b),),
     rnd(3, 4), rnd(4))
case("dist-p0", lambda T, a, b: T.dist(a, b, 0), rnd(3, 4), rnd(3, 4), grad=False)
case("dist-promote", lambda T, a, b: T.dist(a, b), rnd(3), rnd(1, dtype=F64))
case("renorm", lambda T, x: (T.renorm(x, 2, 0, 1.0), x.renorm(1, 1, 2.5),
                             T.renorm(x, math.inf, 2, 1.0)), rnd(3, 4, 2))

# ------------------------------------------------------------------ gcd / lcm / frexp / isin
_A = np.array([5, -10, 0, 0, 15, 7, 12], I64)
_B = np.array([3, 4, 0, -7, -6, 0, 18], I64)
case("gcd-lcm", lambda T, a, b: (T.gcd(a, b), T.lcm(a, b), a.gcd(b), a.lcm(b),
                                 T.gcd(a, b.to(T.int32)), T.gcd(a.to(T.uint8), b.to(T.uint8)),
                                 T.lcm(a.to(T.int16), b.to(T.int16)), T.gcd(a, T.tensor(4))),
     _A, _B, grad=False)
# subnormals (1e-40 in float32, 1e-310 in float64) too; converted between dtypes they would
# flush to zero on XLA's CPU, so each dtype gets its own
_FR = [8.0, 0.3, -5, 0, np.inf, -np.inf, np.nan, -0.0, 3e-3, 6e4]
case("frexp", lambda T, x, y, z: (T.frexp(x), x.frexp(), T.frexp(y), T.frexp(z.half()),
                                  T.frexp(z.bfloat16())),
     NoGrad(np.array(_FR + [1e-40, -1e-44, 3e38], F32)),
     NoGrad(np.array(_FR + [1e-310, -4e-320, 1e300], F64)), NoGrad(np.array(_FR, F32)),
     grad=False)
case("frexp-grad", lambda T, x: T.frexp(x), rnd(3, 4, low=-100, high=100, dtype=F64))
case("isin", lambda T, e, t: (T.isin(e, t), T.isin(e, t, invert=True),
                              T.isin(e, t, assume_unique=True), T.isin(e.float(), t),
                              T.isin(e, 2), T.isin(3, t), T.isin(e, t[:0]),
                              T.isin(e, T.tensor([1.5, 2.0]))),
     rnd(3, 4, dtype=I64, low=0, high=6), rnd(5, dtype=I64, low=0, high=6), grad=False)
case("isin-nan", lambda T, e, t: T.isin(e, t), NoGrad(np.array([1.0, np.nan, 2], F32)),
     NoGrad(np.array([np.nan, 1.0], F32)))

# ------------------------------------------------------------------ index factories
case("tri-indices", lambda T: (T.tril_indices(3, 3), T.tril_indices(4, 3, 1),
                               T.triu_indices(3, 4, -1, dtype=T.int32),
                               T.triu_indices(4, 4, 2), T.tril_indices(0, 3),
                               T.tril_indices(3, 5, -5)))
case("unravel-index", lambda T, i: (T.unravel_index(i, (3, 2)), T.unravel_index(i[0], 6),
                                    T.unravel_index(i.to(T.int32), T.Size([2, 1, 3])),
                                    T.unravel_index(T.tensor(4), (3, 2)),
                                    T.unravel_index(T.tensor(0), ())),
     np.array([[4, 1, -1], [6, 0, 5]], I64), grad=False)

# ------------------------------------------------------------------ block_diag / diagflat / ...
case("block-diag", lambda T, a, b, c, d: (T.block_diag(a, b, c, d), T.block_diag(),
                                          T.block_diag(a.to(T.int32), c.half())),
     rnd(2, 3), rnd(3), rnd(dtype=F32), rnd(0, 2))
case("diagflat", lambda T, x, m: (T.diagflat(x), x.diagflat(1), T.diagflat(m, offset=-2),
                                  T.diagflat(x[0])), rnd(3), rnd(2, 2))
case("combinations", lambda T, x: (T.combinations(x), T.combinations(x, 3),
                                   T.combinations(x, r=2, with_replacement=True),
                                   T.combinations(x, 1), T.combinations(x, 0),
                                   T.combinations(x, 5)), rnd(4))

# ------------------------------------------------------------------ windows
_WINDOWS = ("hann_window", "hamming_window", "blackman_window", "bartlett_window",
            "kaiser_window")
for _dt in ("float32", "float64", "float16", "bfloat16"):
    case(f"windows-{_dt}", lambda T, dt=_dt: tuple(
        getattr(T, w)(n, p, dtype=getattr(T, dt)) for w in _WINDOWS for n in (0, 1, 2, 7, 16)
        for p in (True, False)), atol=1e-6 if _dt == "float32" else None)
case("windows-args", lambda T: (T.hamming_window(5, False, 0.5, 0.3), T.hann_window(8),
                                T.kaiser_window(6, True, 3.0), T.kaiser_window(5, False, 5.0),
                                T.hamming_window(6, True, 0.6, dtype=T.float64),
                                T.bartlett_window(6, requires_grad=True)), atol=1e-6)

# ------------------------------------------------------------------ *_scatter, fill_diagonal_
case("select-scatter", lambda T, a, b, c: (T.select_scatter(a, b, 0, 1),
                                           T.select_scatter(a, c, 1, -1),
                                           a.select_scatter(c.double(), 1, 0)),
     rnd(3, 4), rnd(4), rnd(3))
case("slice-scatter", lambda T, a, b, c: (T.slice_scatter(a, b, 1, 1, 3),
                                          T.slice_scatter(a, c, start=1),
                                          T.slice_scatter(a, b, dim=1, step=2),
                                          a.slice_scatter(b, 1, -3, None, 2),
                                          T.slice_scatter(a, a)),
     rnd(3, 4), rnd(3, 2), rnd(2, 4))
# (PyTorch's gradient of as_strided_scatter's input is wrong: compared by hand below)
case("as-strided-scatter", lambda T, a, s: (T.as_strided_scatter(a, s, (2, 2), (1, 2), 1),
                                            a.as_strided_scatter(s * 2, (2, 2), (4, 1)),
                                            T.as_strided_scatter(a, s[:1], (1, 2), (0, 3))),
     NoGrad(rnd(3, 4)), rnd(2, 2))
case("narrow-copy", lambda T, a: (a.narrow_copy(1, 1, 2), T.narrow_copy(a, 0, 1, 2)),
     rnd(3, 4))
case("diagonal-scatter", lambda T, a, b, c, d, e: (T.diagonal_scatter(a, b),
                                                   T.diagonal_scatter(a, b, 1),
                                                   a.diagonal_scatter(c, -1),
                                                   T.diagonal_scatter(d, e, 0, 0, 1)),
     rnd(3, 4), rnd(3), rnd(2), rnd(2, 3, 3), rnd(3, 2))


def _fill_diag(T, x):
    y = x * 1
    outs = [y.fill_diagonal_(2.5)]
    for shape, wrap in (((7, 3), True), ((7, 3), False), ((3, 5), True), ((3, 3, 3), False)):
        outs.append(T.zeros(*shape).fill_diagonal_(5, wrap=wrap))
    outs.append(T.zeros(3, 3, dtype=T.long).fill_diagonal_(2.7))
    return tuple(outs)


case("fill-diagonal", _fill_diag, rnd(4, 3))
case("sum-to-size", lambda T, x: (x.sum_to_size(3, 1), x.sum_to_size((1, 3, 1)),
                                  x.sum_to_size(T.Size([4])), x.sum_to_size(2, 3, 4),
                                  x.to(T.int32).sum_to_size(1, 4)), rnd(2, 3, 4))


@pytest.mark.parametrize("fn,args,kw", CASES)
def test_parity(fn, args, kw):
    parity(fn, *args, **kw)


def test_predicates():
    for T in (torch, jtorch):
        x = T.ones(2, 3, requires_grad=True)
        assert T.is_nonzero(T.tensor([[2.0]])) and not T.tensor([0]).is_nonzero()
        assert T.is_same_size(x, T.zeros(2, 3)) and not x.is_same_size(T.zeros(3, 2))
        assert T.is_signed(x) and not T.is_signed(T.ones(1, dtype=T.uint8))
        assert not T.is_conj(x) and not x.is_neg() and not T.is_neg(x) and not x.is_conj()
        assert T.resolve_conj(x) is x and x.resolve_neg() is x and T.resolve_neg(x) is x
        d = T.detach(x)
        assert not d.requires_grad and d.grad_fn is None
        y = x * 2
        assert T.detach_(y) is y and not y.requires_grad


def test_vander_gradient():
    x = jtorch.tensor([0.5, -1.0, 2.0], dtype=jtorch.float64, requires_grad=True)
    v = jtorch.vander(x, 4)
    assert v.grad_fn is not None and not jtorch.vander(x, N=0).requires_grad
    v.sum().backward()
    xs = x.detach().numpy()
    np.testing.assert_allclose(x.grad.numpy(), 3 * xs ** 2 + 2 * xs + 1, rtol=1e-12)


def test_sum_to_size_same_shape_is_input():
    x = jtorch.ones(2, 3)
    assert x.sum_to_size(2, 3) is x


def test_cov_warns_without_degrees_of_freedom():
    t, j = warns_like(lambda: torch.cov(torch.ones(2, 1)), lambda: jtorch.cov(jtorch.ones(2, 1)))
    assert np.isnan(j.numpy()).all() and np.isnan(t.numpy()).all()
    warns_like(lambda: torch.cov(torch.ones(1, 2), fweights=torch.tensor([1, 0])),
               lambda: jtorch.cov(jtorch.ones(1, 2), fweights=jtorch.tensor([1, 0])))


ERRORS = [
    ("diff-0d", lambda T: T.diff(T.tensor(1.0))),
    ("diff-order", lambda T: T.diff(T.ones(3), n=-1)),
    ("diff-prepend-dim", lambda T: T.diff(T.ones(2, 3), prepend=T.zeros(2))),
    ("diff-dim", lambda T: T.diff(T.ones(2, 3), dim=3)),
    ("diff-prepend-shape", lambda T: T.diff(T.ones(2, 3), dim=0, prepend=T.ones(1, 2))),
    ("trapezoid-x-size", lambda T: T.trapezoid(T.ones(2, 3), T.ones(2))),
    ("cumulative-trapezoid-x-size", lambda T: T.cumulative_trapezoid(T.ones(2, 3), T.ones(2))),
    ("trapezoid-0d", lambda T: T.trapezoid(T.tensor(1.0))),
    ("cov-3d", lambda T: T.cov(T.ones(2, 2, 2))),
    ("cov-bool", lambda T: T.cov(T.ones(2, 2, dtype=T.bool))),
    ("cov-fweights-float", lambda T: T.cov(T.ones(2, 3), fweights=T.ones(3))),
    ("cov-fweights-2d", lambda T: T.cov(T.ones(2, 3), fweights=T.ones(1, 3, dtype=T.long))),
    ("cov-fweights-numel", lambda T: T.cov(T.ones(2, 3), fweights=T.ones(2, dtype=T.long))),
    ("cov-fweights-negative", lambda T: T.cov(T.ones(2, 3), fweights=T.tensor([1, -2, 3]))),
    ("cov-aweights-int", lambda T: T.cov(T.ones(2, 3), aweights=T.tensor([1, 2, 3]))),
    ("cov-aweights-negative", lambda T: T.cov(T.ones(2, 3), aweights=T.tensor([1, -2, 3.0]))),
    ("cov-weights-zero", lambda T: T.cov(T.ones(2, 3), aweights=T.zeros(3))),
    ("corrcoef-3d", lambda T: T.corrcoef(T.ones(2, 2, 2))),
    ("vander-2d", lambda T: T.vander(T.ones(2, 2))),
    ("vander-n", lambda T: T.vander(T.ones(2), N=-1)),
    ("dist-int", lambda T: T.dist(T.tensor([1, 2]), T.tensor([2, 2]))),
    ("dist-bcast", lambda T: T.dist(T.ones(4), T.ones(3))),
    ("renorm-p", lambda T: T.renorm(T.ones(2, 2), 0, 0, 1.0)),
    ("renorm-maxnorm", lambda T: T.renorm(T.ones(2, 2), 2, 0, -5)),
    ("renorm-1d", lambda T: T.renorm(T.ones(2), 2, 0, 5)),
    ("renorm-int", lambda T: T.renorm(T.ones(2, 2, dtype=T.long), 2, 0, 5)),
    ("gcd-float", lambda T: T.gcd(T.ones(2), T.ones(2, dtype=T.long))),
    ("lcm-bool", lambda T: T.lcm(T.ones(2, dtype=T.bool), T.ones(2, dtype=T.bool))),
    ("frexp-int", lambda T: T.frexp(T.tensor([1, 2]))),
    ("isin-bool", lambda T: T.isin(T.tensor([1, 2]), T.tensor([True]))),
    ("isin-complex", lambda T: T.isin(T.tensor([1.0]), T.tensor([1j]))),
    ("tril-indices-row", lambda T: T.tril_indices(-1, 3)),
    ("triu-indices-col", lambda T: T.triu_indices(2, -2)),
    ("tril-indices-dtype", lambda T: T.tril_indices(3, 3, dtype=T.int16)),
    ("triu-indices-float", lambda T: T.triu_indices(3, 3, dtype=T.float32)),
    ("unravel-float", lambda T: T.unravel_index(T.tensor([1.0]), (2, 3))),
    ("unravel-bool", lambda T: T.unravel_index(T.tensor([True]), (2, 3))),
    ("unravel-negative-shape", lambda T: T.unravel_index(T.tensor([1]), (3, -2))),
    ("unravel-shape-type", lambda T: T.unravel_index(T.tensor([1]), (3, 2.0))),
    ("block-diag-3d", lambda T: T.block_diag(T.ones(2, 2, 2))),
    ("combinations-2d", lambda T: T.combinations(T.ones(2, 2))),
    ("combinations-r", lambda T: T.combinations(T.ones(3), r=-1)),
    ("window-length-float", lambda T: T.hann_window(3.0)),
    ("window-length-negative", lambda T: T.hamming_window(-1)),
    ("window-dtype-int", lambda T: T.blackman_window(4, dtype=T.int64)),
    ("window-dtype-bool", lambda T: T.kaiser_window(4, dtype=T.bool)),
    ("select-scatter-index", lambda T: T.select_scatter(T.zeros(3, 4), T.ones(3), 1, 5)),
    ("select-scatter-src", lambda T: T.select_scatter(T.zeros(3, 4), T.ones(3, 1), 1, 1)),
    ("slice-scatter-src", lambda T: T.slice_scatter(T.zeros(3, 4), T.ones(3, 3), 1, step=2)),
    ("slice-scatter-step", lambda T: T.slice_scatter(T.zeros(3, 4), T.ones(3, 3), 1, step=0)),
    ("as-strided-scatter-bounds",
     lambda T: T.as_strided_scatter(T.zeros(3, 4), T.ones(3, 3), (3, 3), (4, 1), 2)),
    ("as-strided-scatter-src",
     lambda T: T.as_strided_scatter(T.zeros(3, 4), T.ones(2, 3), (2, 2), (4, 1))),
    ("narrow-copy-range", lambda T: T.zeros(3, 4).narrow_copy(1, 3, 2)),
    ("diagonal-scatter-src", lambda T: T.diagonal_scatter(T.zeros(3, 4), T.ones(4))),
    ("diagonal-scatter-dims", lambda T: T.diagonal_scatter(T.zeros(3, 4), T.ones(3), 0, 1, 1)),
    ("fill-diagonal-1d", lambda T: T.zeros(3).fill_diagonal_(1)),
    ("fill-diagonal-unequal", lambda T: T.zeros(3, 3, 4).fill_diagonal_(1)),
    ("fill-diagonal-leaf", lambda T: T.zeros(3, 3, requires_grad=True).fill_diagonal_(1)),
    ("sum-to-size", lambda T: T.ones(2, 3, 4).sum_to_size(2, 4)),
    ("sum-to-size-longer", lambda T: T.ones(3).sum_to_size(2, 3)),
    ("is-nonzero-empty", lambda T: T.is_nonzero(T.tensor([]))),
    ("is-nonzero-many", lambda T: T.is_nonzero(T.ones(2))),
    ("is-nonzero-int", lambda T: T.is_nonzero(1)),
    ("is-same-size-int", lambda T: T.is_same_size(T.ones(2), 2)),
    ("is-signed-int", lambda T: T.is_signed(2)),
    ("is-conj-int", lambda T: T.is_conj(3)),
    ("detach-int", lambda T: T.detach(3)),
]


@pytest.mark.parametrize("fn", [P(f, id=n) for n, f in ERRORS])
def test_errors(fn):
    raises_like(lambda: fn(torch), lambda: fn(jtorch))


# ------------------------------------------------------------------ torch.<name>_ functions
# each torch.<name>_ of PyTorch runs x.<name>_(): on a non-leaf (gradients flow through the
# write), returning its input; arguments after the input by name (inputs in (0.1, 0.9))
_INPLACE_ARGS = {"clamp": lambda T, x: (0.3, 0.6), "clip": lambda T, x: (0.2, 0.7),
                 "clamp_max": lambda T, x: (0.5,), "clamp_min": lambda T, x: (0.5,),
                 "ldexp": lambda T, x: (T.tensor([1.0, -2.0, 3.0], dtype=T.float64),),
                 "xlogy": lambda T, x: (x * 2,),
                 "addmv": lambda T, x: (T.ones(3, 2, dtype=T.float64),
                                        T.tensor([0.5, 2.0], dtype=T.float64)),
                 "index_put": lambda T, x: ((T.tensor([0, 2]),),
                                            T.tensor([5.0, 6.0], dtype=T.float64))}
_INPLACE = sorted(n[:-1] for n in dir(torch) if n.endswith("_") and not n.startswith("_")
                  and hasattr(torch.Tensor, n) and n[:-1] not in ("gcd", "lcm")
                  and n not in ("as_strided_", "resize_as_", "resize_as_sparse_", "detach_",
                                "zero_", "fill_", "relu_", "selu_", "celu_", "rrelu_",
                                "threshold_", "dropout_", "alpha_dropout_",
                                "feature_alpha_dropout_", "feature_dropout_",
                                "embedding_renorm_"))


def _inplace_fn(T, x, name):
    y = x * 1   # a non-leaf: the write is recorded
    first = y if name not in ("acosh", "arccosh") else y + 1
    extra = _INPLACE_ARGS.get(name, lambda T, x: ())(T, x)
    out = getattr(T, name + "_")(first, *extra)
    assert out is first
    return out


@pytest.mark.parametrize("name", _INPLACE)
def test_torch_inplace_functions(name):
    # PyTorch has no derivative for the in-place inverse hyperbolic functions
    grad = name not in ("round", "fix", "trunc", "floor", "ceil", "frac", "acosh", "arccosh",
                        "asinh", "arcsinh", "atanh", "arctanh")
    parity(lambda T, x: _inplace_fn(T, x, name), rnd(3, low=0.1, high=0.9, dtype=F64),
           grad=grad, jit=False)


def _int_inplace(T, x, y, name):
    z = x * 1
    out = getattr(T, name)(z, y)
    assert out is z
    return out


@pytest.mark.parametrize("name", ["gcd_", "lcm_"])
def test_torch_inplace_integer_functions(name):
    parity(lambda T, x, y: _int_inplace(T, x, y, name), rnd(5, dtype=I64, low=-9, high=9),
           rnd(5, dtype=I64, low=-9, high=9), grad=False, jit=False)


def test_as_strided_scatter_input_gradient_is_the_true_derivative():
    """The input's gradient is 1 where as_strided_scatter keeps the input and 0 where it writes
    ``src`` (PyTorch 2.13's formula gives the reverse; docs/differences.md)."""
    x = jtorch.zeros(3, 4, requires_grad=True)
    src = jtorch.ones(2, 2, requires_grad=True)
    weights = jtorch.arange(12.0).reshape(3, 4)
    (jtorch.as_strided_scatter(x * 2, src * 3, (2, 2), (1, 4), 1) * weights).sum().backward()
    written = np.zeros(12, bool)
    written[[1, 5, 2, 6]] = True
    expected = np.where(written, 0.0, 2 * np.arange(12.0)).reshape(3, 4)
    np.testing.assert_array_equal(x.grad.numpy(), expected)
    np.testing.assert_array_equal(src.grad.numpy(), 3 * np.array([[1.0, 5.0], [2.0, 6.0]]))


def test_new_empty_strided_takes_the_tensors_dtype_and_device():
    for T in (torch, jtorch):
        x = T.ones(2, dtype=T.float64)
        e = x.new_empty_strided((2, 3), (3, 1))
        assert tuple(e.shape) == (2, 3) and e.dtype == T.float64 and not e.requires_grad
        e = x.new_empty_strided((4,), (1,), dtype=T.int32, requires_grad=False)
        assert e.dtype == T.int32
