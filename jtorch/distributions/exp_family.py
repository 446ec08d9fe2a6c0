"""torch.distributions.ExponentialFamily: densities ``h(x) exp(<eta, T(x)> - A(eta))``.

A subclass gives its natural parameters ``eta`` (``_natural_params``), the log normaliser
``A`` (``_log_normalizer``) and ``E[log h(x)]`` (``_mean_carrier_measure``); the generic
entropy and the KL divergence between two members of one family follow from ``A`` and its
gradient (computed by autograd), as Bregman divergences.
"""

from __future__ import annotations

from . import _lib as jt
from .distribution import Distribution

__all__ = ["ExponentialFamily"]


def log_normalizer_and_grad(dist):
    """``(A(eta), [dA/deta_i])`` at ``dist``'s natural parameters (the gradients keep their
    graph, so results built on them are differentiable)."""
    eta = [p.detach().requires_grad_() for p in dist._natural_params]
    with jt.enable_grad():
        a = dist._log_normalizer(*eta)
        grads = jt.grad(a.sum(), eta, create_graph=True)
    return eta, a, grads


def batch_dot(dist, xs, ys):
    """``sum_i <x_i, y_i>`` over each parameter's event entries, with shape batch_shape."""
    total = 0
    for x, y in zip(xs, ys):
        total = total + (x * y).reshape(*dist._batch_shape, -1).sum(-1)
    return total


class ExponentialFamily(Distribution):
    """The base class of exponential-family distributions (Normal, Gamma, Beta, ...)."""

    @property
    def _natural_params(self):
        """The natural parameters, a tuple of tensors."""
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        """The log normaliser ``A`` as a function of the natural parameters."""
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        """``E[log h(x)]``."""
        raise NotImplementedError

    def entropy(self):
        """``A(eta) - <eta, grad A(eta)> - E[log h(x)]``."""
        eta, a, grads = log_normalizer_and_grad(self)
        return a - batch_dot(self, eta, grads) - self._mean_carrier_measure
