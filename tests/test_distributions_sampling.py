"""Sampling: sample/rsample shapes and dtypes against torch, sample statistics (mean and
variance of a fixed-seed sample within a tolerance from its size), pathwise gradients of
rsample against the analytic ones computed in torch for the same noise, implicit
reparameterisation (Gamma, Beta, Dirichlet) against the derivative of the mean, and one
compiled step that samples and differentiates a log_prob loss."""

import math

import numpy as np
import pytest
import torch
from dist_cases import CASES
from helpers import assert_close

import jtorch
import jtorch.distributions as jd

# one representative case per distribution class
SAMPLED = [n for n in CASES if not n.endswith(("_logits", "_cov", "_prec"))]
# the required core (its sample statistics are tested below)
CORE = {"Normal", "Uniform", "Bernoulli_probs", "Categorical_probs", "OneHotCategorical", "Beta",
        "Gamma", "Dirichlet", "Exponential", "Laplace", "LogNormal", "MultivariateNormal_tril",
        "Poisson", "Binomial", "Independent", "TransformedDistribution"}
# also sampled with sample shape () (each new shape compiles new kernels: one of each kind of
# sampler; the others are sampled with sample shape (2, 3))
SCALAR_TOO = {"Normal", "Gamma", "Categorical_probs", "MultivariateNormal_tril"}


def _both(name):
    case = CASES[name]
    td = case.make(torch.distributions, *[torch.tensor(p) for p in case.params])
    d = case.make(jd, *[jtorch.tensor(p) for p in case.params])
    return td, d


@pytest.mark.parametrize("name", SAMPLED)
def test_sample_shapes_and_dtypes(name):
    td, d = _both(name)
    for shape in ((), (2, 3)) if name in SCALAR_TOO else ((2, 3),):
        t, j = td.sample(shape), d.sample(shape)
        assert tuple(j.shape) == tuple(t.shape), shape
        assert str(j.dtype) == str(t.dtype)
        assert not j.requires_grad
        assert bool(d.support.check(j).all())
        if td.has_rsample:
            t, j = td.rsample(shape), d.rsample(shape)
            assert tuple(j.shape) == tuple(t.shape) and str(j.dtype) == str(t.dtype)
    if not td.has_rsample:
        with pytest.raises(NotImplementedError):
            d.rsample()


def test_sample_n_warns_and_has_the_shape():
    d = jd.Normal(jtorch.zeros(2), 1.0)
    with pytest.warns(FutureWarning):
        assert tuple(d.sample_n(5).shape) == (5, 2)


def test_same_seed_same_samples():
    d = jd.Gamma(jtorch.tensor([0.5, 2.0]), 1.0)
    jtorch.manual_seed(3)
    a = d.sample((4,))
    jtorch.manual_seed(3)
    assert jtorch.equal(a, d.sample((4,)))


# sample statistics against torch's analytic mean and variance of the same parameters
N = 20000
# the core distributions, and the others whose sampler is their own code (not a transform of a
# tested one: LogNormal, Independent and TransformedDistribution transform Normal's samples)
STAT = sorted(CORE - {"TransformedDistribution", "LogNormal", "Independent"}) + [
    "StudentT", "VonMises", "Geometric", "NegativeBinomial", "Wishart"]
HEAVY_TAILED = {"StudentT"}


@pytest.mark.parametrize("name", STAT)
def test_sample_mean_and_variance(name):
    td, d = _both(name)
    jtorch.manual_seed(0)
    x = d.sample((N,)).double().numpy()
    mean = td.mean.double().numpy()
    var = td.variance.double().numpy()
    if name.startswith("Categorical"):  # torch's mean is NaN: compare the category frequencies
        freq = np.stack([(x == k).mean(0) for k in range(td.probs.shape[-1])], -1)
        np.testing.assert_allclose(freq, td.probs.numpy(), atol=5 * 0.5 / math.sqrt(N))
        return
    if name == "VonMises":  # circular: the mean direction and 1 - mean resultant length
        c = np.cos(x - td.loc.numpy()).mean(0)
        np.testing.assert_allclose(1 - c, var, atol=5 / math.sqrt(N))
        return
    # the mean to 5 standard errors; the variance to 10 % where the 4th moment is finite
    se = np.sqrt(var / N)
    assert np.all(np.abs(x.mean(0) - mean) <= 5 * se + 1e-9), (x.mean(0), mean, se)
    if name not in HEAVY_TAILED:
        np.testing.assert_allclose(x.var(0), var, rtol=0.1, atol=1e-6)


# ------------------------------------------------------------------ pathwise gradients
# rsample = transform(noise); the loss is sum(rsample**2) for a fixed noise: jtorch's gradient
# by autograd through rsample, torch's by autograd through the same transform of that noise.
LOC_SCALE = {
    "Normal": (lambda D, a, b: D.Normal(a, b), lambda a, b, e: a + b * e),
    "LogNormal": (lambda D, a, b: D.LogNormal(a, b), lambda a, b, e: (a + b * e).exp()),
    "Cauchy": (lambda D, a, b: D.Cauchy(a, b), lambda a, b, e: a + b * e),
    "Uniform": (lambda D, a, b: D.Uniform(a, a + b), lambda a, b, u: a + b * u),
}


