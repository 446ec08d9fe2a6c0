"""torch.distributions.Distribution: the base class of every distribution.

A distribution has a ``batch_shape`` (independent, differently parameterised copies) and an
``event_shape`` (the shape of one draw); samples have shape
``sample_shape + batch_shape + event_shape``. Subclasses set ``arg_constraints``,
``support``, ``has_rsample`` and implement the methods they can (the others raise
NotImplementedError, as in PyTorch).

Validation (``validate_args``, default on, switched globally by
``Distribution.set_default_validate_args``) checks the parameters against
``arg_constraints`` at construction and the values given to ``log_prob``/``cdf`` against the
support, with PyTorch's ValueError texts.

Differences from PyTorch:
    - The value checks run eagerly only: while traced (jtorch.compile, jax.jit) the values are
      unknown and the checks are skipped (the shape checks still run).
    - ``expand`` works for every subclass: it expands each parameter tensor (and
      sub-distribution) of the old batch shape to the new one, so a subclass with its own
      ``__init__`` needs no ``expand`` of its own (PyTorch raises NotImplementedError).
"""

from __future__ import annotations

import warnings

from . import _lib as jt, constraints
from .utils import lazy_property

__all__ = ["Distribution"]


def _show(value):
    """How PyTorch's messages show a tensor: a number for 0-dim, else its repr."""
    return f"{value}"


def _require_all(ok, value, subject, claim):
    """Raise PyTorch's ValueError ``Expected <subject> (Tensor of shape ...) <claim()>, but
    found invalid values: ...`` unless every entry of the bool tensor ``ok`` holds (not
    checked while tracing)."""
    if not jt.is_traced(ok) and not bool(ok.all()):
        raise ValueError(f"Expected {subject} (Tensor of shape {tuple(value.shape)}) {claim()}, "
                         f"but found invalid values:\n{_show(value)}")


def _expanded_attribute(value, old, new):
    """``value`` (an attribute of a distribution with batch shape ``old``) for batch shape
    ``new``: tensors and distributions whose leading shape is the batch are expanded."""
    n = len(old)
    if isinstance(value, jt.Tensor) and value.dim() >= n and tuple(value.shape[:n]) == old:
        return value.expand((*new, *value.shape[n:]))  # (a tuple: () for a 0-dim batch)
    if isinstance(value, Distribution) and tuple(value.batch_shape) == old:
        return value.expand(new)
    return value


