"""Every distribution against torch.distributions from identical parameters: log_prob, cdf,
icdf, entropy, mean, mode, variance, stddev and perplexity values and their gradients with
respect to the parameters (and the value), eagerly and under jax.jit; the methods PyTorch does
not implement raise NotImplementedError in jtorch too. Also shapes, expand, repr and
enumerate_support."""

import types

import numpy as np
import pytest
import torch
from dist_cases import CASES
from helpers import NoGrad, assert_close, parity

import jtorch
import jtorch.distributions as jd

VALUE_METHODS = ("log_prob", "cdf", "icdf")
METHODS = ("log_prob", "cdf", "icdf", "entropy", "mean", "mode", "variance", "stddev",
           "perplexity")
# the parts PyTorch cannot differentiate (its igamma has no derivative in `input`), or cannot
# compute (GeneralizedPareto's log_prob/cdf mix float32 constants with float64 parameters)
NO_GRAD = {("Gamma", "cdf"): (0,), ("Chi2", "cdf"): (0,), ("InverseGamma", "cdf"): (0,)}
TORCH_FAILS = {("GeneralizedPareto", "log_prob"), ("GeneralizedPareto", "cdf")}
# PyTorch 2.13's value is wrong (NaN for every parameter): tested against the textbook formula
# in test_kumaraswamy_mode instead
TORCH_WRONG = {("Kumaraswamy", "mode")}
# data-dependent shapes (enumerate_support over total_count): eager only
EAGER_ONLY = {"Binomial", "Binomial_logits", "Multinomial"}
# the distributions also run under jax.jit (all of them would make the file slow; the others
# share these code paths and run under jtorch.compile in test_distributions_sampling)
JIT = {"Gamma", "Dirichlet", "MultivariateNormal_tril"}


def _call(d, method, value, q):
    attr = getattr(d, method)
    if method in VALUE_METHODS:
        return attr(q if method == "icdf" else value)
    return attr() if callable(attr) else attr


def _torch_dist(case):
    return case.make(torch.distributions, *[torch.tensor(p) for p in case.params])


def _implemented(case, name):
    td = _torch_dist(case)
    q = torch.full(tuple(td.batch_shape), 0.3, dtype=torch.float64)
    out = []
    for m in METHODS:
        if (name, m) in TORCH_FAILS | TORCH_WRONG:
            continue
        try:
            _call(td, m, torch.tensor(case.value), q)
            out.append(m)
        except NotImplementedError:
            pass
    return out


@pytest.mark.parametrize("name", list(CASES))
def test_methods_values_and_gradients(name):
    case = CASES[name]
    methods = _implemented(case, name)
    q = np.full(tuple(_torch_dist(case).batch_shape), 0.3)
    floating = np.issubdtype(case.value.dtype, np.floating)
    value = NoGrad(case.value) if case.discrete or not floating else case.value
    # one parity run for every method (few compilations), one more for each method whose
    # gradient PyTorch lacks for some parameter
    groups = [[m for m in methods if (name, m) not in NO_GRAD]]
    groups += [[m] for m in methods if (name, m) in NO_GRAD]
    for group in groups:
        nograd = NO_GRAD.get((name, group[0]), ())
        params = [NoGrad(p) if i in nograd else p for i, p in enumerate(case.params)]

        def fn(T, *args, group=group):
            d = case.make(T.distributions, *args[:-2])
            return [_call(d, m, args[-2], args[-1]) for m in group]

        parity(fn, *params, value, NoGrad(q), jit=name in JIT)


@pytest.mark.parametrize("name", list(CASES))
def test_missing_methods_raise_not_implemented(name):
    case = CASES[name]
    implemented = set(_implemented(case, name)) | {m for n, m in TORCH_FAILS | TORCH_WRONG
                                                   if n == name}
    d = case.make(jd, *[jtorch.tensor(p) for p in case.params])
    q = jtorch.full(tuple(d.batch_shape), 0.3, dtype=jtorch.float64)
    for method in set(METHODS) - implemented:
        with pytest.raises(NotImplementedError):
            _call(d, method, jtorch.tensor(case.value), q)


