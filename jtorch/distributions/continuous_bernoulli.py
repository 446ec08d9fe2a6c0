"""torch.distributions.ContinuousBernoulli."""

from __future__ import annotations

import math

from . import _lib as jt, _noise, constraints
from ._math import atanh
from ._params import BinaryProbs
from .bernoulli import binary_log_prob
from .distribution import Distribution
from .exp_family import ExponentialFamily

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(BinaryProbs, ExponentialFamily):
    """ContinuousBernoulli(probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
    the density ``C(p) p^x (1 - p)^(1 - x)`` on [0, 1] (Loaiza-Ganem and Cunningham, 2019).

    Its formulas divide by ``1 - 2p``: for ``p`` inside ``lims`` Taylor expansions about
    ``p = 1/2`` replace them.
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        self._set_probs_or_logits(probs, logits)
        self._lims = lims
        Distribution.__init__(self, self._param.shape, validate_args=validate_args)

    # ---------------------------------------------------------------- near p = 1/2
    def _stable(self):
        """Whether each ``probs`` lies outside ``lims`` (where the exact formulas are
        accurate)."""
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _safe_probs(self):
        """``probs`` outside ``lims``, ``lims[0]`` inside (the exact branch of a where must
        stay finite there for its gradient)."""
        return jt.where(self._stable(), self.probs, self._lims[0])

    def _exact_or_taylor(self, exact, taylor):
        return jt.where(self._stable(), exact, taylor)

    def _log_norm(self):
        """``log C(p)``, ``C(p) = 2 atanh(1 - 2p) / (1 - 2p)``."""
        p = self._safe_probs()
        u = 1 - 2 * p
        exact = (2 * atanh(u)).abs().log() - u.abs().log()
        x = (self.probs - 0.5).pow(2)
        return self._exact_or_taylor(exact, math.log(2) + (4 / 3 + 104 / 45 * x) * x)

    @property
    def mean(self):
        p = self._safe_probs()
        exact = p / (2 * p - 1) + 1 / (2 * atanh(1 - 2 * p))
        x = self.probs - 0.5
        return self._exact_or_taylor(exact, 0.5 + (1 / 3 + 16 / 45 * x.pow(2)) * x)

    @property
    def stddev(self):
        return self.variance.sqrt()

    @property
    def variance(self):
        p = self._safe_probs()
        eta = p.log() - (-p).log1p()
        exact = p * (p - 1) / (1 - 2 * p).pow(2) + eta.pow(-2)
        x = (self.probs - 0.5).pow(2)
        return self._exact_or_taylor(exact, 1 / 12 - (1 / 15 + 128 / 945 * x) * x)

    def rsample(self, sample_shape=()):
        return self.icdf(_noise.uniform(self._extended_shape(sample_shape), self.probs))

    def log_prob(self, value):
        self._validate(value)
        return binary_log_prob(self.logits, value) + self._log_norm()

    def cdf(self, value):
        self._validate(value)
        p = self._safe_probs()
        exact = (p.pow(value) * (1 - p).pow(1 - value) + p - 1) / (2 * p - 1)
        inside = self._exact_or_taylor(exact, value)
        return jt.where(value <= 0, 0.0, jt.where(value >= 1, 1.0, inside))

    def icdf(self, value):
        p = self._safe_probs()
        exact = ((-p + value * (2 * p - 1)).log1p() - (-p).log1p()) / (p.log() - (-p).log1p())
        return self._exact_or_taylor(exact, value)

    def entropy(self):
        log_q, log_p = (-self.probs).log1p(), self.probs.log()
        return self.mean * (log_q - log_p) - self._log_norm() - log_q

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        """``log((e^x - 1) / x)``, the log normaliser in the natural parameter."""
        lo, hi = self._lims[0] - 0.5, self._lims[1] - 0.5
        stable = (x <= lo) | (x > hi)
        safe = jt.where(stable, x, lo)
        exact = safe.expm1().abs().log() - safe.abs().log()
        return jt.where(stable, exact, 0.5 * x + x.pow(2) / 24 - x.pow(4) / 2880)
