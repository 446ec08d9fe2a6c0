"""torch.distributions.NegativeBinomial."""

from __future__ import annotations

from . import _lib as jt, constraints
from ._math import softplus
from ._params import BinaryProbs
from .distribution import Distribution
from .gamma import Gamma
from .utils import lazy_property

__all__ = ["NegativeBinomial"]


class NegativeBinomial(BinaryProbs, Distribution):
    """NegativeBinomial(total_count, probs=None, logits=None, validate_args=None): the
    number of successes (each of probability ``probs``) before ``total_count`` failures."""

    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        (total_count,) = self._set_probs_or_logits(probs, logits, total_count)
        self.total_count = total_count.to(self._param.dtype)
        Distribution.__init__(self, self._param.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.total_count * self.logits.exp()

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / (-self.logits).sigmoid()

    @lazy_property
    def _gamma(self):
        # the Poisson rate of the Gamma-Poisson mixture
        return Gamma(self.total_count, (-self.logits).exp(), validate_args=False)

    def sample(self, sample_shape=()):
        with jt.no_grad():
            return jt.poisson(self._gamma.sample(sample_shape))

    def log_prob(self, value):
        self._validate(value)
        r, logits = self.total_count, self.logits
        # r log(1 - p) + k log p, with log p = -softplus(-logits)
        unnormalized = -r * softplus(logits) - value * softplus(-logits)
        log_norm = (r + value).lgamma() - (1 + value).lgamma() - r.lgamma()
        return unnormalized + jt.where(r + value == 0, 0.0, log_norm)
