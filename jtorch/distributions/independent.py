"""torch.distributions.Independent."""

from __future__ import annotations

from . import constraints
from ._forward import forwarded_property
from .distribution import Distribution
from .utils import _sum_rightmost

__all__ = ["Independent"]


class Independent(Distribution):
    """Independent(base_distribution, reinterpreted_batch_ndims, validate_args=None): the
    ``reinterpreted_batch_ndims`` rightmost batch dimensions of ``base_distribution`` made
    part of the event (log_prob and entropy sum over them).

    Args:
        base_distribution (Distribution): the distribution to reinterpret.
        reinterpreted_batch_ndims (int): how many batch dimensions become event dimensions.
        validate_args (bool, optional): check the arguments (and values) against the
            constraints; default ``Distribution``'s setting.

    Example:
        >>> normal = Normal(torch.zeros(3), torch.ones(3))  # batch (3,), event ()
        >>> Independent(normal, 1).log_prob(torch.zeros(3))  # batch (), event (3,)
    """

    arg_constraints: dict = {}

    def __init__(self, base_distribution, reinterpreted_batch_ndims, validate_args=None):
        n = reinterpreted_batch_ndims
        shape = base_distribution.batch_shape + base_distribution.event_shape
        if n > len(base_distribution.batch_shape):
            raise ValueError("Expected reinterpreted_batch_ndims <= "
                             "len(base_distribution.batch_shape), actual "
                             f"{n} vs {len(base_distribution.batch_shape)}")
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = n
        event_dims = n + len(base_distribution.event_shape)
        cut = len(shape) - event_dims
        super().__init__(shape[:cut], shape[cut:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        batch_shape = tuple(batch_shape)
        moved = tuple(self.event_shape[:self.reinterpreted_batch_ndims])
        new = object.__new__(type(self)) if _instance is None else _instance
        new.base_dist = self.base_dist.expand(batch_shape + moved)
        new.reinterpreted_batch_ndims = self.reinterpreted_batch_ndims
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    has_rsample = forwarded_property("base_dist.has_rsample")

    @property
    def has_enumerate_support(self):
        return self.reinterpreted_batch_ndims == 0 and self.base_dist.has_enumerate_support

    @constraints.dependent_property
    def support(self):
        support = self.base_dist.support
        if self.reinterpreted_batch_ndims:
            support = constraints.independent(support, self.reinterpreted_batch_ndims)
        return support

    mean = forwarded_property("base_dist.mean")
    mode = forwarded_property("base_dist.mode")
    variance = forwarded_property("base_dist.variance")

    def sample(self, sample_shape=()):
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape=()):
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value):
        return _sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self):
        return _sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def enumerate_support(self, expand=True):
        if self.reinterpreted_batch_ndims > 0:
            raise NotImplementedError("Enumeration over cartesian product is not implemented")
        return self.base_dist.enumerate_support(expand=expand)

    def __repr__(self):
        return f"{type(self).__name__}({self.base_dist}, {self.reinterpreted_batch_ndims})"
