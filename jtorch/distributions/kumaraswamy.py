"""torch.distributions.Kumaraswamy."""

from __future__ import annotations

import math

from . import _lib as jt, constraints
from ._transforms_elementwise import AffineTransform, PowerTransform
from .gumbel import EULER
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform
from .utils import broadcast_all

__all__ = ["Kumaraswamy"]


def _moment(a, b, n):
    """``E[x^n] = b B(1 + n / a, b)`` for Kumaraswamy(a, b)."""
    return b * ((1 + n / a).lgamma() + b.lgamma() - (1 + n / a + b).lgamma()).exp()


class Kumaraswamy(TransformedDistribution):
    """Kumaraswamy(concentration1, concentration0, validate_args=None): density
    ``a b x^(a - 1) (1 - x^a)^(b - 1)`` on (0, 1) for ``a = concentration1`` and
    ``b = concentration0``: ``(1 - U^(1 / b))^(1 / a)`` for ``U`` uniform.

    Differences from PyTorch:
        - ``mode`` is ``((a - 1) / (a b - 1))^(1 / a)`` for a >= 1, b >= 1 (NaN otherwise);
          PyTorch 2.13's formula gives NaN for every parameter.
    """

    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1,
                                                                 concentration0)
        a, b = self.concentration1, self.concentration0
        base = Uniform(jt.zeros_like(a), jt.ones_like(a), validate_args=validate_args)
        transforms = [PowerTransform(b.reciprocal()), AffineTransform(1.0, -1.0),
                      PowerTransform(a.reciprocal())]
        super().__init__(base, transforms, validate_args=validate_args)

    @property
    def mean(self):
        return _moment(self.concentration1, self.concentration0, 1)

    @property
    def mode(self):
        a, b = self.concentration1, self.concentration0
        inside = (a >= 1) & (b >= 1)
        mode = ((a - 1) / (a * b - 1)).pow(a.reciprocal())
        return jt.where(inside, mode, math.nan)

    @property
    def variance(self):
        a, b = self.concentration1, self.concentration0
        return _moment(a, b, 2) - self.mean.pow(2)

    def entropy(self):
        a, b = self.concentration1, self.concentration0
        harmonic = EULER + (b + 1).digamma()  # the harmonic number H_b
        return (1 - a.reciprocal()) * harmonic + (1 - b.reciprocal()) - (a * b).log()
