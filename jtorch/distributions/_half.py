"""The half distributions (HalfNormal, HalfCauchy): ``|X|`` for ``X`` symmetric about 0 with
scale ``scale``; density, cdf, inverse cdf and entropy follow from ``X``'s."""

from __future__ import annotations

import math

from . import _lib as jt, constraints
from ._forward import forwarded_property
from ._transforms_elementwise import AbsTransform
from .transformed_distribution import TransformedDistribution


class Half(TransformedDistribution):
    """``|X|`` for ``X = symmetric(0, scale)``; subclasses set ``_symmetric`` (the
    distribution class of ``X``)."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _symmetric: type

    def __init__(self, scale, validate_args=None):
        base = self._symmetric(0, scale, validate_args=False)
        super().__init__(base, AbsTransform(), validate_args=validate_args)

    scale = forwarded_property("base_dist.scale")

    @property
    def mode(self):
        return jt.zeros_like(self.scale)

    def log_prob(self, value):
        self._validate(value)
        log_p = self.base_dist.log_prob(value) + math.log(2)
        return jt.where(value >= 0, log_p, -math.inf)

    def cdf(self, value):
        self._validate(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)
