"""torch.distributions.MixtureSameFamily."""

from __future__ import annotations

from . import _lib as jt, constraints
from ._forward import forwarded_property
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["MixtureSameFamily"]


class MixtureSameFamily(Distribution):
    """MixtureSameFamily(mixture_distribution, component_distribution, validate_args=None):
    a mixture whose components are the rightmost batch dimension of
    ``component_distribution``, weighted by the Categorical ``mixture_distribution``.

    Example:
        >>> mix = Categorical(torch.ones(5))
        >>> comp = Normal(torch.randn(5), torch.rand(5))
        >>> gmm = MixtureSameFamily(mix, comp)
    """

    arg_constraints: dict = {}
    has_rsample = False

    def __init__(self, mixture_distribution, component_distribution, validate_args=None):
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(" The Mixture distribution needs to be an  instance of "
                             "torch.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution needs to be an instance of "
                             "torch.distributions.Distribution")
        mix_batch = mixture_distribution.batch_shape
        comp_batch = component_distribution.batch_shape[:-1]
        for a, b in zip(reversed(mix_batch), reversed(comp_batch)):
            if a != 1 and b != 1 and a != b:
                raise ValueError(f"`mixture_distribution.batch_shape` ({mix_batch}) is not "
                                 "compatible with `component_distribution.batch_shape`"
                                 f"({comp_batch})")
        k_mix = mixture_distribution.logits.shape[-1]
        k_comp = component_distribution.batch_shape[-1]
        if k_mix != k_comp:
            raise ValueError(f"`mixture_distribution component` ({k_mix}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({k_comp})")
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        self._num_component = k_mix
        self._event_ndims = len(component_distribution.event_shape)
        super().__init__(comp_batch, component_distribution.event_shape,
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        batch_shape = jt.Size(tuple(batch_shape))
        new = object.__new__(type(self)) if _instance is None else _instance
        new.__dict__.update(self.__dict__)
        new._component_distribution = self._component_distribution.expand(
            batch_shape + (self._num_component,))
        new._mixture_distribution = self._mixture_distribution.expand(batch_shape)
        new._batch_shape = batch_shape
        return new

    mixture_distribution = forwarded_property("_mixture_distribution")
    component_distribution = forwarded_property("_component_distribution")

    @constraints.dependent_property
    def support(self):
        return constraints.MixtureSameFamilyConstraint(self._component_distribution.support)

    def _weights(self):
        """The mixture probabilities, shaped to broadcast against the components' batch
        (component dimension) and event."""
        probs = self._mixture_distribution.probs
        pad = 0 if len(self._mixture_distribution.batch_shape) == 1 else \
            len(self._batch_shape) - len(self._mixture_distribution.batch_shape)
        return probs.reshape(*probs.shape[:-1], *([1] * pad), probs.shape[-1],
                             *([1] * self._event_ndims))

    def _component_dim(self):
        return -1 - self._event_ndims

    def _pad(self, x):
        return x.unsqueeze(self._component_dim())

    @property
    def mean(self):
        return (self._weights() * self._component_distribution.mean).sum(self._component_dim())

    @property
    def variance(self):
        # the law of total variance: E[Var(X | k)] + Var(E[X | k])
        w, comp, dim = self._weights(), self._component_distribution, self._component_dim()
        within = (w * comp.variance).sum(dim)
        between = (w * (comp.mean - self._pad(self.mean)).pow(2)).sum(dim)
        return within + between

    def cdf(self, x):
        x = self._pad(x)
        return (self._component_distribution.cdf(x) * self._mixture_distribution.probs).sum(-1)

    def log_prob(self, x):
        if self._validate_args:
            self._validate_sample(x)
        log_p = self._component_distribution.log_prob(self._pad(x))
        log_w = self._mixture_distribution.logits.log_softmax(-1)
        return (log_p + log_w).logsumexp(-1)

    def sample(self, sample_shape=()):
        with jt.no_grad():
            dim = len(tuple(sample_shape)) + len(self._batch_shape)
            which = self._mixture_distribution.sample(sample_shape)
            draws = self._component_distribution.sample(sample_shape)
            event = tuple(self._event_shape)
            index = which.reshape(*which.shape, 1, *([1] * len(event)))
            index = index.expand(*which.shape, 1, *event)
            return draws.gather(dim, index).squeeze(dim)

    def __repr__(self):
        return (f"MixtureSameFamily(\n  {self._mixture_distribution},\n"
                f"  {self._component_distribution})")
