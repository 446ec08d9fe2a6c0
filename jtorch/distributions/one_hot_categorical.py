"""torch.distributions.OneHotCategorical and OneHotCategoricalStraightThrough."""

from __future__ import annotations

from . import _lib as jt, constraints
from ._enumerate import along_batch
from ._forward import forwarded_property
from .categorical import _init_over_categorical
from .distribution import Distribution

__all__ = ["OneHotCategorical", "OneHotCategoricalStraightThrough"]


class OneHotCategorical(Distribution):
    """OneHotCategorical(probs=None, logits=None, validate_args=None): a Categorical draw
    written as a one-hot vector of length K (the event shape).

    Args:
        probs (Tensor): event probabilities.
        logits (Tensor): unnormalised log-probabilities (give exactly one of the two).
        validate_args (bool, optional): check the arguments (and values) against the
            constraints; default ``Distribution``'s setting.
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        _init_over_categorical(self, probs, logits, validate_args)

    _param = forwarded_property("_categorical._param")
    probs = forwarded_property("_categorical.probs")
    logits = forwarded_property("_categorical.logits")
    param_shape = forwarded_property("_categorical.param_shape")
    mean = forwarded_property("_categorical.probs")

    @property
    def mode(self):
        probs = self._categorical.probs
        return jt.one_hot(probs.argmax(-1), probs.shape[-1]).to(probs.dtype)

    @property
    def variance(self):
        return self._categorical.probs * (1 - self._categorical.probs)

    def sample(self, sample_shape=()):
        probs = self._categorical.probs
        index = self._categorical.sample(sample_shape)
        return jt.one_hot(index, probs.shape[-1]).to(probs.dtype)

    def log_prob(self, value):
        self._validate(value)
        return self._categorical.log_prob(value.argmax(-1))

    def entropy(self):
        return self._categorical.entropy()

    def enumerate_support(self, expand=True):
        n = self._event_shape[0]
        values = jt.eye(n, dtype=self._param.dtype, device=self._param.device)
        return along_batch(values, self._batch_shape, expand)


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """OneHotCategorical with a straight-through gradient: ``rsample`` returns the one-hot
    sample whose gradient is that of ``probs`` (Bengio et al., 2013)."""

    has_rsample = True

    def rsample(self, sample_shape=()):
        sample = self.sample(sample_shape)
        probs = self._categorical.probs
        return sample + (probs - probs.detach())