@pytest.mark.parametrize("name", list(CASES))
def test_shapes_repr_support_and_expand(name):
    case = CASES[name]
    td = _torch_dist(case)
    d = case.make(jd, *[jtorch.tensor(p) for p in case.params])
    assert tuple(d.batch_shape) == tuple(td.batch_shape)
    assert tuple(d.event_shape) == tuple(td.event_shape)
    assert repr(d) == repr(td)
    assert repr(d.support) == repr(td.support)
    assert d.has_rsample == td.has_rsample
    assert d.has_enumerate_support == td.has_enumerate_support
    assert sorted(d.arg_constraints) == sorted(td.arg_constraints)
    new_batch = (2, *td.batch_shape)
    te, je = td.expand(new_batch), d.expand(new_batch)
    assert tuple(je.batch_shape) == tuple(te.batch_shape)
    if "mean" in _implemented(case, name):
        assert_close(je.mean, te.mean)
    if (name, "log_prob") not in TORCH_FAILS:
        value = np.broadcast_to(case.value, (2, *case.value.shape))
        assert_close(je.log_prob(jtorch.tensor(value)), te.log_prob(torch.tensor(value)))


ENUMERABLE = [n for n, c in CASES.items() if _torch_dist(c).has_enumerate_support]


@pytest.mark.parametrize("name", ENUMERABLE)
@pytest.mark.parametrize("expand", [True, False])
def test_enumerate_support(name, expand):
    case = CASES[name]
    td = _torch_dist(case)
    d = case.make(jd, *[jtorch.tensor(p) for p in case.params])
    assert_close(d.enumerate_support(expand), td.enumerate_support(expand))


def test_kumaraswamy_mode():
    # the mode of a x^(a-1) (1 - x^a)^(b-1): ((a - 1) / (a b - 1))^(1/a) for a, b >= 1
    a = np.array([0.5, 2.0, 3.0, 1.5])
    b = np.array([2.0, 0.5, 4.0, 1.0])
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = np.where((a >= 1) & (b >= 1), ((a - 1) / (a * b - 1)) ** (1 / a), np.nan)
    mode = jd.Kumaraswamy(jtorch.tensor(a), jtorch.tensor(b)).mode
    np.testing.assert_allclose(mode.numpy(), expected, rtol=1e-12)


def test_generalized_pareto_float32_log_prob_and_cdf():
    # PyTorch computes these for float32 parameters only (float64 raises there)
    loc, scale = np.array([-0.5, 0.0, 0.2], np.float32), np.array([0.5, 1.0, 2.0], np.float32)
    conc = np.array([-0.2, 0.0, 0.3], np.float32)
    value = np.array([0.1, 0.5, 1.5], np.float32)

    def fn(T, loc, scale, conc, x):
        d = T.distributions.GeneralizedPareto(loc, scale, conc)
        return d.log_prob(x), d.cdf(x)

    parity(fn, loc, scale, conc, NoGrad(value))


def test_float32_parameters_keep_float32():
    d = jd.Normal(jtorch.zeros(3), jtorch.ones(3))
    assert d.log_prob(jtorch.zeros(3)).dtype == jtorch.float32
    assert d.rsample().dtype == jtorch.float32
    g = jd.Gamma(jtorch.ones(3), 2.0)
    assert g.rsample((2,)).dtype == jtorch.float32
    assert jd.Normal(0.0, 1.0).sample().dtype == jtorch.float32


def test_scalar_parameters():
    def fn(T, x):
        D = T.distributions
        return (D.Normal(0.5, 2.0).log_prob(x), D.Gamma(2.0, 3.0).log_prob(x.abs()),
                D.Beta(2.0, 3.0).entropy(), D.Poisson(3.0).log_prob(T.tensor(2.0)))

    parity(fn, np.array([0.3, 1.5], np.float32))


def _public_names(mod):
    """The names ``mod`` defines or exports (its own and its submodules), not those it merely
    imports (math, typing, torch...)."""
    out = []
    for n in dir(mod):
        obj = getattr(mod, n)
        if n.startswith("_"):
            continue
        own = getattr(obj, "__module__", None) == mod.__name__
        sub = isinstance(obj, types.ModuleType) and obj.__name__.startswith(mod.__name__ + ".")
        if n in getattr(mod, "__all__", ()) or own or sub:
            out.append(n)
    return out


@pytest.mark.parametrize("module", ["", "constraints", "transforms", "constraint_registry",
                                    "kl", "utils"])
def test_every_public_name_exists(module):
    tm = getattr(torch.distributions, module) if module else torch.distributions
    jm = getattr(jd, module) if module else jd
    assert [n for n in _public_names(tm) if not hasattr(jm, n)] == []
    assert sorted(getattr(jm, "__all__", [])) == sorted(getattr(tm, "__all__", []))
