"""KL divergences between the continuous univariate families (Beta, ContinuousBernoulli,
Exponential, Gamma, Gumbel, Laplace, Normal, Pareto, Uniform), within a family and across.

Each is ``KL(p || q) = -H(p) + CE(p, q)``, the cross-entropy ``CE(p, q) = -E_p[log q(x)]``
computed from the expectations under ``p`` that ``q``'s log density needs (mean, variance,
E[log x], E[log(1 - x)], E[exp(t x)], E|x - m|). Where ``p``'s support reaches outside
``q``'s the divergence is infinite: statically for the pairs whose supports never nest
(Normal against Beta...), per batch member where the bounds are parameters (Uniform,
Pareto).
"""

from __future__ import annotations

import math

from . import _lib as jt
from .beta import Beta
from .continuous_bernoulli import ContinuousBernoulli
from .exponential import Exponential
from .gamma import Gamma
from .gumbel import EULER, Gumbel
from .kl import register_kl
from .laplace import Laplace
from .normal import Normal
from .pareto import Pareto
from .uniform import Uniform

INF = math.inf


# ------------------------------------------------------------------ expectations under p
def _uniform_mean_xlogx(a, b):
    """``E[log x] + 1`` for x uniform between a and b: (b log b - a log a) / (b - a)."""
    return (b.xlogy(b) - a.xlogy(a)) / (b - a)


MEAN_LOG = {  # E[log x]
    Beta: lambda p: p.concentration1.digamma() - (p.concentration1 +
                                                  p.concentration0).digamma(),
    Exponential: lambda p: -EULER - p.rate.log(),
    Gamma: lambda p: p.concentration.digamma() - p.rate.log(),
    Pareto: lambda p: p.scale.log() + p.alpha.reciprocal(),
    Uniform: lambda p: _uniform_mean_xlogx(p.low, p.high) - 1,
}

MEAN_LOG1M = {  # E[log(1 - x)]
    Beta: lambda p: p.concentration0.digamma() - (p.concentration1 +
                                                  p.concentration0).digamma(),
    Uniform: lambda p: _uniform_mean_xlogx(1 - p.high, 1 - p.low) - 1,
}

MGF = {  # E[exp(t x)]
    Exponential: lambda p, t: p.rate / (p.rate - t),
    Gamma: lambda p, t: (-p.concentration * (-t / p.rate).log1p()).exp(),
    Gumbel: lambda p, t: (p.loc * t + (1 - p.scale * t).lgamma()).exp(),
    Normal: lambda p, t: (p.loc * t + 0.5 * (p.scale * t).pow(2)).exp(),
    Uniform: lambda p, t: ((t * p.high).exp() - (t * p.low).exp()) / (t * (p.high - p.low)),
}


def _normal_mean_abs_dev(p, m):
    d = p.loc - m
    spread = p.scale * math.sqrt(2 / math.pi) * (-0.5 * (d / p.scale).pow(2)).exp()
    return spread + d * (d / (p.scale * math.sqrt(2))).erf()


MEAN_ABS_DEV = {  # E|x - m|
    Normal: _normal_mean_abs_dev,
    Laplace: lambda p, m: (p.loc - m).abs() + p.scale * (-(p.loc - m).abs() / p.scale).exp(),
}

SUPPORT = {  # (lower, upper) bounds
    Beta: lambda d: (0.0, 1.0),
    ContinuousBernoulli: lambda d: (0.0, 1.0),
    Exponential: lambda d: (0.0, INF),
    Gamma: lambda d: (0.0, INF),
    Gumbel: lambda d: (-INF, INF),
    Laplace: lambda d: (-INF, INF),
    Normal: lambda d: (-INF, INF),
    Pareto: lambda d: (d.scale, INF),
    Uniform: lambda d: (d.low, d.high),
}


# ------------------------------------------------------------------ cross-entropies -E_p[log q]
def _ce_normal(P, p, q):
    var = q.scale.pow(2)
    return 0.5 * (2 * math.pi * var).log() + (p.variance + (p.mean - q.loc).pow(2)) / (2 * var)


def _ce_exponential(P, p, q):
    return -q.rate.log() + q.rate * p.mean


