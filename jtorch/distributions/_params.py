"""How the distributions take their parameters: broadcast tensors set as attributes, and the
``probs``/``logits`` pair (exactly one given, the other derived lazily)."""

from __future__ import annotations

from . import _lib as jt
from .distribution import Distribution
from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits


def init_broadcast(dist, validate_args, event_dims=0, **params):
    """Set ``params`` (tensors or numbers, broadcast together) as attributes of ``dist`` and
    initialise it with their shape as ``batch_shape`` (less ``event_dims`` rightmost
    dimensions, which become the event shape)."""
    tensors = broadcast_all(*params.values())
    for name, t in zip(params, tensors):
        setattr(dist, name, t)
    shape = tensors[0].shape
    cut = len(shape) - event_dims
    Distribution.__init__(dist, shape[:cut], shape[cut:], validate_args=validate_args)


def one_of_probs_logits(probs, logits):
    """``("probs", probs)`` or ``("logits", logits)``, whichever is given.

    Raises:
        ValueError: both or neither are given (PyTorch's message).
    """
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
    return ("probs", probs) if probs is not None else ("logits", logits)


class BinaryProbs:
    """``probs`` and ``logits`` (log-odds) of a binary event: the one not given is derived
    on first use. Sets ``_param`` to the given one."""

    def _set_probs_or_logits(self, probs, logits, *others):
        """Set the given one of probs/logits (broadcast with ``others``); returns ``others``
        broadcast."""
        name, value = one_of_probs_logits(probs, logits)
        value, *others = broadcast_all(value, *others)
        setattr(self, name, value)
        self._param = value
        return others

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()


class CategoricalProbs:
    """``probs`` (normalised to sum to 1 over the last dimension) and ``logits`` (normalised
    log-probabilities) of a categorical event: the one not given is derived on first use."""

    def _set_probs_or_logits(self, probs, logits):
        name, value = one_of_probs_logits(probs, logits)
        if value.dim() < 1:
            raise ValueError(f"`{name}` parameter must be at least one-dimensional.")
        if name == "probs":
            value = value / value.sum(-1, keepdim=True)
        else:
            value = value - value.logsumexp(-1, keepdim=True)
        setattr(self, name, value)
        self._param = value
        self._num_events = value.shape[-1]
        return value

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits)

    @property
    def param_shape(self):
        return self._param.size()


def filled_property(value, like: str) -> property:
    """A read-only property (a NaN mean, an infinite variance): a tensor of the distribution's
    batch + event shape filled with ``value``, without gradient, in the dtype and device of
    its parameter named ``like``."""

    def filled(dist):
        param = getattr(dist, like)
        return jt.full(dist._extended_shape(), value, dtype=param.dtype, device=param.device)

    return property(filled)
