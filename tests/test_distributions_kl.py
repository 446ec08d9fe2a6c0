"""kl_divergence for every pair torch.distributions registers: values and gradients with
respect to both distributions' parameters, and register_kl / the NotImplementedError for a pair
without a KL."""

import numpy as np
import pytest
import torch
import torch.distributions.kl as tkl
from dist_cases import CASES
from helpers import parity

import jtorch
import jtorch.distributions as jd

# the case that builds each class
CASE_OF = {"Bernoulli": "Bernoulli_probs", "Categorical": "Categorical_probs",
           "MultivariateNormal": "MultivariateNormal_tril"}
PAIRS = sorted((p.__name__, q.__name__) for p, q in tkl._KL_REGISTRY
               if p.__name__ != "ExponentialFamily")
# a few same-family pairs also run under jax.jit (the rest eagerly, to keep
# the file fast; the jit path is the same code)
JIT = {"Normal", "Categorical", "Dirichlet", "MultivariateNormal"}


# q's parameters where the case's batch shape does not fit p's (torch's masked writes in these
# rules need equal shapes)
Q_PARAMS = {("Bernoulli", "Poisson"): (np.array([0.5, 1.0, 2.0, 3.0]),),
            ("Pareto", "Normal"): (np.array([0.1, -0.2, 0.3]), np.array([0.7, 1.2, 2.0]))}


def _other(params):
    """The second distribution's parameters: the first's, rolled along the leading axis."""
    return tuple(np.roll(p, 1, axis=0) if p.ndim else p for p in params)


def test_every_registered_pair_is_registered_in_jtorch():
    names = sorted((p.__name__, q.__name__) for p, q in jd.kl._KL_REGISTRY)
    assert names == sorted((p.__name__, q.__name__) for p, q in tkl._KL_REGISTRY)


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: f"{p[0]}-{p[1]}")
def test_kl_values_and_gradients(pair):
    cp, cq = (CASES[CASE_OF.get(n, n)] for n in pair)
    np_, nq = len(cp.params), len(cq.params)
    q_params = _other(cq.params) if pair[0] == pair[1] else Q_PARAMS.get(pair, cq.params)

    def fn(T, *args):
        p = cp.make(T.distributions, *args[:np_])
        q = cq.make(T.distributions, *args[np_:np_ + nq])
        return T.distributions.kl_divergence(p, q)

    parity(fn, *cp.params, *q_params, jit=pair[0] == pair[1] and pair[0] in JIT)


def test_binomial_kl_with_larger_q_count_raises():
    p = jd.Binomial(3, jtorch.tensor([0.3]))
    q = jd.Binomial(5, jtorch.tensor([0.3]))
    with pytest.raises(NotImplementedError, match="q.total_count > p.total_count"):
        jd.kl_divergence(p, q)


def test_unregistered_pair_raises_and_register_kl_adds_one():
    class MyNormal(jd.Normal):
        pass

    p, q = jd.Normal(0.0, 1.0), jd.VonMises(0.0, 1.0)
    with pytest.raises(NotImplementedError):
        jd.kl_divergence(p, q)

    @jd.register_kl(MyNormal, jd.VonMises)
    def _kl(p, q):
        return p.loc * 0 + 7.0

    assert jd.kl_divergence(MyNormal(0.0, 1.0), q).item() == 7.0
    # a subclass without its own rule uses its parent's, as in PyTorch
    t = torch.distributions
    assert torch.allclose(t.kl_divergence(t.Normal(0.0, 1.0), t.Normal(1.0, 2.0)),
                          torch.tensor(jd.kl_divergence(MyNormal(0.0, 1.0),
                                                        jd.Normal(1.0, 2.0)).item()))