def _ce_gamma(P, p, q):
    a, b = q.concentration, q.rate
    return -a * b.log() + a.lgamma() - (a - 1) * MEAN_LOG[P](p) + b * p.mean


def _ce_gumbel(P, p, q):
    t = -q.scale.reciprocal()
    return (q.scale.log() + (p.mean - q.loc) / q.scale
            + (q.loc / q.scale).exp() * MGF[P](p, t))


def _ce_laplace(P, p, q):
    return (2 * q.scale).log() + MEAN_ABS_DEV[P](p, q.loc) / q.scale


def _ce_beta(P, p, q):
    a, b = q.concentration1, q.concentration0
    log_beta = a.lgamma() + b.lgamma() - (a + b).lgamma()
    return log_beta - (a - 1) * MEAN_LOG[P](p) - (b - 1) * MEAN_LOG1M[P](p)


def _ce_continuous_bernoulli(P, p, q):
    return -(p.mean * q.logits + (-q.probs).log1p() + q._log_norm())


def _ce_pareto(P, p, q):
    return -q.alpha.log() - q.alpha * q.scale.log() + (q.alpha + 1) * MEAN_LOG[P](p)


def _ce_uniform(P, p, q):
    return (q.high - q.low).log()


CROSS_ENTROPY = {Normal: _ce_normal, Exponential: _ce_exponential, Gamma: _ce_gamma,
                 Gumbel: _ce_gumbel, Laplace: _ce_laplace, Beta: _ce_beta,
                 ContinuousBernoulli: _ce_continuous_bernoulli, Pareto: _ce_pareto,
                 Uniform: _ce_uniform}


# ------------------------------------------------------------------ the rules
def _outside(a, b):
    """``a < b`` for bounds that are numbers or tensors."""
    return a < b


def _kl_by_cross_entropy(P, Q):
    def kl(p, q):
        value = CROSS_ENTROPY[Q](P, p, q) - p.entropy()
        (p_lo, p_hi), (q_lo, q_hi) = SUPPORT[P](p), SUPPORT[Q](q)
        escapes = [m for m in (_outside(p_lo, q_lo), _outside(q_hi, p_hi))
                   if not isinstance(m, bool)]
        for mask in escapes:
            value = jt.where(mask, INF, value)
        return value

    kl.__name__ = f"_kl_{P.__name__.lower()}_{Q.__name__.lower()}"
    return kl


def _infinite(p, q):
    """The KL where ``p``'s support is never inside ``q``'s (with ``p``'s batch shape, as
    PyTorch)."""
    like = p.mean
    return jt.full(p.batch_shape, INF, dtype=like.dtype, device=like.device)


FINITE = {
    Beta: (Beta, ContinuousBernoulli, Exponential, Gamma, Normal, Uniform),
    ContinuousBernoulli: (ContinuousBernoulli, Exponential, Normal, Uniform),
    Exponential: (Exponential, Gamma, Gumbel, Normal),
    Gamma: (Exponential, Gamma, Gumbel, Normal),
    Gumbel: (Gumbel, Normal),
    Laplace: (Laplace, Normal),
    Normal: (Gumbel, Laplace),  # Normal-Normal has its closed form in _kl_same
    Pareto: (Exponential, Gamma, Normal, Pareto),
    Uniform: (Beta, ContinuousBernoulli, Exponential, Gamma, Gumbel, Normal, Pareto, Uniform),
}
INFINITE = {
    Beta: (Pareto,),
    ContinuousBernoulli: (Pareto,),
    Exponential: (Beta, ContinuousBernoulli, Pareto, Uniform),
    Gamma: (Beta, ContinuousBernoulli, Pareto, Uniform),
    Gumbel: (Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform),
    Laplace: (Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform),
    Normal: (Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform),
    Pareto: (Beta, ContinuousBernoulli, Uniform),
}

for _P, _Qs in FINITE.items():
    for _Q in _Qs:
        register_kl(_P, _Q)(_kl_by_cross_entropy(_P, _Q))
for _P, _Qs in INFINITE.items():
    for _Q in _Qs:
        register_kl(_P, _Q)(_infinite)
