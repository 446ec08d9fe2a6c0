"""torch.distributions.Categorical."""

from __future__ import annotations

import math

from . import _lib as jt, constraints
from ._enumerate import along_batch
from ._params import CategoricalProbs, filled_property
from .distribution import Distribution

__all__ = ["Categorical"]


class Categorical(CategoricalProbs, Distribution):
    """Categorical(probs=None, logits=None, validate_args=None): an index in
    ``{0, ..., K - 1}`` drawn with probabilities ``probs`` (normalised over the last
    dimension) or ``softmax(logits)``; the last dimension of the parameter is the
    categories, the others the batch.

    Args:
        probs (Tensor): event probabilities (non-negative, normalised here).
        logits (Tensor): unnormalised log-probabilities (give exactly one of the two).
        validate_args (bool, optional): check the arguments (and values) against the
            constraints; default ``Distribution``'s setting.

    Example:
        >>> m = Categorical(torch.tensor([0.25, 0.25, 0.25, 0.25]))
        >>> m.sample()  # equal probability of 0, 1, 2, 3
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        param = self._set_probs_or_logits(probs, logits)
        Distribution.__init__(self, param.shape[:-1], validate_args=validate_args)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    mean = filled_property(math.nan, "_param")

    @property
    def mode(self):
        return self.probs.argmax(-1)

    variance = filled_property(math.nan, "_param")

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        n = math.prod(tuple(sample_shape))
        with jt.no_grad():
            draws = jt.multinomial(self.probs.reshape(-1, self._num_events), n, True)
        return draws.mT.reshape(shape)

    def log_prob(self, value):
        self._validate(value)
        index = value.long().unsqueeze(-1)
        index, logits = jt.broadcast_tensors(index, self.logits)
        return logits.gather(-1, index[..., :1]).squeeze(-1)

    def entropy(self):
        logits = self.logits.clamp(min=jt.finfo(self.logits.dtype).min)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand=True):
        values = jt.arange(self._num_events, dtype=jt.int64, device=self._param.device)
        return along_batch(values, self._batch_shape, expand)


def _init_over_categorical(dist, probs, logits, validate_args):
    """Give ``dist`` a ``Categorical(probs, logits)`` as ``dist._categorical`` and initialise it
    with that categorical's batch shape and its number of categories as the event shape (the
    one-hot distributions)."""
    dist._categorical = Categorical(probs, logits)
    param = dist._categorical._param
    Distribution.__init__(dist, param.shape[:-1], param.shape[-1:], validate_args=validate_args)
