"""Location-scale families: ``X = loc + scale * Z`` for a standard distribution ``Z``.

A subclass gives the standard form (log density, cdf, inverse cdf, entropy and a sampler of
``Z``); the parameters, moments' location, ``rsample``, ``log_prob``, ``cdf``, ``icdf`` and
``entropy`` of ``X`` follow here.
"""

from __future__ import annotations

from . import constraints
from ._forward import forwarded_property
from ._params import init_broadcast


class LocationScale:
    """Mixin for ``loc + scale * Z`` distributions (Normal, Laplace, Cauchy)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True
    _standard_entropy: float

    def __init__(self, loc, scale, validate_args=None):
        init_broadcast(self, validate_args, loc=loc, scale=scale)

    # ---------------------------------------------------------------- the standard form
    def _standard_log_prob(self, z):
        raise NotImplementedError

    def _standard_cdf(self, z):
        raise NotImplementedError

    def _standard_icdf(self, q):
        raise NotImplementedError

    def _standard_sample(self, shape):
        raise NotImplementedError

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
