"""torch.distributions.InverseGamma."""

from __future__ import annotations

import math

from . import _lib as jt, constraints
from ._forward import forwarded_property
from ._transforms_elementwise import PowerTransform
from .gamma import Gamma
from .transformed_distribution import TransformedDistribution

__all__ = ["InverseGamma"]


class InverseGamma(TransformedDistribution):
    """InverseGamma(concentration, rate, validate_args=None): ``1 / X`` for
    ``X ~ Gamma(concentration, rate)``."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        base = Gamma(concentration, rate, validate_args=validate_args)
        neg_one = -jt.ones_like(base.rate)
        super().__init__(base, PowerTransform(neg_one), validate_args=validate_args)

    concentration = forwarded_property("base_dist.concentration")
    rate = forwarded_property("base_dist.rate")

    @property
    def mean(self):
        a = self.concentration
        return jt.where(a > 1, self.rate / (a - 1), math.inf)

    @property
    def mode(self):
        return self.rate / (self.concentration + 1)

    @property
    def variance(self):
        a = self.concentration
        return jt.where(a > 2, self.rate.pow(2) / ((a - 1).pow(2) * (a - 2)), math.inf)

    def entropy(self):
        a = self.concentration
        return a + self.rate.log() + a.lgamma() - (1 + a) * a.digamma()
