"""torch.distributions.Gumbel."""

from __future__ import annotations

import math

from . import _lib as jt, constraints
from ._forward import forwarded_property
from ._transforms_elementwise import AffineTransform, ExpTransform
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform
from .utils import broadcast_all

__all__ = ["Gumbel"]

EULER = 0.57721566490153286060


class Gumbel(TransformedDistribution):
    """Gumbel(loc, scale, validate_args=None): the type-I extreme value distribution,
    ``loc - scale * log(-log(U))`` for ``U`` uniform on (0, 1)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        info = jt.finfo(self.loc.dtype)
        base = Uniform(jt.full_like(self.loc, info.tiny), jt.full_like(self.loc, 1 - info.eps),
                       validate_args=validate_args)
        transforms = [ExpTransform().inv, AffineTransform(0, -jt.ones_like(self.scale)),
                      ExpTransform().inv, AffineTransform(self.loc, -self.scale)]
        super().__init__(base, transforms, validate_args=validate_args)

    def log_prob(self, value):
        self._validate(value)
        z = (self.loc - value) / self.scale
        return (z - z.exp()) - self.scale.log()

    @property
    def mean(self):
        return self.loc + self.scale * EULER

    mode = forwarded_property("loc")

    @property
    def stddev(self):
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def entropy(self):
        return self.scale.log() + (1 + EULER)
