"""torch.distributions.Normal."""

from __future__ import annotations

import math

from . import _noise
from ._forward import forwarded_property
from ._location_scale import LocationScale
from .exp_family import ExponentialFamily

__all__ = ["Normal"]

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


class Normal(LocationScale, ExponentialFamily):
    """Normal(loc, scale, validate_args=None): the normal (Gaussian) distribution with mean
    ``loc`` and standard deviation ``scale``.

    Args:
        loc (float or Tensor): the mean.
        scale (float or Tensor): the standard deviation (> 0).
        validate_args (bool, optional): check the arguments (and values) against the
            constraints; default ``Distribution``'s setting.

    Example:
        >>> m = Normal(torch.tensor([0.0]), torch.tensor([1.0]))
        >>> m.sample()  # normally distributed with loc=0 and scale=1
    """

    _standard_entropy = 0.5 + _LOG_SQRT_2PI

    def _standard_log_prob(self, z):
        return -0.5 * z * z - _LOG_SQRT_2PI

    def _standard_cdf(self, z):
        return 0.5 * (1 + (z * (0.5 ** 0.5)).erf())

    def _standard_icdf(self, q):
        return (2 * q - 1).erfinv() * math.sqrt(2)

    def _standard_sample(self, shape):
        return _noise.normal(shape, self.loc)

    mean = forwarded_property("loc")
    stddev = forwarded_property("scale")

    def log_prob(self, value):
        # PyTorch's formula, not the location-scale form: the variance and log(scale) are
        # rounded in the parameters' dtype, which shows when the value's dtype is wider
        # (GPyTorch's float32 prior parameters scoring float64 hyperparameters)
        value = self._validate(value)
        var = self.scale ** 2
        return -((value - self.loc) ** 2) / (2 * var) - self.scale.log() - _LOG_SQRT_2PI

    @property
    def variance(self):
        return self.scale.pow(2)

    @property
    def _natural_params(self):
        return self.loc / self.scale.pow(2), -0.5 * self.scale.pow(-2)

    def _log_normalizer(self, x, y):
        return -0.25 * x.pow(2) / y + 0.5 * (-math.pi / y).log()
