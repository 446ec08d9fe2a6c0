"""The distributions the parity tests build, each from identical NumPy parameters in torch and
jtorch: ``CASES[name] = Case(make, params, value)``.

``make(D, *params)`` builds the distribution from a ``distributions`` module ``D``
(``torch.distributions`` or ``jtorch.distributions``) and parameter tensors; ``value`` is a
point of the support with the distribution's batch shape (a NumPy array, float64 unless the
case says otherwise), ``discrete`` marks values that carry no gradient.
"""

from __future__ import annotations

import dataclasses

import numpy as np

_RNG = np.random.default_rng(1234)


def _u(lo, hi, *shape):
    return _RNG.uniform(lo, hi, shape)


def _spd(n, *batch):
    a = _RNG.normal(size=(*batch, n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def _tril(n, *batch):
    return np.linalg.cholesky(_spd(n, *batch))


def _simplex(*shape):
    p = _u(0.2, 1.0, *shape)
    return p / p.sum(-1, keepdims=True)


def _onehot(k, *batch):
    idx = _RNG.integers(0, k, batch)
    return np.eye(k)[idx]


@dataclasses.dataclass
class Case:
    make: object
    params: tuple
    value: np.ndarray
    discrete: bool = False


def _transformed(D, loc, scale):
    T = D.transforms
    return D.TransformedDistribution(D.Normal(loc, scale),
                                     [T.AffineTransform(1.0, 2.0), T.ExpTransform()])


def _mixture(D, logits, loc, scale):
    return D.MixtureSameFamily(D.Categorical(logits=logits), D.Normal(loc, scale))


CASES = {
    "Normal": Case(lambda D, a, b: D.Normal(a, b), (_u(-1, 1, 2, 3), _u(0.5, 2, 2, 3)),
                   _u(-2, 2, 2, 3)),
    "Uniform": Case(lambda D, a, b: D.Uniform(a, a + b), (_u(-1, 0, 3), _u(1, 2, 3)),
                    _u(0, 0.9, 3)),
    "Bernoulli_probs": Case(lambda D, p: D.Bernoulli(probs=p), (_u(0.1, 0.9, 4),),
                            np.array([0.0, 1.0, 1.0, 0.0]), True),
    "Bernoulli_logits": Case(lambda D, lg: D.Bernoulli(logits=lg), (_u(-2, 2, 4),),
                             np.array([0.0, 1.0, 1.0, 0.0]), True),
    "Categorical_probs": Case(lambda D, p: D.Categorical(probs=p), (_simplex(2, 4),),
                              np.array([1, 3]), True),
    "Categorical_logits": Case(lambda D, lg: D.Categorical(logits=lg), (_u(-2, 2, 2, 4),),
                               np.array([0, 2]), True),
    "OneHotCategorical": Case(lambda D, p: D.OneHotCategorical(probs=p), (_simplex(2, 4),),
                              _onehot(4, 2), True),
    "Beta": Case(lambda D, a, b: D.Beta(a, b), (_u(0.5, 3, 3), _u(0.5, 3, 3)), _u(0.1, 0.9, 3)),
    "Gamma": Case(lambda D, a, b: D.Gamma(a, b), (_u(0.5, 3, 3), _u(0.5, 2, 3)), _u(0.2, 3, 3)),
    "Dirichlet": Case(lambda D, a: D.Dirichlet(a), (_u(0.5, 3, 2, 3),), _simplex(2, 3)),
    "Exponential": Case(lambda D, r: D.Exponential(r), (_u(0.5, 2, 3),), _u(0.1, 3, 3)),
    "Laplace": Case(lambda D, a, b: D.Laplace(a, b), (_u(-1, 1, 3), _u(0.5, 2, 3)),
                    _u(-2, 2, 3)),
    "LogNormal": Case(lambda D, a, b: D.LogNormal(a, b), (_u(-1, 1, 3), _u(0.5, 1, 3)),
                      _u(0.2, 3, 3)),
    "MultivariateNormal_tril": Case(lambda D, m, L: D.MultivariateNormal(m, scale_tril=L),
                                    (_u(-1, 1, 2, 3), _tril(3, 2)), _u(-1, 1, 2, 3)),
    "MultivariateNormal_cov": Case(lambda D, m, c: D.MultivariateNormal(m, covariance_matrix=c),
                                   (_u(-1, 1, 3), _spd(3)), _u(-1, 1, 3)),
    "MultivariateNormal_prec": Case(lambda D, m, c: D.MultivariateNormal(m, precision_matrix=c),
                                    (_u(-1, 1, 3), _spd(3)), _u(-1, 1, 3)),
    "Poisson": Case(lambda D, r: D.Poisson(r), (_u(0.5, 4, 3),), np.array([0.0, 2.0, 5.0]),
                    True),
    "Binomial": Case(lambda D, p: D.Binomial(10, probs=p), (_u(0.1, 0.9, 3),),
                     np.array([0.0, 4.0, 10.0]), True),
    "Binomial_logits": Case(lambda D, lg: D.Binomial(7, logits=lg), (_u(-2, 2, 3),),
                            np.array([1.0, 3.0, 7.0]), True),
    "Independent": Case(lambda D, a, b: D.Independent(D.Normal(a, b), 1),
                        (_u(-1, 1, 2, 3), _u(0.5, 2, 2, 3)), _u(-2, 2, 2, 3)),
    "TransformedDistribution": Case(_transformed, (_u(-0.5, 0.5, 3), _u(0.3, 0.6, 3)),
                                    _u(1.5, 20, 3)),
    "Cauchy": Case(lambda D, a, b: D.Cauchy(a, b), (_u(-1, 1, 3), _u(0.5, 2, 3)), _u(-2, 2, 3)),
    "HalfNormal": Case(lambda D, s: D.HalfNormal(s), (_u(0.5, 2, 3),), _u(0.1, 2, 3)),
    "HalfCauchy": Case(lambda D, s: D.HalfCauchy(s), (_u(0.5, 2, 3),), _u(0.1, 2, 3)),
    "Chi2": Case(lambda D, df: D.Chi2(df), (_u(1, 5, 3),), _u(0.2, 4, 3)),
    "StudentT": Case(lambda D, df, a, b: D.StudentT(df, a, b),
                     (_u(2.5, 6, 3), _u(-1, 1, 3), _u(0.5, 2, 3)), _u(-2, 2, 3)),
    "Geometric": Case(lambda D, p: D.Geometric(p), (_u(0.2, 0.8, 3),),
                      np.array([0.0, 1.0, 4.0]), True),
    "Gumbel": Case(lambda D, a, b: D.Gumbel(a, b), (_u(-1, 1, 3), _u(0.5, 2, 3)), _u(-2, 2, 3)),
    "RelaxedBernoulli": Case(lambda D, t, p: D.RelaxedBernoulli(t, probs=p),
                             (np.array(0.7), _u(0.2, 0.8, 3)), _u(0.1, 0.9, 3)),
    "RelaxedOneHotCategorical": Case(lambda D, t, p: D.RelaxedOneHotCategorical(t, probs=p),
                                     (np.array(0.7), _simplex(2, 3)), _simplex(2, 3)),
    "LogisticNormal": Case(lambda D, a, b: D.LogisticNormal(a, b),
                           (_u(-1, 1, 2), _u(0.5, 1, 2)), _simplex(3)),
    "ContinuousBernoulli": Case(lambda D, p: D.ContinuousBernoulli(p),
                                (np.array([0.2, 0.45, 0.7]),), _u(0.1, 0.9, 3)),
    "VonMises": Case(lambda D, a, k: D.VonMises(a, k), (_u(-1, 1, 3), _u(0.5, 3, 3)),
                     _u(-3, 3, 3)),
    "Pareto": Case(lambda D, s, a: D.Pareto(s, a), (_u(0.5, 1, 3), _u(2.5, 4, 3)),
                   _u(1.1, 3, 3)),
    "Weibull": Case(lambda D, s, c: D.Weibull(s, c), (_u(0.5, 2, 3), _u(0.5, 2, 3)),
                    _u(0.1, 2, 3)),
    "Kumaraswamy": Case(lambda D, a, b: D.Kumaraswamy(a, b), (_u(0.5, 3, 3), _u(0.5, 3, 3)),
                        _u(0.1, 0.9, 3)),
    "FisherSnedecor": Case(lambda D, a, b: D.FisherSnedecor(a, b),
                           (_u(1, 5, 3), _u(4.5, 8, 3)), _u(0.2, 3, 3)),
    "InverseGamma": Case(lambda D, a, b: D.InverseGamma(a, b), (_u(2.5, 4, 3), _u(0.5, 2, 3)),
                         _u(0.2, 3, 3)),
    "GeneralizedPareto": Case(lambda D, a, b, c: D.GeneralizedPareto(a, b, c),
                              (_u(-1, 0, 3), _u(0.5, 2, 3), _u(0.05, 0.3, 3)), _u(0.1, 2, 3)),
    "NegativeBinomial": Case(lambda D, c, p: D.NegativeBinomial(c, probs=p),
                             (_u(1, 5, 3), _u(0.2, 0.8, 3)), np.array([0.0, 2.0, 5.0]), True),
    "Multinomial": Case(lambda D, p: D.Multinomial(6, probs=p), (_simplex(2, 3),),
                        np.array([[1.0, 2.0, 3.0], [6.0, 0.0, 0.0]]), True),
    "LowRankMultivariateNormal": Case(lambda D, m, f, d: D.LowRankMultivariateNormal(m, f, d),
                                      (_u(-1, 1, 3), _u(-1, 1, 3, 2), _u(0.5, 2, 3)),
                                      _u(-1, 1, 3)),
    "MixtureSameFamily": Case(_mixture, (_u(-1, 1, 3), _u(-1, 1, 3), _u(0.5, 2, 3)),
                              np.asarray(_u(-2, 2))),
    "Wishart": Case(lambda D, df, c: D.Wishart(df, covariance_matrix=c),
                    (np.array(5.0), _spd(3)), _spd(3)),
    "LKJCholesky": Case(lambda D, c: D.LKJCholesky(3, c), (np.array(1.5),),
                        np.linalg.cholesky(np.array([[1.0, 0.3, 0.1], [0.3, 1.0, 0.2],
                                                     [0.1, 0.2, 1.0]]))),
}
