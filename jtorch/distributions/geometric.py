"""torch.distributions.Geometric."""

from __future__ import annotations

from . import _lib as jt, _noise, constraints
from ._params import BinaryProbs
from .bernoulli import binary_log_prob
from .distribution import Distribution

__all__ = ["Geometric"]


class Geometric(BinaryProbs, Distribution):
    """Geometric(probs=None, logits=None, validate_args=None): the number of failures
    before the first success in Bernoulli(probs) trials (support 0, 1, 2, ...)."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._set_probs_or_logits(probs, logits)
        Distribution.__init__(self, self._param.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.probs.reciprocal() - 1

    @property
    def mode(self):
        return jt.zeros_like(self.probs)

    @property
    def variance(self):
        return (self.probs.reciprocal() - 1) / self.probs

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with jt.no_grad():
            u = _noise.uniform(shape, self.probs)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        self._validate(value)
        p = self.probs
        # value * log(1 - p), with 0 * log(0) = 0 when p = 1 and value = 0
        failures = jt.where((p == 1) & (value == 0), 0.0, value * (-p).log1p())
        return failures + p.log()

    def entropy(self):
        return -binary_log_prob(self.logits, self.probs) / self.probs
