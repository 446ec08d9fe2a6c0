"""KL divergences with closed forms of their own: the discrete families, Dirichlet, Cauchy,
Normal and HalfNormal, the multivariate normals, and the structural rules (Independent,
TransformedDistribution, ExponentialFamily)."""

from __future__ import annotations

import math

from . import _lib as jt
from ._gaussian import half_log_det, mahalanobis, solve_lower
from ._math import softplus
from .bernoulli import Bernoulli
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .dirichlet import Dirichlet
from .exp_family import ExponentialFamily, batch_dot, log_normalizer_and_grad
from .geometric import Geometric
from .half_normal import HalfNormal
from .independent import Independent
from .kl import kl_divergence, register_kl
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .poisson import Poisson
from .transformed_distribution import TransformedDistribution
from .utils import _sum_rightmost


# ------------------------------------------------------------------ discrete
def _plogp_ratio(p, log_p, q, log_q):
    """``p (log p - log q)``: 0 where p = 0, infinite where q = 0 < p."""
    term = jt.where(q == 0, math.inf, p * (log_p - log_q))
    return jt.where(p == 0, 0.0, term)


def _bernoulli_terms(p, q):
    """Both outcomes' ``p (log p - log q)`` of two Bernoulli laws (log p = -softplus(-logit))
    """
    ones = _plogp_ratio(p.probs, -softplus(-p.logits), q.probs, -softplus(-q.logits))
    zeros = _plogp_ratio(1 - p.probs, -softplus(p.logits), 1 - q.probs, -softplus(q.logits))
    return ones + zeros


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    return _bernoulli_terms(p, q)


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    # more trials under q than under p: no closed form (eager check only)
    more = p.total_count < q.total_count
    if not jt.is_traced(more) and bool(more.any()):
        raise NotImplementedError("KL between Binomials where q.total_count > "
                                  "p.total_count is not implemented")
    kl = p.total_count * _bernoulli_terms(p, q)
    return jt.where(p.total_count > q.total_count, math.inf, kl)


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    return _plogp_ratio(p.probs, p.logits, q.probs, q.logits).sum(-1)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    # E_p[k] = 1 / p - 1 failures of log(1 - q) each, one success of log q
    return -p.entropy() - (-q.probs).log1p() / p.probs - q.logits


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p, q):
    # E_p[log q(k)] = P(k = 1) log(rate) - rate
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


@register_kl(Poisson, Bernoulli)
@register_kl(Poisson, Binomial)
def _kl_poisson_infinity(p, q):
    return jt.full_like(p.rate, math.inf)


# ------------------------------------------------------------------ continuous
@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    a, b = p.concentration, q.concentration
    a0 = a.sum(-1)
    log_norms = a0.lgamma() - b.sum(-1).lgamma() - (a.lgamma() - b.lgamma()).sum(-1)
    return log_norms + ((a - b) * (a.digamma() - a0.digamma().unsqueeze(-1))).sum(-1)


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    return ((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log() - \
        (4 * p.scale * q.scale).log()


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    shift = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + shift - 1 - var_ratio.log())


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p, q):
    return _kl_normal_normal(p.base_dist, q.base_dist)


# ------------------------------------------------------------------ multivariate normals
def _gaussian_kl(p_loc, p_tril, q_loc, q_tril):
    """KL between N(p_loc, L_p L_p^T) and N(q_loc, L_q L_q^T): half of
    tr(S_q^-1 S_p) + Mahalanobis(shift) - n + log det S_q - log det S_p."""
    n = p_loc.shape[-1]
    trace = solve_lower(q_tril, p_tril).pow(2).sum(-1).sum(-1)
    maha = mahalanobis(q_tril, q_loc - p_loc)
    return half_log_det(q_tril) - half_log_det(p_tril) + 0.5 * (trace + maha - n)


def _loc_and_tril(d):
    if isinstance(d, MultivariateNormal):
        return d.loc, d._unbroadcasted_scale_tril
    return d.loc, d.scale_tril


@register_kl(MultivariateNormal, MultivariateNormal)
@register_kl(MultivariateNormal, LowRankMultivariateNormal)
@register_kl(LowRankMultivariateNormal, MultivariateNormal)
@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(p, q):
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two Multivariate Normals with different "
                         "event shapes cannot be computed")
    kl = _gaussian_kl(*_loc_and_tril(p), *_loc_and_tril(q))
    return kl.expand(jt.broadcast_shapes(tuple(p.batch_shape), tuple(q.batch_shape)))


# ------------------------------------------------------------------ structural
@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist),
                          p.reinterpreted_batch_ndims)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p, q):
    # a bijection leaves the divergence unchanged
    if p.transforms != q.transforms or p.event_shape != q.event_shape:
        raise NotImplementedError
    extra = len(p.event_shape) - len(p.base_dist.event_shape)
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist), extra)


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    """The Bregman divergence of the log normaliser:
    A(eta_q) - A(eta_p) - <eta_q - eta_p, grad A(eta_p)>."""
    if type(p) is not type(q):
        raise NotImplementedError("The cross KL-divergence between different exponential "
                                  "families cannot be computed using Bregman divergences")
    eta_p, a_p, grads = log_normalizer_and_grad(p)
    eta_q = q._natural_params
    diff = [eq - ep for eq, ep in zip(eta_q, eta_p)]
    return q._log_normalizer(*eta_q) - a_p - batch_dot(p, diff, grads)
