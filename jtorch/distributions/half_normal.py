"""torch.distributions.HalfNormal."""

from __future__ import annotations

import math

from ._half import Half
from .normal import Normal

__all__ = ["HalfNormal"]


class HalfNormal(Half):
    """HalfNormal(scale, validate_args=None): ``|X|`` for ``X ~ Normal(0, scale)``."""

    _symmetric = Normal

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self):
        return self.scale.pow(2) * (1 - 2 / math.pi)
