"""Parity of the special-function ops (lgamma, digamma, polygamma, mvlgamma, igamma/igammac,
i0, torch.special's gammaln, psi, multigammaln, i0e, i1, i1e, erfcx, log_ndtr, ndtri, entr,
zeta) with PyTorch: values and gradients in float32 and float64, method and in-place forms,
integer inputs, edge values (poles, zeros, infinities, NaN) and errors; and the samplers
_standard_gamma, _standard_gamma_grad, _sample_dirichlet and binomial."""

import math

import numpy as np
import pytest
import torch
from helpers import NoGrad, parity, raises_like, rand

import jtorch

F32, F64 = np.float32, np.float64
INF, NAN = float("inf"), float("nan")
EDGES = [0.0, -0.0, -1.0, -2.0, -2.5, -0.3, 0.3, 1e-30, 1.0, 2.5, 30.0, 1e10, INF, -INF, NAN]


def _fn(path):
    def get(T):
        obj = T
        for part in path.split("."):
            obj = getattr(obj, part)
        return obj

    return get


# name -> (function of (T, x), low, high): a domain where the value and derivative are finite
UNARY = {
    "lgamma": (lambda T, x: T.lgamma(x), -3.7, 5.0),
    "digamma": (lambda T, x: T.digamma(x), 0.1, 5.0),
    "polygamma1": (lambda T, x: T.polygamma(1, x), 0.1, 5.0),
    "polygamma2": (lambda T, x: T.polygamma(2, x), -2.7, -2.2),
    "polygamma3": (lambda T, x: T.polygamma(3, x), 0.1, 5.0),
    "mvlgamma1": (lambda T, x: T.mvlgamma(x, 1), 0.2, 5.0),
    "mvlgamma3": (lambda T, x: T.mvlgamma(x, 3), 1.2, 5.0),
    "i0": (lambda T, x: T.i0(x), -4.0, 4.0),
    "special.gammaln": (lambda T, x: T.special.gammaln(x), 0.1, 5.0),
    "special.digamma": (lambda T, x: T.special.digamma(x), 0.1, 5.0),
    "special.psi": (lambda T, x: T.special.psi(x), 0.1, 5.0),
    "special.polygamma": (lambda T, x: T.special.polygamma(2, x), 0.1, 5.0),
    "special.multigammaln": (lambda T, x: T.special.multigammaln(x, 2), 0.7, 5.0),
    "special.i0": (lambda T, x: T.special.i0(x), -4.0, 4.0),
    "special.i0e": (lambda T, x: T.special.i0e(x), -4.0, 4.0),
    "special.i1": (lambda T, x: T.special.i1(x), -4.0, 4.0),
    "special.i1e": (lambda T, x: T.special.i1e(x), -4.0, 4.0),
    "special.erfcx": (lambda T, x: T.special.erfcx(x), -2.0, 5.0),
    "special.log_ndtr": (lambda T, x: T.special.log_ndtr(x), -5.0, 5.0),
    "special.ndtri": (lambda T, x: T.special.ndtri(x), 0.02, 0.98),
    "special.entr": (lambda T, x: T.special.entr(x), 0.05, 3.0),
}


@pytest.mark.parametrize("dtype", [F32, F64])
def test_unary_values_and_gradients(dtype):
    # every function in one parity run (one jit compilation): outputs in UNARY's order
    fns = [f for f, _, _ in UNARY.values()]
    inputs = [rand(3, 4, dtype=dtype, low=lo, high=hi, seed=i)
              for i, (_, lo, hi) in enumerate(UNARY.values())]
    parity(lambda T, *xs: [f(T, x) for f, x in zip(fns, xs)], *inputs, rtol=2e-5, atol=1e-5,
           grad_rtol=1e-4, grad_atol=1e-5)


# functions whose derivative PyTorch defines at the edges too (poles included)
EDGE_GRAD = {"lgamma", "digamma", "polygamma1", "special.gammaln"}


def _edges(name, dtype):
    if name == "special.ndtri":
        return np.array([0.0, 1.0, -0.1, 1.1, 0.5, 1e-30, NAN], dtype)
    if name.startswith("mvlgamma") or name == "special.multigammaln":
        return np.array([3.0, 30.0, 1e10, INF, NAN], dtype)  # PyTorch rejects x <= (p - 1) / 2
    return np.array(EDGES, dtype)


@pytest.mark.parametrize("dtype", [F32, F64])
def test_unary_edge_values(dtype):
    fns = [f for f, _, _ in UNARY.values()]
    inputs = [_edges(n, dtype) if n in EDGE_GRAD else NoGrad(_edges(n, dtype)) for n in UNARY]
    parity(lambda T, *xs: [f(T, x) for f, x in zip(fns, xs)], *inputs, rtol=1e-5, atol=1e-6,
           jit=False)


def test_method_and_inplace_forms():
    x = rand(2, 3, dtype=F32, low=0.5, high=3.0, seed=3)

    def fn(T, a):
        b = a.detach().clone()
        b.lgamma_()
        c = a.detach().clone()
        c.digamma_()
        d = a.detach().clone()
        d.polygamma_(2)
        e = a.detach().clone() + 1
        e.mvlgamma_(2)
        g = a.detach().clone()
        g.i0_()
        h = a.detach().clone()
        h.igamma_(a.detach())
        return (a.lgamma(), a.digamma(), a.polygamma(1), a.mvlgamma(1), a.i0(), b, c, d, e, g,
                h, (a.detach() + 1).igammac(a))

    parity(fn, x, rtol=2e-5, atol=1e-5, grad_rtol=1e-4)
    t = jtorch.tensor([1.5])
    assert t.lgamma().grad_fn is None and jtorch.lgamma(t).dtype == jtorch.float32


