"""torch.distributions.Multinomial."""

from __future__ import annotations

import numbers

from . import _lib as jt, constraints
from ._forward import forwarded_property
from .binomial import Binomial
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["Multinomial"]


class Multinomial(Distribution):
    """Multinomial(total_count=1, probs=None, logits=None, validate_args=None): the counts
    of each of K categories in ``total_count`` Categorical draws (the last dimension of the
    parameter is the categories).

    ``sample`` needs the one ``total_count`` shared by the batch (an int); ``log_prob``
    works for any counts.
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, numbers.Integral):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        param = self._categorical._param
        super().__init__(param.shape[:-1], param.shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = super().expand(batch_shape, _instance)
        new._binomial = self._binomial.expand((*new.batch_shape, *self._event_shape))
        return new

    probs = forwarded_property("_categorical.probs")
    logits = forwarded_property("_categorical.logits")
    param_shape = forwarded_property("_categorical.param_shape")

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        k = self._event_shape[0]
        draws = self._categorical.sample((self.total_count, *sample_shape))
        return jt.one_hot(draws, k).sum(0).to(self.probs.dtype)

    def log_prob(self, value):
        self._validate(value)
        logits, value = jt.broadcast_tensors(self.logits, value)
        # 0 * log(0) = 0 for impossible categories that were not drawn
        powers = jt.where((value == 0) & (logits == -float("inf")), 0.0, logits * value)
        return ((value.sum(-1) + 1).lgamma() - (value + 1).lgamma().sum(-1)
                + powers.sum(-1))

    def entropy(self):
        """``-log n! - n sum p log p + sum_i E[log x_i!]`` (x_i ~ Binomial(n, p_i))."""
        n = self.total_count
        # log n! as PyTorch computes it: in the default dtype
        log_n_factorial = jt.tensor(float(n + 1)).lgamma()
        support = self._binomial.enumerate_support()
        binomial_probs = self._binomial.log_prob(support).exp()
        expected_log_factorials = ((support + 1).lgamma() * binomial_probs).sum(0).sum(-1)
        return n * self._categorical.entropy() - log_n_factorial + expected_log_factorials
