"""torch.distributions.Dirichlet."""

from __future__ import annotations

from . import _lib as jt, constraints
from .distribution import Distribution
from .exp_family import ExponentialFamily

__all__ = ["Dirichlet"]


class Dirichlet(ExponentialFamily):
    """Dirichlet(concentration, validate_args=None): points of the simplex with density
    proportional to ``prod x_i^(concentration_i - 1)``; the last dimension of
    ``concentration`` is the event.

    Args:
        concentration (Tensor): the concentrations alpha (> 0), the last dimension the categories.
        validate_args (bool, optional): check the arguments (and values) against the
            constraints; default ``Distribution``'s setting.
    """

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        Distribution.__init__(self, concentration.shape[:-1], concentration.shape[-1:],
                              validate_args=validate_args)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        return jt._sample_dirichlet(self.concentration.expand(shape))

    def log_prob(self, value):
        self._validate(value)
        a = self.concentration
        return ((a - 1).xlogy(value).sum(-1) + a.sum(-1).lgamma() - a.lgamma().sum(-1))

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def mode(self):
        a = self.concentration
        inner = (a - 1).clamp(min=0)
        inner = inner / inner.sum(-1, keepdim=True)
        # with every concentration below 1 the density peaks at the corner of the largest
        corner = jt.one_hot(a.argmax(-1), a.shape[-1]).to(a.dtype)
        return jt.where((a < 1).all(-1, keepdim=True), corner, inner)

    @property
    def variance(self):
        a = self.concentration
        a0 = a.sum(-1, keepdim=True)
        return a * (a0 - a) / (a0.pow(2) * (a0 + 1))

    def entropy(self):
        a = self.concentration
        k, a0 = a.shape[-1], a.sum(-1)
        return (a.lgamma().sum(-1) - a0.lgamma() - (k - a0) * a0.digamma()
                - ((a - 1) * a.digamma()).sum(-1))

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return x.lgamma().sum(-1) - x.sum(-1).lgamma()