@pytest.mark.parametrize("name", list(LOC_SCALE))
def test_location_scale_pathwise_gradient(name):
    make, transform = LOC_SCALE[name]
    loc = np.array([0.3, -0.5, 1.0])
    scale = np.array([0.5, 1.5, 2.0])
    jl = jtorch.tensor(loc, requires_grad=True)
    js = jtorch.tensor(scale, requires_grad=True)
    jtorch.manual_seed(5)
    x = make(jd, jl, js).rsample((4,))
    (x ** 2).sum().backward()
    # recover the noise the sample used, then differentiate the transform in torch
    xv = x.detach().numpy()
    if name == "LogNormal":
        noise = (np.log(xv) - loc) / scale
    else:
        noise = (xv - loc) / scale
    tl = torch.tensor(loc, requires_grad=True)
    ts = torch.tensor(scale, requires_grad=True)
    y = transform(tl, ts, torch.tensor(noise))
    (y ** 2).sum().backward()
    assert_close(x, y, rtol=1e-9, atol=1e-9)
    assert_close(jl.grad, tl.grad, rtol=1e-8, atol=1e-8)
    assert_close(js.grad, ts.grad, rtol=1e-8, atol=1e-8)


def test_multivariate_normal_pathwise_gradient():
    loc = np.array([0.3, -0.5])
    tril = np.array([[1.0, 0.0], [0.4, 0.8]])
    jl, jt = (jtorch.tensor(a, requires_grad=True) for a in (loc, tril))
    x = jd.MultivariateNormal(jl, scale_tril=jt).rsample((5,))
    (x ** 2).sum().backward()
    noise = np.linalg.solve(tril, (x.detach().numpy() - loc).T).T
    tl, tt = (torch.tensor(a, requires_grad=True) for a in (loc, tril))
    y = tl + (tt @ torch.tensor(noise).T).T
    (y ** 2).sum().backward()
    assert_close(jl.grad, tl.grad, rtol=1e-8, atol=1e-8)
    assert_close(jt.grad, tt.grad, rtol=1e-8, atol=1e-8)


# ------------------------------------------------------------------ implicit gradients
# d/dtheta E[x] estimated by the Monte-Carlo mean of the pathwise gradients; tolerance 5
# standard errors of that mean (from the per-sample gradients' spread). Beta's rsample is
# Dirichlet's (its first coordinate), so Dirichlet's case covers it.
IMPLICIT = {
    "Gamma": (lambda D, a, b: D.Gamma(a, b), (1.7, 2.0), lambda D, a, b: D.Gamma(a, b).mean),
    "Dirichlet": (lambda D, a, b: D.Dirichlet(torch_stack(D, a, b)), (1.5, 2.5),
                  lambda D, a, b: D.Dirichlet(torch_stack(D, a, b)).mean[..., 0]),
}


def torch_stack(D, a, b):
    lib = torch if D is torch.distributions else jtorch
    return lib.stack([a, b], -1)


@pytest.mark.parametrize("name", list(IMPLICIT))
def test_implicit_reparameterisation_gradient(name):
    make, (a0, b0), mean_fn = IMPLICIT[name]
    n = 4000
    a = jtorch.full((n,), a0, dtype=jtorch.float64, requires_grad=True)
    b = jtorch.full((n,), b0, dtype=jtorch.float64, requires_grad=True)
    jtorch.manual_seed(1)
    x = make(jd, a, b).rsample()
    x = x[..., 0] if name == "Dirichlet" else x
    x.sum().backward()
    ta = torch.tensor(a0, dtype=torch.float64, requires_grad=True)
    tb = torch.tensor(b0, dtype=torch.float64, requires_grad=True)
    mean_fn(torch.distributions, ta, tb).backward()
    for g, tg in ((a.grad.numpy(), ta.grad.item()), (b.grad.numpy(), tb.grad.item())):
        se = g.std() / math.sqrt(n)
        assert abs(g.mean() - tg) <= 5 * se, (g.mean(), tg, se)


# ------------------------------------------------------------------ compiled step
def test_compiled_sample_and_log_prob_gradient():
    loc = jtorch.tensor([0.1, -0.2, 0.3], requires_grad=True)
    log_scale = jtorch.tensor([0.0, 0.5, -0.5], requires_grad=True)
    conc = jtorch.tensor([1.5, 2.0, 0.7], requires_grad=True)

    def step():
        normal = jd.Normal(loc, log_scale.exp())
        x = normal.rsample((8,))
        gamma = jd.Gamma(conc, 1.0)
        g = gamma.rsample((8,))
        loss = -(normal.log_prob(x).mean() + gamma.log_prob(g).mean())
        loss = loss + jd.kl_divergence(normal, jd.Normal(0.0, 1.0)).sum()
        loss.backward()
        return loss

    compiled = jtorch.compile(step)
    jtorch.manual_seed(2)
    c_loss = compiled()
    c_grads = [t.grad.clone() for t in (loc, log_scale, conc)]
    for t in (loc, log_scale, conc):
        t.grad = None
    jtorch.manual_seed(2)
    e_loss = step()
    assert math.isfinite(c_loss.item())
    assert tuple(c_grads[0].shape) == (3,)
    # the same seed gives the same numbers compiled and eager
    np.testing.assert_allclose(c_loss.item(), e_loss.item(), rtol=1e-5)
    for c, t in zip(c_grads, (loc, log_scale, conc)):
        np.testing.assert_allclose(c.numpy(), t.grad.numpy(), rtol=1e-4, atol=1e-6)
