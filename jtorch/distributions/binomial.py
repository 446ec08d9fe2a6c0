"""torch.distributions.Binomial."""

from __future__ import annotations

from . import _lib as jt, constraints
from ._enumerate import along_batch
from ._math import softplus
from ._params import BinaryProbs
from .distribution import Distribution

__all__ = ["Binomial"]


def homogeneous_count(total_count, what):
    """The single ``total_count`` of every batch member (a Python int).

    Raises:
        NotImplementedError: the counts differ (PyTorch's message, naming ``what``).
    """
    n = int(total_count.max())
    if not bool(total_count.min() == n):
        raise NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")
    return n


def log_binomial_coefficient(n, k):
    """``log(n choose k)``."""
    return (n + 1).lgamma() - (k + 1).lgamma() - (n - k + 1).lgamma()


class Binomial(BinaryProbs, Distribution):
    """Binomial(total_count=1, probs=None, logits=None, validate_args=None): the number of
    successes in ``total_count`` independent trials of success probability ``probs`` (or
    ``sigmoid(logits)``).

    Args:
        total_count (int or Tensor): the number of trials.
        probs (Tensor): the probability of success of each trial.
        logits (Tensor): its log-odds (give exactly one of probs and logits).
        validate_args (bool, optional): check the arguments (and values) against the
            constraints; default ``Distribution``'s setting.
    """

    arg_constraints = {"total_count": constraints.nonnegative_integer,
                       "probs": constraints.unit_interval, "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        (total_count,) = self._set_probs_or_logits(probs, logits, total_count)
        self.total_count = total_count.to(self._param.dtype)
        Distribution.__init__(self, self._param.shape, validate_args=validate_args)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with jt.no_grad():
            return jt.binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value):
        self._validate(value)
        n, logits = self.total_count, self.logits
        return log_binomial_coefficient(n, value) + value * logits - n * softplus(logits)

    def entropy(self):
        homogeneous_count(self.total_count, "entropy")
        log_p = self.log_prob(self.enumerate_support(False))
        return -(log_p.exp() * log_p).sum(0)

    def enumerate_support(self, expand=True):
        n = homogeneous_count(self.total_count, "enumerate_support")
        values = jt.arange(1 + n, dtype=self._param.dtype, device=self._param.device)
        return along_batch(values, self._batch_shape, expand)
