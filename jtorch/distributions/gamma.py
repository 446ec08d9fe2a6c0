"""torch.distributions.Gamma."""

from __future__ import annotations

from . import _lib as jt, constraints
from ._params import init_broadcast
from .exp_family import ExponentialFamily

__all__ = ["Gamma"]


def standard_gamma(concentration, shape):
    """Gamma(concentration, 1) draws of ``shape``, differentiable in the concentration
    (implicit reparameterisation), kept at least the dtype's smallest positive normal."""
    x = jt._standard_gamma(concentration.expand(shape))
    tiny = jt.finfo(x.dtype).tiny
    return x + (x.clamp(min=tiny) - x).detach()


class Gamma(ExponentialFamily):
    """Gamma(concentration, rate, validate_args=None): density proportional to
    ``x^(concentration - 1) exp(-rate x)`` on x >= 0.

    Args:
        concentration (float or Tensor): the shape, alpha (> 0).
        rate (float or Tensor): the rate, beta = 1 / scale (> 0).
        validate_args (bool, optional): check the arguments (and values) against the
            constraints; default ``Distribution``'s setting.
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration, rate, validate_args=None):
        init_broadcast(self, validate_args, concentration=concentration, rate=rate)

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        return standard_gamma(self.concentration, shape) / self.rate.expand(shape)

    def log_prob(self, value):
        self._validate(value)
        a, b = self.concentration, self.rate
        return a.xlogy(b) + (a - 1).xlogy(value) - b * value - a.lgamma()

    def cdf(self, value):
        self._validate(value)
        return jt.special.gammainc(self.concentration, self.rate * value)

    def entropy(self):
        a = self.concentration
        return a - self.rate.log() + a.lgamma() + (1 - a) * a.digamma()

    @property
    def _natural_params(self):
        return self.concentration - 1, -self.rate

    def _log_normalizer(self, x, y):
        return (x + 1).lgamma() + (x + 1) * (-y.reciprocal()).log()
