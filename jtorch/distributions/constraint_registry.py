"""torch.distributions.constraint_registry: from a constraint to a transform that maps
unconstrained real values onto it.

``biject_to(c)`` gives a bijection (for HMC-like samplers that need Jacobians);
``transform_to(c)`` any suitable transform (for optimisation), possibly not bijective.
Lookups go by the constraint's exact type; ``register`` adds or overrides factories.
"""

from __future__ import annotations

import numbers

from . import constraints
from ._transform import ComposeTransform, identity_transform
from ._transforms_elementwise import AffineTransform, ExpTransform, SigmoidTransform
from ._transforms_shape import CatTransform, IndependentTransform, StackTransform
from ._transforms_vector import (
    CorrCholeskyTransform,
    LowerCholeskyTransform,
    PositiveDefiniteTransform,
    SoftmaxTransform,
    StickBreakingTransform,
)

__all__ = ["ConstraintRegistry", "biject_to", "transform_to"]


class ConstraintRegistry:
    """A map from constraint types to factories ``constraint -> Transform``."""

    def __init__(self):
        self._registry = {}
        super().__init__()

    def register(self, constraint, factory=None):
        """Register ``factory`` for ``constraint`` (a Constraint subclass or an instance,
        which stands for its type); without ``factory``, a decorator."""
        if factory is None:
            return lambda factory: self.register(constraint, factory)
        if isinstance(constraint, constraints.Constraint):
            constraint = type(constraint)
        if not isinstance(constraint, type) or not issubclass(constraint,
                                                              constraints.Constraint):
            raise TypeError("Expected constraint to be either a Constraint subclass or "
                            f"instance, but got {constraint}")
        self._registry[constraint] = factory
        return factory

    def __call__(self, constraint):
        """The transform from unconstrained space onto ``constraint``."""
        try:
            factory = self._registry[type(constraint)]
        except KeyError:
            raise NotImplementedError(
                f"Cannot transform {type(constraint).__name__} constraints") from None
        return factory(constraint)


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()


def _register_both(constraint, factory):
    biject_to.register(constraint, factory)
    transform_to.register(constraint, factory)


def _from_lower(c):
    return ComposeTransform([ExpTransform(), AffineTransform(c.lower_bound, 1)])


def _from_upper(c):
    return ComposeTransform([ExpTransform(), AffineTransform(c.upper_bound, -1)])


def _onto_interval(c):
    lo, hi = c.lower_bound, c.upper_bound
    if isinstance(lo, numbers.Number) and isinstance(hi, numbers.Number) and lo == 0 and \
            hi == 1:
        return SigmoidTransform()
    return ComposeTransform([SigmoidTransform(), AffineTransform(lo, hi - lo)])


# the combinators map their parts through the same registry
for _r in (biject_to, transform_to):
    _r.register(constraints.independent, lambda c, r=_r: IndependentTransform(
        r(c.base_constraint), c.reinterpreted_batch_ndims))
    _r.register(constraints.cat, lambda c, r=_r: CatTransform([r(p) for p in c.cseq], c.dim,
                                                              c.lengths))
    _r.register(constraints.stack, lambda c, r=_r: StackTransform([r(p) for p in c.cseq],
                                                                  c.dim))

_register_both(constraints.real, lambda c: identity_transform)
_register_both(constraints.greater_than, _from_lower)
_register_both(constraints.greater_than_eq, _from_lower)
_register_both(constraints.less_than, _from_upper)
_register_both(constraints.interval, _onto_interval)
_register_both(constraints.half_open_interval, _onto_interval)
_register_both(constraints.corr_cholesky, lambda c: CorrCholeskyTransform())
biject_to.register(constraints.simplex, lambda c: StickBreakingTransform())
transform_to.register(constraints.simplex, lambda c: SoftmaxTransform())
transform_to.register(constraints.lower_cholesky, lambda c: LowerCholeskyTransform())
transform_to.register(constraints.positive_definite, lambda c: PositiveDefiniteTransform())
transform_to.register(constraints.positive_semidefinite,
                      lambda c: PositiveDefiniteTransform())