class Distribution:
    """Distribution(batch_shape=torch.Size(), event_shape=torch.Size(), validate_args=None)

    Args:
        batch_shape (torch.Size): the shape of the batch of distributions.
        event_shape (torch.Size): the shape of one sample.
        validate_args (bool, optional): check parameters and values (default: the global
            default, ``True`` unless Python runs with ``-O``).
    """

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value):
        """Switch argument validation on or off for distributions created afterwards that
        do not pass ``validate_args``."""
        if value not in (True, False):
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=jt.Size(), event_shape=jt.Size(), validate_args=None):
        self._batch_shape = jt.Size(batch_shape)
        self._event_shape = jt.Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            self._validate_parameters()
        super().__init__()

    # ---------------------------------------------------------------- validation
    def _validate_parameters(self):
        try:
            arg_constraints = self.arg_constraints
        except NotImplementedError:
            arg_constraints = {}
            warnings.warn(f"{type(self)} does not define `arg_constraints`. Please set "
                          "`arg_constraints = {}` or initialize the distribution with "
                          "`validate_args=False` to turn off validation.", stacklevel=3)
        for name, constraint in arg_constraints.items():
            if constraints.is_dependent(constraint):
                continue
            if name not in self.__dict__ and isinstance(getattr(type(self), name, None),
                                                        lazy_property):
                continue  # not computed yet: checking it would compute it
            value = getattr(self, name)
            _require_all(constraint.check(value), value, f"parameter {name}",
                         lambda c=constraint: f"of distribution {self!r} to satisfy the "
                                              f"constraint {c!r}")

    def _validate_sample(self, value):
        """Raise PyTorch's ValueError if ``value`` is no tensor, has the wrong shape or lies
        outside the support."""
        if not isinstance(value, jt.Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        start = value.dim() - len(self._event_shape)
        if value.size()[start:] != self._event_shape:
            raise ValueError("The right-most size of value must match event_shape: "
                             f"{value.size()} vs {self._event_shape}.")
        actual, expected = value.size(), self._batch_shape + self._event_shape
        for i, j in zip(reversed(actual), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError("Value is not broadcastable with batch_shape+event_shape: "
                                 f"{actual} vs {expected}.")
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(f"{type(self)} does not define `support` to enable sample "
                          "validation. Please initialize the distribution with "
                          "`validate_args=False` to turn off validation.", stacklevel=3)
            return
        _require_all(support.check(value), value, "value argument",
                     lambda: f"to be within the support ({support!r}) of the distribution "
                             f"{self!r}")

    def _validate(self, value):
        """``value``, checked first when this distribution validates its arguments."""
        if self._validate_args:
            self._validate_sample(value)
        return value

    # ---------------------------------------------------------------- shapes
    @property
    def batch_shape(self):
        """The shape over which parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self):
        """The shape of a single sample (without batching)."""
        return self._event_shape

    def _extended_shape(self, sample_shape=jt.Size()):
        """``sample_shape + batch_shape + event_shape``."""
        return jt.Size(tuple(sample_shape)) + self._batch_shape + self._event_shape

    def expand(self, batch_shape, _instance=None):
        """A new distribution (sharing this one's parameters, broadcast) with batch shape
        ``batch_shape``."""
        batch_shape = jt.Size(tuple(batch_shape))
        new = object.__new__(type(self)) if _instance is None else _instance
        old = tuple(self._batch_shape)
        for key, value in self.__dict__.items():
            new.__dict__[key] = _expanded_attribute(value, old, batch_shape)
        new._batch_shape = batch_shape
        return new

    def _get_checked_instance(self, cls, _instance=None):
        """The instance a subclass's ``expand`` fills in (PyTorch's helper, for subclasses
        written against it)."""
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {type(self).__name__} of {cls.__name__} that defines a custom "
                "__init__ method must also define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    # ---------------------------------------------------------------- what subclasses give
    @property
    def arg_constraints(self):
        """The constraint each parameter must satisfy (a dict name -> Constraint)."""
        raise NotImplementedError

    @property
    def support(self):
        """The Constraint the samples lie in."""
        raise NotImplementedError

    @property
    def mean(self):
        raise NotImplementedError

    @property
    def mode(self):
        raise NotImplementedError(f"{type(self)} does not implement mode")

    @property
    def variance(self):
        raise NotImplementedError

    @property
    def stddev(self):
        return self.variance.sqrt()

    def sample(self, sample_shape=jt.Size()):
        """A sample of shape ``sample_shape + batch_shape + event_shape`` (no gradient)."""
        with jt.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=jt.Size()):
        """A reparameterised sample: differentiable with respect to the parameters."""
        raise NotImplementedError

    def sample_n(self, n):
        """``n`` samples (deprecated: use ``sample((n,))``)."""
        warnings.warn("`sample_n(n)` will be deprecated. Use `sample((n,))` instead.",
                      FutureWarning, stacklevel=2)
        return self.sample(jt.Size((n,)))

    def log_prob(self, value):
        """The log of the density (or mass) at ``value``."""
        raise NotImplementedError

    def cdf(self, value):
        """The cumulative distribution function at ``value``."""
        raise NotImplementedError

    def icdf(self, value):
        """The inverse of the cumulative distribution function at ``value``."""
        raise NotImplementedError

    def enumerate_support(self, expand=True):
        """Every value of a discrete support, along a new leading dimension."""
        raise NotImplementedError

    def entropy(self):
        """The entropy, with shape ``batch_shape``."""
        raise NotImplementedError

    def perplexity(self):
        """``exp(entropy)``."""
        return self.entropy().exp()

    def __repr__(self):
        params = [k for k in self.arg_constraints if k in self.__dict__]
        shown = ", ".join(f"{k}: {_show(v) if v.numel() == 1 else v.size()}"
                          for k, v in ((k, self.__dict__[k]) for k in params))
        return f"{type(self).__name__}({shown})"