def test_integer_inputs_give_the_default_float():
    def fn(T, a):
        return T.lgamma(a), T.digamma(a), T.polygamma(1, a), T.special.i0e(a), T.i0(a)

    parity(fn, np.array([1, 2, 5], np.int64))


def test_incomplete_gamma():
    a32, a64 = (rand(2, 4, dtype=d, low=0.3, high=4.0, seed=4) for d in (F32, F64))
    x32, x64 = (rand(2, 4, dtype=d, low=0.1, high=6.0, seed=5) for d in (F32, F64))
    # PyTorch differentiates only with respect to x
    parity(lambda T, a, x, b, y: (T.igamma(a, x), T.igammac(a, x), T.special.gammainc(b, y),
                                  T.special.gammaincc(b, y)),
           NoGrad(a32), x32, NoGrad(a64), x64, rtol=1e-4, atol=1e-5)
    dtype = F64
    edges_a = np.array([0.0, 0.0, 1.0, -1.0, INF, INF, 2.0, 2.0, NAN, 1.0], dtype)
    edges_x = np.array([1.0, 0.0, 0.0, 1.0, 1.0, INF, INF, -1.0, 0.0, NAN], dtype)
    parity(lambda T, a, x: (T.igamma(a, x), T.igammac(a, x)), NoGrad(edges_a),
           NoGrad(edges_x), jit=False)


@pytest.mark.parametrize("dtype", [F32, F64])
def test_zeta(dtype):
    x = rand(6, dtype=dtype, low=1.5, high=6.0, seed=6)
    q = rand(6, dtype=dtype, low=0.2, high=4.0, seed=7)
    parity(lambda T, x, q: T.special.zeta(x, q), NoGrad(x), q, rtol=1e-5, atol=1e-6,
           grad_rtol=1e-4)
    ex = np.array([1.0, 0.5, 3.3, 0.0, INF, INF, NAN, 2.0, 3.0], dtype)
    eq = np.array([1.0, 1.0, 0.0, 0.0, 0.5, 1.0, 0.0, -1.5, -1.0], dtype)
    parity(lambda T, x, q: T.special.zeta(x, q), NoGrad(ex), NoGrad(eq), jit=False)


def test_errors():
    raises_like(lambda: torch.polygamma(-1, torch.ones(2)),
                lambda: jtorch.polygamma(-1, jtorch.ones(2)))
    raises_like(lambda: torch.mvlgamma(torch.ones(2) * 3, 0),
                lambda: jtorch.mvlgamma(jtorch.ones(2) * 3, 0))


# ------------------------------------------------------------------ samplers
def test_standard_gamma_shape_dtype_statistics_and_gradient():
    alpha = jtorch.tensor([0.5, 2.0, 7.0], requires_grad=True)
    s = jtorch._standard_gamma(alpha.expand(20000, 3))
    assert s.dtype == jtorch.float32 and tuple(s.shape) == (20000, 3)
    assert s.requires_grad  # (its grad_fn is the cut of the padded batch: see random_sampling)
    mean = s.double().mean(0).detach().numpy()
    se = np.sqrt(np.array([0.5, 2.0, 7.0]) / 20000)
    assert np.all(np.abs(mean - [0.5, 2.0, 7.0]) < 5 * se)
    s.mean(0).sum().backward()  # d E[x] / d alpha = 1
    np.testing.assert_allclose(alpha.grad.double().numpy(), 1.0, atol=0.05)
    assert jtorch._standard_gamma(jtorch.ones(2, dtype=jtorch.float64)).dtype == jtorch.float64


def test_standard_gamma_grad_matches_torch():
    a = rand(5, dtype=F64, low=0.3, high=5.0, seed=8)
    x = rand(5, dtype=F64, low=0.1, high=6.0, seed=9)
    # PyTorch's kernel is an approximation (series, saddle point and rational fits: about
    # 1e-4 relative); JAX's is the exact implicit derivative
    parity(lambda T, a, x: T._standard_gamma_grad(a, x), NoGrad(a), NoGrad(x), rtol=5e-4,
           atol=1e-6)


def test_sample_dirichlet_and_binomial():
    alpha = jtorch.tensor([[0.5, 1.0, 3.0]]).expand(10000, 3)
    d = jtorch._sample_dirichlet(alpha)
    assert d.dtype == jtorch.float32 and tuple(d.shape) == (10000, 3)
    np.testing.assert_allclose(d.sum(-1).numpy(), 1.0, rtol=1e-5)
    np.testing.assert_allclose(d.mean(0).numpy(), np.array([0.5, 1.0, 3.0]) / 4.5, atol=0.01)
    count = jtorch.tensor([5.0, 10.0, 0.0]).expand(10000, 3)
    prob = jtorch.tensor([0.3, 0.5, 0.7])
    b = jtorch.binomial(count, prob)
    assert b.dtype == jtorch.float32 and tuple(b.shape) == (10000, 3)
    mean = b.double().mean(0).numpy()
    se = np.sqrt(np.array([5 * 0.21, 10 * 0.25, 0.0]) / 10000)
    assert np.all(np.abs(mean - [1.5, 5.0, 0.0]) <= 5 * se + 1e-12)
    raises_like(lambda: torch.binomial(torch.tensor([5]), torch.tensor([0.3])),
                lambda: jtorch.binomial(jtorch.tensor([5]), jtorch.tensor([0.3])))
    raises_like(lambda: torch._standard_gamma(torch.tensor([5])),
                lambda: jtorch._standard_gamma(jtorch.tensor([5])))
    raises_like(lambda: torch._sample_dirichlet(torch.tensor([5])),
                lambda: jtorch._sample_dirichlet(jtorch.tensor([5])))
    assert math.isfinite(jtorch.binomial(jtorch.tensor(3.0), jtorch.tensor(0.5)).item())
