"""torch.distributions.LogisticNormal."""

from __future__ import annotations

from . import constraints
from ._forward import forwarded_property
from ._transforms_vector import StickBreakingTransform
from .independent import Independent
from .normal import Normal
from .transformed_distribution import TransformedDistribution

__all__ = ["LogisticNormal"]


class LogisticNormal(TransformedDistribution):
    """LogisticNormal(loc, scale, validate_args=None): points of the simplex from a normal
    vector through the stick-breaking transform (the last dimension of ``loc`` is the event;
    samples have one more coordinate)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base = Normal(loc, scale, validate_args=validate_args)
        if not base.batch_shape:
            base = base.expand([1])
        super().__init__(base, StickBreakingTransform(), validate_args=validate_args)

    loc = forwarded_property("_normal.loc")
    scale = forwarded_property("_normal.scale")

    @property
    def _normal(self):
        base = self.base_dist
        return base.base_dist if isinstance(base, Independent) else base
