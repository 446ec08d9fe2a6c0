"""torch.distributions.RelaxedOneHotCategorical and ExpRelaxedCategorical."""

from __future__ import annotations

import math

from . import _lib as jt, _noise, constraints
from ._forward import forwarded_property
from ._transforms_elementwise import ExpTransform
from .categorical import _init_over_categorical
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution

__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"]


class ExpRelaxedCategorical(Distribution):
    """ExpRelaxedCategorical(temperature, probs=None, logits=None, validate_args=None): the
    log of a RelaxedOneHotCategorical sample, ``log_softmax((logits + Gumbel noise) /
    temperature)`` (Maddison et al., 2017)."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature = temperature
        _init_over_categorical(self, probs, logits, validate_args)

    param_shape = forwarded_property("_categorical.param_shape")
    logits = forwarded_property("_categorical.logits")
    probs = forwarded_property("_categorical.probs")

    def rsample(self, sample_shape=()):
        u = _noise.uniform(self._extended_shape(sample_shape), self.logits)
        gumbels = -(-u.log()).log()
        scores = (self.logits + gumbels) / self.temperature
        return scores - scores.logsumexp(-1, keepdim=True)

    def log_prob(self, value):
        self._validate(value)
        k = self._categorical._num_events
        # log Gamma(K) + (K - 1) log(temperature) + sum_k s_k - K logsumexp(s)
        log_scale = math.lgamma(k) + (k - 1) * jt.as_tensor(self.temperature).log()
        score = self.logits - value * self.temperature
        return (score - score.logsumexp(-1, keepdim=True)).sum(-1) + log_scale


class RelaxedOneHotCategorical(TransformedDistribution):
    """RelaxedOneHotCategorical(temperature, probs=None, logits=None, validate_args=None): a
    continuous, reparameterisable relaxation of OneHotCategorical on the simplex (the
    Gumbel-softmax / Concrete distribution), sharper as ``temperature`` falls."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base, ExpTransform(), validate_args=validate_args)

    temperature = forwarded_property("base_dist.temperature")
    logits = forwarded_property("base_dist.logits")
    probs = forwarded_property("base_dist.probs")
