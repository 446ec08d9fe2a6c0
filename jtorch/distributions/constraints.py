"""torch.distributions.constraints: the sets a parameter or a sample must lie in.

A constraint's ``check(value)`` is a boolean tensor with the value's shape less the
constraint's ``event_dim`` rightmost dimensions; ``is_discrete`` says whether the set is
countable. The public objects are PyTorch's: ``real``, ``positive``, ``simplex``...
(instances) and ``interval``, ``greater_than``, ``independent``... (classes to instantiate).
Each class's name is the repr's name with a leading underscore, as in PyTorch, so
``repr(constraints.positive) == "GreaterThan(lower_bound=0.0)"``.

Differences from PyTorch:
    - ``positive_definite.check`` tests symmetry and ``eigvalsh > 0`` (PyTorch: a successful
      Cholesky factorisation); ``positive_semidefinite`` and ``symmetric`` combine their tests
      per matrix (PyTorch returns the symmetry test alone for a whole batch when one matrix of
      it is not symmetric).
"""

from __future__ import annotations

from . import _lib as jt
from ._forward import forwarded_property

__all__ = ["Constraint", "boolean", "cat", "corr_cholesky", "dependent", "dependent_property",
           "greater_than", "greater_than_eq", "independent", "integer_interval", "interval",
           "half_open_interval", "is_dependent", "less_than", "lower_cholesky",
           "lower_triangular", "MixtureSameFamilyConstraint", "multinomial", "nonnegative",
           "nonnegative_integer", "one_hot", "positive", "positive_semidefinite",
           "positive_definite", "positive_integer", "real", "real_vector", "simplex", "square",
           "stack", "symmetric", "unit_interval"]


class Constraint:
    """A region of values. Attributes: ``is_discrete`` (bool), ``event_dim`` (how many
    rightmost dimensions one point of the region spans)."""

    is_discrete = False
    event_dim = 0

    def check(self, value):
        """A boolean tensor: whether each point of ``value`` lies in the region."""
        raise NotImplementedError

    def __repr__(self):
        return type(self).__name__[1:] + "()"


class _Bounded(Constraint):
    """A constraint with bounds, shown in its repr as ``Name(lower_bound=..., ...)``."""

    _bounds: tuple = ()

    def __repr__(self):
        args = ", ".join(f"{b}={getattr(self, b)}" for b in self._bounds)
        return f"{type(self).__name__[1:]}({args})"


# ------------------------------------------------------------------ dependent constraints
class _Dependent(Constraint):
    """A constraint that depends on other values (a distribution's parameters): it cannot be
    checked on its own; ``is_discrete``/``event_dim`` are known only where given."""

    def __init__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        self._is_discrete = is_discrete
        self._event_dim = event_dim

    @property
    def is_discrete(self):
        if self._is_discrete is NotImplemented:
            raise NotImplementedError(".is_discrete cannot be determined statically")
        return self._is_discrete

    @property
    def event_dim(self):
        if self._event_dim is NotImplemented:
            raise NotImplementedError(".event_dim cannot be determined statically")
        return self._event_dim

    def __call__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        """A dependent constraint with these static facts."""
        return _Dependent(is_discrete=self._is_discrete if is_discrete is NotImplemented
                          else is_discrete,
                          event_dim=self._event_dim if event_dim is NotImplemented
                          else event_dim)

    def check(self, x):
        raise ValueError("Cannot determine validity of dependent constraint")


