"""torch.distributions.Uniform."""

from __future__ import annotations

import math

from . import _noise, constraints
from ._params import init_broadcast
from .distribution import Distribution

__all__ = ["Uniform"]


class Uniform(Distribution):
    """Uniform(low, high, validate_args=None): uniformly distributed on the half-open
    interval ``[low, high)``.

    Args:
        low (float or Tensor): the lower bound (inclusive).
        high (float or Tensor): the upper bound (exclusive).
        validate_args (bool, optional): check the arguments (and values) against the
            constraints; default ``Distribution``'s setting.
    """

    has_rsample = True

    def __init__(self, low, high, validate_args=None):
        init_broadcast(self, validate_args, low=low, high=high)

    @property
    def arg_constraints(self):
        return {"low": constraints.less_than(self.high),
                "high": constraints.greater_than(self.low)}

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.interval(self.low, self.high)

    @property
    def mean(self):
        return (self.high + self.low) / 2

    @property
    def mode(self):
        return math.nan * self.high

    @property
    def stddev(self):
        return (self.high - self.low) / 12 ** 0.5

    @property
    def variance(self):
        return (self.high - self.low).pow(2) / 12

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        u = _noise.uniform(shape, self.low)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value):
        self._validate(value)
        inside = ((self.low <= value) & (value < self.high)).to(self.low.dtype)
        return inside.log() - (self.high - self.low).log()

    def cdf(self, value):
        self._validate(value)
        return ((value - self.low) / (self.high - self.low)).clamp(0, 1)

    def icdf(self, value):
        return self.low + value * (self.high - self.low)

    def entropy(self):
        return (self.high - self.low).log()
