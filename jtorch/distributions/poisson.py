"""torch.distributions.Poisson."""

from __future__ import annotations

from . import _lib as jt, constraints
from ._forward import forwarded_property
from ._params import init_broadcast
from .exp_family import ExponentialFamily

__all__ = ["Poisson"]


class Poisson(ExponentialFamily):
    """Poisson(rate, validate_args=None): counts with mass ``rate^k exp(-rate) / k!``.

    Args:
        rate (Number, Tensor): the rate (>= 0).
        validate_args (bool, optional): check the arguments (and values) against the
            constraints; default ``Distribution``'s setting.
    """

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate, validate_args=None):
        init_broadcast(self, validate_args, rate=rate)

    mean = forwarded_property("rate")

    @property
    def mode(self):
        return self.rate.floor()

    variance = forwarded_property("rate")

    def sample(self, sample_shape=()):
        with jt.no_grad():
            return jt.poisson(self.rate.expand(self._extended_shape(sample_shape)))

    def log_prob(self, value):
        self._validate(value)
        return value.xlogy(self.rate) - self.rate - (value + 1).lgamma()

    @property
    def _natural_params(self):
        return (self.rate.log(),)

    def _log_normalizer(self, x):
        return x.exp()
