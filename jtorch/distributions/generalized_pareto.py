"""torch.distributions.GeneralizedPareto."""

from __future__ import annotations

import math

from . import _lib as jt, _noise, constraints
from ._forward import forwarded_property
from ._params import init_broadcast
from .distribution import Distribution

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """GeneralizedPareto(loc, scale, concentration, validate_args=None): the distribution of
    threshold exceedances, cdf ``1 - (1 + concentration z)^(-1 / concentration)`` for
    ``z = (x - loc) / scale`` (``1 - exp(-z)`` at concentration 0); bounded above by
    ``loc - scale / concentration`` when the concentration is negative.

    Differences from PyTorch:
        - ``log_prob`` and ``cdf`` work for float64 parameters (PyTorch 2.13 raises "Double
          did not match Float" there).
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive,
                       "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        init_broadcast(self, validate_args, loc=loc, scale=scale, concentration=concentration)

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        upper = jt.where(self.concentration < 0, self.loc - self.scale / self.concentration,
                         math.inf)
        return constraints.interval(self.loc, upper)

    def _safe_concentration(self):
        """The concentration where it is not 0, 1 there (for the branch that divides)."""
        c = self.concentration
        return jt.where(c == 0, 1.0, c)

    def log_prob(self, value):
        self._validate(value)
        z = (value - self.loc) / self.scale
        c = self._safe_concentration()
        general = -(1 + c.reciprocal()) * (c * z).log1p()
        return jt.where(self.concentration == 0, -z, general) - self.scale.log()

    def cdf(self, value):
        self._validate(value)
        z = (value - self.loc) / self.scale
        c = self._safe_concentration()
        general = -c.reciprocal() * (c * z).log1p()
        return -jt.where(self.concentration == 0, -z, general).expm1()

    def icdf(self, value):
        tail = -(-value).log1p()  # -log(1 - q)
        c = self._safe_concentration()
        z = jt.where(self.concentration == 0, tail, (c * tail).expm1() / c)
        return self.loc + self.scale * z

    def rsample(self, sample_shape=()):
        return self.icdf(_noise.uniform(self._extended_shape(sample_shape), self.loc))

    @property
    def mean(self):
        c = self.concentration
        return jt.where(c < 1, self.loc + self.scale / (1 - c), math.nan)

    mode = forwarded_property("loc")

    @property
    def variance(self):
        c = self.concentration
        finite = self.scale.pow(2) / ((1 - c).pow(2) * (1 - 2 * c))
        return jt.where(c < 0.5, finite, math.nan)

    def entropy(self):
        return self.scale.log() + self.concentration + 1
