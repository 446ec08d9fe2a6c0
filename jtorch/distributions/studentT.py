"""torch.distributions.StudentT."""

from __future__ import annotations

import math

from . import _lib as jt, _noise, constraints
from ._forward import forwarded_property
from ._params import init_broadcast
from .chi2 import Chi2
from .distribution import Distribution

__all__ = ["StudentT"]


class StudentT(Distribution):
    """StudentT(df, loc=0.0, scale=1.0, validate_args=None): Student's t distribution with
    ``df`` degrees of freedom, shifted by ``loc`` and scaled by ``scale``."""

    arg_constraints = {"df": constraints.positive, "loc": constraints.real,
                       "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        init_broadcast(self, validate_args, df=df, loc=loc, scale=scale)
        self._chi2 = Chi2(self.df)

    @property
    def mean(self):
        return jt.where(self.df > 1, self.loc, math.nan)  # undefined for df <= 1

    mode = forwarded_property("loc")

    @property
    def variance(self):
        df = self.df
        finite = self.scale.pow(2) * df / (df - 2)
        return jt.where(df > 2, finite, jt.where(df > 1, math.inf, math.nan))

    def rsample(self, sample_shape=()):
        # a standard normal over the root of a chi-squared variable divided by df
        shape = self._extended_shape(sample_shape)
        x = _noise.normal(shape, self.df)
        z = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * x * (z / self.df).rsqrt()

    def log_prob(self, value):
        self._validate(value)
        df = self.df
        y = (value - self.loc) / self.scale
        log_norm = (self.scale.log() + 0.5 * df.log() + 0.5 * math.log(math.pi)
                    + (0.5 * df).lgamma() - (0.5 * (df + 1)).lgamma())
        return -0.5 * (df + 1) * (y.pow(2) / df).log1p() - log_norm

    def entropy(self):
        df = self.df
        log_beta = (0.5 * df).lgamma() + math.lgamma(0.5) - (0.5 * (df + 1)).lgamma()
        return (self.scale.log() + 0.5 * (df + 1) * ((0.5 * (df + 1)).digamma()
                                                     - (0.5 * df).digamma())
                + 0.5 * df.log() + log_beta)
