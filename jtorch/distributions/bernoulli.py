"""torch.distributions.Bernoulli."""

from __future__ import annotations

import math

from . import _lib as jt, constraints
from ._enumerate import along_batch
from ._forward import forwarded_property
from ._math import softplus
from ._params import BinaryProbs
from .distribution import Distribution
from .exp_family import ExponentialFamily

__all__ = ["Bernoulli"]


def binary_log_prob(logits, value):
    """``value * log p + (1 - value) * log(1 - p)`` for ``p = sigmoid(logits)``, stably."""
    return value * logits - softplus(logits)


class Bernoulli(BinaryProbs, ExponentialFamily):
    """Bernoulli(probs=None, logits=None, validate_args=None): 1 with probability ``probs``
    (or ``sigmoid(logits)``), else 0.

    Args:
        probs (Number, Tensor): the probability of 1.
        logits (Number, Tensor): its log-odds (give exactly one of the two).
        validate_args (bool, optional): check the arguments (and values) against the
            constraints; default ``Distribution``'s setting.
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._set_probs_or_logits(probs, logits)
        Distribution.__init__(self, self._param.shape, validate_args=validate_args)

    mean = forwarded_property("probs")

    @property
    def mode(self):
        p = self.probs
        return jt.where(p == 0.5, math.nan, (p >= 0.5).to(p.dtype))

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        with jt.no_grad():
            return jt.bernoulli(self.probs.expand(self._extended_shape(sample_shape)))

    def log_prob(self, value):
        self._validate(value)
        return binary_log_prob(self.logits, value)

    def entropy(self):
        return -binary_log_prob(self.logits, self.probs)

    def enumerate_support(self, expand=True):
        values = jt.arange(2, dtype=self._param.dtype, device=self._param.device)
        return along_batch(values, self._batch_shape, expand)

    @property
    def _natural_params(self):
        return (self.probs / (1 - self.probs)).log(),

    def _log_normalizer(self, x):
        return softplus(x)
