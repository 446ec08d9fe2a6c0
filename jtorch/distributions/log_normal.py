"""torch.distributions.LogNormal."""

from __future__ import annotations

from . import constraints
from ._forward import forwarded_property
from ._transforms_elementwise import ExpTransform
from .normal import Normal
from .transformed_distribution import TransformedDistribution

__all__ = ["LogNormal"]


class LogNormal(TransformedDistribution):
    """LogNormal(loc, scale, validate_args=None): ``exp(X)`` for ``X ~ Normal(loc, scale)``.

    Args:
        loc (float or Tensor): the mean of the log.
        scale (float or Tensor): the standard deviation of the log (> 0).
        validate_args (bool, optional): check the arguments (and values) against the
            constraints; default ``Distribution``'s setting.
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        super().__init__(Normal(loc, scale, validate_args=validate_args), ExpTransform(),
                         validate_args=validate_args)

    loc = forwarded_property("base_dist.loc")
    scale = forwarded_property("base_dist.scale")

    @property
    def mean(self):
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self):
        return (self.loc - self.scale.pow(2)).exp()

    @property
    def variance(self):
        s2 = self.scale.pow(2)
        return s2.expm1() * (2 * self.loc + s2).exp()

    def entropy(self):
        return self.base_dist.entropy() + self.loc
