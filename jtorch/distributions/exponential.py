"""torch.distributions.Exponential."""

from __future__ import annotations

from . import _lib as jt, _noise, constraints
from ._params import init_broadcast
from .exp_family import ExponentialFamily

__all__ = ["Exponential"]


class Exponential(ExponentialFamily):
    """Exponential(rate, validate_args=None): density ``rate * exp(-rate * x)`` on x >= 0.

    Args:
        rate (float or Tensor): the rate, 1 / scale (> 0).
        validate_args (bool, optional): check the arguments (and values) against the
            constraints; default ``Distribution``'s setting.
    """

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, rate, validate_args=None):
        init_broadcast(self, validate_args, rate=rate)

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return jt.zeros_like(self.rate)

    @property
    def stddev(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate.pow(-2)

    def rsample(self, sample_shape=()):
        u = _noise.uniform(self._extended_shape(sample_shape), self.rate)
        return -u.log() / self.rate

    def log_prob(self, value):
        self._validate(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        self._validate(value)
        return 1 - (-self.rate * value).exp()

    def icdf(self, value):
        return -(-value).log1p() / self.rate

    def entropy(self):
        return 1.0 - self.rate.log()

    @property
    def _natural_params(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -(-x).log()
