"""torch.distributions.Weibull."""

from __future__ import annotations

from . import _lib as jt, constraints
from ._transforms_elementwise import AffineTransform, PowerTransform
from .exponential import Exponential
from .gumbel import EULER
from .transformed_distribution import TransformedDistribution
from .utils import broadcast_all

__all__ = ["Weibull"]


class Weibull(TransformedDistribution):
    """Weibull(scale, concentration, validate_args=None): ``scale * E^(1 / concentration)``
    for ``E ~ Exponential(1)``."""

    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive

    def __init__(self, scale, concentration, validate_args=None):
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        base = Exponential(jt.ones_like(self.scale), validate_args=validate_args)
        transforms = [PowerTransform(self.concentration_reciprocal),
                      AffineTransform(0, self.scale)]
        super().__init__(base, transforms, validate_args=validate_args)

    @property
    def mean(self):
        return self.scale * self.concentration_reciprocal.add(1).lgamma().exp()

    @property
    def mode(self):
        k = self.concentration
        return self.scale * ((k - 1) / k).pow(self.concentration_reciprocal)

    @property
    def variance(self):
        r = self.concentration_reciprocal
        return self.scale.pow(2) * ((2 * r + 1).lgamma().exp() - (r + 1).lgamma().exp().pow(2))

    def entropy(self):
        return (EULER * (1 - self.concentration_reciprocal)
                + (self.scale * self.concentration_reciprocal).log() + 1)
