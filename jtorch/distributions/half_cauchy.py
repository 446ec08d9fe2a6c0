"""torch.distributions.HalfCauchy."""

from __future__ import annotations

import math

from ._half import Half
from ._params import filled_property
from .cauchy import Cauchy

__all__ = ["HalfCauchy"]


class HalfCauchy(Half):
    """HalfCauchy(scale, validate_args=None): ``|X|`` for ``X ~ Cauchy(0, scale)``; its
    mean and variance are infinite."""

    _symmetric = Cauchy

    mean = filled_property(math.inf, "scale")
    variance = filled_property(math.inf, "scale")
