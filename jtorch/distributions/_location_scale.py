"""Location-scale families: ``X = loc + scale * Z`` for a standard distribution ``Z``.

A subclass gives the standard form (log density, cdf, inverse cdf, entropy and a sampler of
``Z``); the parameters, moments' location, ``rsample``, ``log_prob``, ``cdf``, ``icdf`` and
``entropy`` of ``X`` follow here.
"""

from __future__ import annotations

from collections.abc import Callable

from . import constraints
from ._forward import forwarded_property
from ._params import init_broadcast


class LocationScale:
    """Mixin for ``loc + scale * Z`` distributions (Normal, Laplace, Cauchy)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    # ---------------------------------------------------------------- the standard form
    # each distribution defines Z: its entropy, and methods of z (or q, or a sample shape)
    _standard_entropy: float
    _standard_log_prob: Callable   # (z) -> log density of Z at z
    _standard_cdf: Callable        # (z) -> P(Z <= z)
    _standard_icdf: Callable       # (q) -> the z with P(Z <= z) = q
    _standard_sample: Callable     # (shape) -> samples of Z

    def __init__(self, loc, scale, validate_args=None):
        init_broadcast(self, validate_args, loc=loc, scale=scale)

    # ---------------------------------------------------------------- X = loc + scale * Z
    mode = forwarded_property("loc")

    def _standardize(self, value):
        return (self._validate(value) - self.loc) / self.scale

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        return self.loc + self._standard_sample(shape) * self.scale

    def log_prob(self, value):
        return self._standard_log_prob(self._standardize(value)) - self.scale.log()

    def cdf(self, value):
        return self._standard_cdf(self._standardize(value))

    def icdf(self, value):
        return self.loc + self.scale * self._standard_icdf(value)

    def entropy(self):
        return self._standard_entropy + self.scale.log()
