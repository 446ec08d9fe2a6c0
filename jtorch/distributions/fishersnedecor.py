"""torch.distributions.FisherSnedecor."""

from __future__ import annotations

import math

from . import _lib as jt, constraints
from ._params import init_broadcast
from .distribution import Distribution
from .gamma import Gamma

__all__ = ["FisherSnedecor"]


class FisherSnedecor(Distribution):
    """FisherSnedecor(df1, df2, validate_args=None): the F distribution, the ratio of two
    chi-squared variables divided by their degrees of freedom ``df1`` and ``df2``."""

    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1, df2, validate_args=None):
        init_broadcast(self, validate_args, df1=df1, df2=df2)
        self._gamma1 = Gamma(self.df1 * 0.5, self.df1)  # chi2(df1) / df1
        self._gamma2 = Gamma(self.df2 * 0.5, self.df2)

    @property
    def mean(self):
        d2 = self.df2
        return jt.where(d2 > 2, d2 / (d2 - 2), math.nan)

    @property
    def mode(self):
        d1, d2 = self.df1, self.df2
        return jt.where(d1 > 2, (d1 - 2) / d1 * d2 / (d2 + 2), math.nan)

    @property
    def variance(self):
        d1, d2 = self.df1, self.df2
        finite = 2 * d2.pow(2) * (d1 + d2 - 2) / (d1 * (d2 - 2).pow(2) * (d2 - 4))
        return jt.where(d2 > 4, finite, math.nan)

    def rsample(self, sample_shape=()):
        tiny = jt.finfo(self.df1.dtype).tiny
        x1 = self._gamma1.rsample(sample_shape)
        x2 = self._gamma2.rsample(sample_shape)
        x2 = x2 + (x2.clamp(min=tiny) - x2).detach()
        y = x1 / x2
        return y + (y.clamp(min=tiny) - y).detach()

    def log_prob(self, value):
        self._validate(value)
        h1, h2 = self.df1 * 0.5, self.df2 * 0.5
        ratio = self.df1 / self.df2
        log_norm = (h1 + h2).lgamma() - h1.lgamma() - h2.lgamma()
        return log_norm + h1 * ratio.log() + (h1 - 1) * value.log() - \
            (h1 + h2) * (ratio * value).log1p()
