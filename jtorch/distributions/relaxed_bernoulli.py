"""torch.distributions.RelaxedBernoulli and LogitRelaxedBernoulli."""

from __future__ import annotations

from . import _noise, constraints
from ._forward import forwarded_property
from ._params import BinaryProbs
from ._transforms_elementwise import SigmoidTransform
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .utils import broadcast_all

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]


class LogitRelaxedBernoulli(BinaryProbs, Distribution):
    """LogitRelaxedBernoulli(temperature, probs=None, logits=None, validate_args=None): the
    logit of a RelaxedBernoulli sample, ``(logits + logistic noise) / temperature``
    (Maddison et al., 2017)."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature = temperature
        self._set_probs_or_logits(probs, logits)
        Distribution.__init__(self, self._param.shape, validate_args=validate_args)

    def rsample(self, sample_shape=()):
        u = _noise.uniform(self._extended_shape(sample_shape), self._param)
        return (u.log() - (-u).log1p() + self.logits) / self.temperature

    def log_prob(self, value):
        self._validate(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value * self.temperature
        return self.temperature.log() + diff - 2 * diff.exp().log1p()


class RelaxedBernoulli(TransformedDistribution):
    """RelaxedBernoulli(temperature, probs=None, logits=None, validate_args=None): a
    continuous relaxation of Bernoulli on (0, 1), reparameterisable, sharper as
    ``temperature`` falls (the Concrete / Gumbel-softmax distribution)."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base, SigmoidTransform(), validate_args=validate_args)

    temperature = forwarded_property("base_dist.temperature")
    logits = forwarded_property("base_dist.logits")
    probs = forwarded_property("base_dist.probs")