class _DependentProperty(property, _Dependent):
    """A property of a distribution whose value is a constraint (``support`` of Uniform):
    on the class it is a dependent constraint, on an instance the computed constraint."""

    def __init__(self, fn=None, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        property.__init__(self, fn)
        _Dependent.__init__(self, is_discrete=is_discrete, event_dim=event_dim)

    def __call__(self, fn):
        return _DependentProperty(fn, is_discrete=self._is_discrete,
                                  event_dim=self._event_dim)


def is_dependent(constraint):
    """Whether ``constraint`` depends on other values (cannot be checked on its own)."""
    return isinstance(constraint, _Dependent)


# ------------------------------------------------------------------ combinators
class _IndependentConstraint(Constraint):
    """``base_constraint`` with its ``reinterpreted_batch_ndims`` rightmost batch dimensions
    made part of the event: a point is valid when all its entries are."""

    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        if not isinstance(base_constraint, Constraint):
            raise TypeError(f"{base_constraint} is not a Constraint")
        if not isinstance(reinterpreted_batch_ndims, int) or reinterpreted_batch_ndims < 0:
            raise ValueError("reinterpreted_batch_ndims must be a non-negative integer")
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    is_discrete = forwarded_property("base_constraint.is_discrete")

    @property
    def event_dim(self):
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value):
        ok = self.base_constraint.check(value)
        n = self.reinterpreted_batch_ndims
        if ok.dim() < n:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got {value.dim()}")
        return ok.reshape(*ok.shape[:ok.dim() - n], -1).all(-1)

    def __repr__(self):
        return (f"{type(self).__name__[1:]}({self.base_constraint!r}, "
                f"{self.reinterpreted_batch_ndims})")


class MixtureSameFamilyConstraint(Constraint):
    """The support of a MixtureSameFamily: a value is valid when it lies in the components'
    support ``base_constraint`` (checked against every component)."""

    def __init__(self, base_constraint):
        self.base_constraint = base_constraint

    is_discrete = forwarded_property("base_constraint.is_discrete")
    event_dim = forwarded_property("base_constraint.event_dim")

    def check(self, value):
        # the component dimension sits just left of the event dimensions
        return self.base_constraint.check(value.unsqueeze(-1 - self.event_dim)).all(-1)

    def __repr__(self):
        return f"{type(self).__name__}({self.base_constraint!r})"


class _PerSlice(Constraint):
    """Constraints ``cseq`` applied to slices along ``dim``: discrete if any is, with the
    largest event dim among them."""

    def __init__(self, cseq, dim=0):
        self.cseq = list(cseq)
        self.dim = dim

    @property
    def is_discrete(self):
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self):
        return max(c.event_dim for c in self.cseq)


class _Cat(_PerSlice):
    """Constraints ``cseq`` applied to consecutive slices (of ``lengths``) along ``dim``."""

    def __init__(self, cseq, dim=0, lengths=None):
        super().__init__(cseq, dim)
        self.lengths = [1] * len(self.cseq) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.cseq):
            raise ValueError("cseq and lengths must have the same length")

    def check(self, value):
        out, start = [], 0
        for c, n in zip(self.cseq, self.lengths):
            out.append(c.check(value.narrow(self.dim, start, n)))
            start += n
        return jt.cat(out, self.dim)


class _Stack(_PerSlice):
    """Constraints ``cseq`` applied to the slices along ``dim``, one each."""

    def check(self, value):
        parts = value.unbind(self.dim)
        return jt.stack([c.check(v) for c, v in zip(self.cseq, parts)], self.dim)


# ------------------------------------------------------------------ discrete sets
class _Boolean(Constraint):
    is_discrete = True

    def check(self, value):
        return (value == 0) | (value == 1)


class _OneHot(Constraint):
    is_discrete = True
    event_dim = 1

    def check(self, value):
        binary = ((value == 0) | (value == 1)).all(-1)
        return binary & (value.sum(-1) == 1)


class _IntegerInterval(_Bounded):
    is_discrete = True
    _bounds = ("lower_bound", "upper_bound")

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value):
        return (value % 1 == 0) & (value >= self.lower_bound) & (value <= self.upper_bound)


class _IntegerGreaterThan(_Bounded):
    is_discrete = True
    _bounds = ("lower_bound",)

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound

    def check(self, value):
        return (value % 1 == 0) & (value >= self.lower_bound)


class _Multinomial(Constraint):
    """Nonnegative counts summing to at most ``upper_bound``."""

    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, x):
        return (x >= 0).all(-1) & (x.sum(-1) <= self.upper_bound)


