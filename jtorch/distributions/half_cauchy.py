"""torch.distributions.HalfCauchy."""

from __future__ import annotations

import math

from ._half import Half
from ._params import full_of
from .cauchy import Cauchy

__all__ = ["HalfCauchy"]


class HalfCauchy(Half):
    """HalfCauchy(scale, validate_args=None): ``|X|`` for ``X ~ Cauchy(0, scale)``; its
    mean and variance are infinite."""

    _symmetric = Cauchy

    @property
    def mean(self):
        return full_of(self, math.inf, self.scale)

    @property
    def variance(self):
        return full_of(self, math.inf, self.scale)
