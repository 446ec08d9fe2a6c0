"""torch.distributions.HalfCauchy."""

from __future__ import annotations

import math

from . import _lib as jt
from ._half import Half
from ._params import filled_property
from .cauchy import Cauchy

__all__ = ["HalfCauchy"]


class HalfCauchy(Half):
    """HalfCauchy(scale, validate_args=None): ``|X|`` for ``X ~ Cauchy(0, scale)``; its
    mean and variance are infinite."""

    _symmetric = Cauchy

    def log_prob(self, value):
        # PyTorch casts the value to the scale's dtype first (HalfNormal does not)
        self._validate(value)
        value = jt.as_tensor(value, dtype=self.scale.dtype, device=self.scale.device)
        return super().log_prob(value)

    mean = filled_property(math.inf, "scale")
    variance = filled_property(math.inf, "scale")