# ------------------------------------------------------------------ real sets
class _Real(Constraint):
    def check(self, value):
        return value == value  # False only at NaN


class _GreaterThan(_Bounded):
    _bounds = ("lower_bound",)

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound

    def check(self, value):
        return value > self.lower_bound


class _GreaterThanEq(_GreaterThan):
    def check(self, value):
        return value >= self.lower_bound


class _LessThan(_Bounded):
    _bounds = ("upper_bound",)

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, value):
        return value < self.upper_bound


class _Interval(_Bounded):
    _bounds = ("lower_bound", "upper_bound")

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value):
        return (value >= self.lower_bound) & (value <= self.upper_bound)


class _HalfOpenInterval(_Interval):
    def check(self, value):
        return (value >= self.lower_bound) & (value < self.upper_bound)


class _Simplex(Constraint):
    """Nonnegative vectors summing to 1 (to 1e-6)."""

    event_dim = 1

    def check(self, value):
        return (value >= 0).all(-1) & ((value.sum(-1) - 1).abs() < 1e-6)


# ------------------------------------------------------------------ matrices
def _all_in_matrix(mask):
    return mask.all(-1).all(-1)


class _LowerTriangular(Constraint):
    event_dim = 2

    def check(self, value):
        return _all_in_matrix(value.tril() == value)


class _LowerCholesky(Constraint):
    """Lower-triangular with a positive diagonal."""

    event_dim = 2

    def check(self, value):
        positive_diag = (value.diagonal(dim1=-2, dim2=-1) > 0).all(-1)
        return _all_in_matrix(value.tril() == value) & positive_diag


class _CorrCholesky(Constraint):
    """Cholesky factors of correlation matrices: lower Cholesky with unit-norm rows."""

    event_dim = 2

    def check(self, value):
        tol = jt.finfo(value.dtype).eps * value.shape[-1] * 10
        norms = jt.linalg.norm(value.detach(), dim=-1)
        return _LowerCholesky().check(value) & ((norms - 1).abs() <= tol).all(-1)


class _Square(Constraint):
    event_dim = 2

    def check(self, value):
        return jt.full(value.shape[:-2], value.shape[-2] == value.shape[-1], dtype=jt.bool,
                       device=value.device)

    def _square_and(self, value, test):
        """``test(value)`` per matrix where the matrices are square (a static fact)."""
        if value.shape[-2] != value.shape[-1]:
            return self.check(value)
        return test(value)


class _Symmetric(_Square):
    def check(self, value):
        return self._square_and(value, _symmetric)


def _symmetric(value):
    return _all_in_matrix(value.isclose(value.mT, atol=1e-6))


class _PositiveSemidefinite(_Symmetric):
    def check(self, value):
        return self._square_and(
            value, lambda v: _symmetric(v) & (jt.linalg.eigvalsh(v) >= 0).all(-1))


class _PositiveDefinite(_Symmetric):
    def check(self, value):
        return self._square_and(
            value, lambda v: _symmetric(v) & (jt.linalg.eigvalsh(v) > 0).all(-1))


# ------------------------------------------------------------------ the public objects
dependent = _Dependent()
dependent_property = _DependentProperty
independent = _IndependentConstraint
boolean = _Boolean()
one_hot = _OneHot()
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
integer_interval = _IntegerInterval
real = _Real()
real_vector = independent(real, 1)
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
multinomial = _Multinomial
unit_interval = _Interval(0.0, 1.0)
interval = _Interval
half_open_interval = _HalfOpenInterval
simplex = _Simplex()
lower_triangular = _LowerTriangular()
lower_cholesky = _LowerCholesky()
corr_cholesky = _CorrCholesky()
square = _Square()
symmetric = _Symmetric()
positive_semidefinite = _PositiveSemidefinite()
positive_definite = _PositiveDefinite()
cat = _Cat
stack = _Stack
