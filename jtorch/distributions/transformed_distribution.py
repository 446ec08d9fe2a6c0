"""torch.distributions.TransformedDistribution."""

from __future__ import annotations

from . import _lib as jt, constraints
from ._forward import forwarded_property
from ._transform import ComposeTransform, Transform
from .distribution import Distribution
from .independent import Independent
from .utils import _sum_rightmost

__all__ = ["TransformedDistribution"]


class TransformedDistribution(Distribution):
    """TransformedDistribution(base_distribution, transforms, validate_args=None): the
    distribution of ``transforms[-1](...transforms[0](x))`` for ``x`` drawn from
    ``base_distribution``; ``log_prob`` adds the inverse maps' log-determinant Jacobians.

    Args:
        base_distribution (Distribution): the distribution of the input.
        transforms (Transform or list of Transform): applied in order.
        validate_args (bool, optional): check the arguments (and values) against the
            constraints; default ``Distribution``'s setting.

    Example:
        >>> base = Uniform(0.0, 1.0)
        >>> logistic = TransformedDistribution(base, [SigmoidTransform().inv,
        ...                                           AffineTransform(loc, scale)])
    """

    arg_constraints: dict = {}

    def __init__(self, base_distribution, transforms, validate_args=None):
        if isinstance(transforms, Transform):
            self.transforms = [transforms]
        elif isinstance(transforms, list) and all(isinstance(t, Transform)
                                                  for t in transforms):
            self.transforms = transforms
        else:
            raise ValueError(f"transforms must be a Transform or list, but was {transforms}")
        chain = ComposeTransform(self.transforms)
        base_shape = base_distribution.batch_shape + base_distribution.event_shape
        base_event_dims = len(base_distribution.event_shape)
        if len(base_shape) < chain.domain.event_dim:
            raise ValueError("base_distribution needs to have shape with size at least "
                             f"{chain.domain.event_dim}, but got {base_shape}.")
        shape = chain.forward_shape(base_shape)
        needed = chain.inverse_shape(shape)
        if tuple(base_shape) != tuple(needed):  # the transforms broadcast the base
            base_distribution = base_distribution.expand(
                needed[:len(needed) - base_event_dims])
        extra = chain.domain.event_dim - base_event_dims
        if extra > 0:
            base_distribution = Independent(base_distribution, extra)
        self.base_dist = base_distribution
        event_dims = chain.codomain.event_dim + max(base_event_dims - chain.domain.event_dim,
                                                    0)
        cut = len(shape) - event_dims
        super().__init__(shape[:cut], shape[cut:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = super().expand(batch_shape, _instance)  # the subclasses' parameter tensors
        shape = new.batch_shape + self.event_shape
        for t in reversed(self.transforms):
            shape = t.inverse_shape(shape)
        new.base_dist = self.base_dist.expand(
            shape[:len(shape) - len(self.base_dist.event_shape)])
        return new

    @constraints.dependent_property(is_discrete=False)
    def support(self):
        if not self.transforms:
            return self.base_dist.support
        support = self.transforms[-1].codomain
        if len(self.event_shape) > support.event_dim:
            support = constraints.independent(support, len(self.event_shape) -
                                              support.event_dim)
        return support

    has_rsample = forwarded_property("base_dist.has_rsample")

    def _forward(self, x):
        for t in self.transforms:
            x = t(x)
        return x

    def sample(self, sample_shape=()):
        with jt.no_grad():
            return self._forward(self.base_dist.sample(sample_shape))

    def rsample(self, sample_shape=()):
        return self._forward(self.base_dist.rsample(sample_shape))

    def log_prob(self, value):
        self._validate(value)
        event_dim = len(self.event_shape)
        total, y = 0.0, value
        for t in reversed(self.transforms):
            x = t.inv(y)
            event_dim += t.domain.event_dim - t.codomain.event_dim
            total = total - _sum_rightmost(t.log_abs_det_jacobian(x, y),
                                           event_dim - t.domain.event_dim)
            y = x
        base = self.base_dist.log_prob(y)
        return total + _sum_rightmost(base, event_dim - len(self.base_dist.event_shape))

    def _monotonize_cdf(self, value):
        """``value`` or ``1 - value``: the base cdf becomes this one's when the transforms
        are increasing or decreasing."""
        sign = 1
        for t in self.transforms:
            sign = sign * t.sign
        if isinstance(sign, int) and sign == 1:
            return value
        return sign * (value - 0.5) + 0.5

    def cdf(self, value):
        for t in reversed(self.transforms):
            value = t.inv(value)
        if self._validate_args:
            self.base_dist._validate_sample(value)
        return self._monotonize_cdf(self.base_dist.cdf(value))

    def icdf(self, value):
        return self._forward(self.base_dist.icdf(self._monotonize_cdf(value)))
