"""torch.distributions.Laplace."""

from __future__ import annotations

import math

from . import _noise
from ._forward import forwarded_property
from ._location_scale import LocationScale
from .distribution import Distribution

__all__ = ["Laplace"]


class Laplace(LocationScale, Distribution):
    """Laplace(loc, scale, validate_args=None): the Laplace (double exponential) distribution,
    density ``exp(-|x - loc| / scale) / (2 scale)``.

    Args:
        loc (float or Tensor): the mean.
        scale (float or Tensor): the scale (> 0).
        validate_args (bool, optional): check the arguments (and values) against the
            constraints; default ``Distribution``'s setting.
    """

    _standard_entropy = 1 + math.log(2)

    def _standard_log_prob(self, z):
        return -z.abs() - math.log(2)

    def _standard_cdf(self, z):
        return 0.5 - 0.5 * z.sign() * (-z.abs()).expm1()

    def _standard_icdf(self, q):
        t = q - 0.5
        return -t.sign() * (-2 * t.abs()).log1p()

    def _standard_sample(self, shape):
        return self._standard_icdf(_noise.uniform(shape, self.loc))

    mean = forwarded_property("loc")

    def log_prob(self, value):
        # PyTorch's formula: log(2 scale) is rounded in the parameters' dtype (it shows when
        # the value's dtype is wider)
        value = self._validate(value)
        return -(2 * self.scale).log() - (value - self.loc).abs() / self.scale

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return math.sqrt(2) * self.scale
