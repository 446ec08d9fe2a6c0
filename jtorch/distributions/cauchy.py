"""torch.distributions.Cauchy."""

from __future__ import annotations

import math

from . import _noise
from ._location_scale import LocationScale
from ._params import filled_property
from .distribution import Distribution

__all__ = ["Cauchy"]


class Cauchy(LocationScale, Distribution):
    """Cauchy(loc, scale, validate_args=None): the Cauchy (Lorentz) distribution, the ratio
    of two independent standard normals, shifted by ``loc`` and scaled by ``scale``. Its mean
    is undefined (NaN) and its variance infinite."""

    _standard_entropy = math.log(4 * math.pi)

    def _standard_log_prob(self, z):
        return -math.log(math.pi) - z.pow(2).log1p()

    def _standard_cdf(self, z):
        return z.atan() / math.pi + 0.5

    def _standard_icdf(self, q):
        return (math.pi * (q - 0.5)).tan()

    def _standard_sample(self, shape):
        return self._standard_icdf(_noise.uniform(shape, self.loc))

    def log_prob(self, value):
        # PyTorch's order: -log(pi) - log(scale) is rounded in the parameters' dtype (it shows
        # when the value's dtype is wider)
        value = self._validate(value)
        z = (value - self.loc) / self.scale
        return -math.log(math.pi) - self.scale.log() - z.pow(2).log1p()

    mean = filled_property(math.nan, "loc")
    variance = filled_property(math.inf, "loc")
