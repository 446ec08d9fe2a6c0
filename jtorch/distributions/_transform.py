"""The Transform base class, its inverse view and ComposeTransform (torch.distributions's
``Transform``, ``_InverseTransform``, ``ComposeTransform``, ``identity_transform``).

A transform ``t`` maps ``x`` in ``t.domain`` to ``y = t(x)`` in ``t.codomain``; bijective
ones have ``t.inv`` and ``t.log_abs_det_jacobian(x, y)``. With ``cache_size=1`` a transform
remembers its last (x, y) pair, so ``t.inv(t(x)) is x``.
"""

from __future__ import annotations

import copy
import weakref

from . import _lib as jt, constraints
from ._forward import forwarded_property
from .utils import _sum_rightmost


class Transform:
    """Transform(cache_size=0): the base class of invertible maps with computable
    log-determinant Jacobians.

    Args:
        cache_size (int): 0 (no cache) or 1 (remember the latest pair).

    Subclasses implement ``_call`` (forward), ``_inverse`` and ``log_abs_det_jacobian`` and
    set ``domain``, ``codomain``, ``bijective``, ``sign`` where they apply.
    """

    bijective = False
    domain: constraints.Constraint
    codomain: constraints.Constraint

    def __init__(self, cache_size=0):
        self._set_cache(cache_size)
        # cooperative, as PyTorch's: a transform that is also an nn.Module (pyro's
        # TransformModule) initialises its Module half here
        super().__init__()

    def _set_cache(self, cache_size):
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._cached_x_y = None, None
        self._inv = None   # PyTorch's name: a weakref to the inverse (torchrl reads it)

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_inv"] = None  # weak references do not pickle
        return state

    @property
    def event_dim(self):
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self):
        """The inverse transform (one object per transform while it is referenced)."""
        inv = self._inv() if self._inv is not None else None
        if inv is None:
            inv = self._make_inverse()
            self._inv = weakref.ref(inv)
        return inv

    def _make_inverse(self):
        return _InverseTransform(self)

    @property
    def sign(self):
        """The sign of the Jacobian determinant, for bijective elementwise transforms."""
        raise NotImplementedError

    def with_cache(self, cache_size=1):
        """This transform with cache size ``cache_size`` (itself if it has it already)."""
        if self._cache_size == cache_size:
            return self
        new = copy.copy(self)
        new._set_cache(cache_size)
        return new

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return not self.__eq__(other)

    def __call__(self, x):
        return self._through_cache(x, self._call, 0)

    def _inv_call(self, y):
        return self._through_cache(y, self._inverse, 1)

    def _through_cache(self, value, fn, side):
        """``fn(value)``, or the other half of the cached ``(x, y)`` pair when ``value`` is
        its ``side`` half (0: ``x``, 1: ``y``); the pair is then replaced (cache_size 1)."""
        if self._cache_size == 0:
            return fn(value)
        cached = self._cached_x_y
        if value is cached[side]:
            return cached[1 - side]
        result = fn(value)
        self._cached_x_y = (value, result) if side == 0 else (result, value)
        return result

    def _call(self, x):
        raise NotImplementedError

    def _inverse(self, y):
        raise NotImplementedError

    def log_abs_det_jacobian(self, x, y):
        """``log |det dy/dx|`` at the pair ``(x, y = self(x))``."""
        raise NotImplementedError

    def forward_shape(self, shape):
        """The shape of ``self(x)`` for ``x`` of ``shape``."""
        return shape

    def inverse_shape(self, shape):
        """The shape of ``self.inv(y)`` for ``y`` of ``shape``."""
        return shape

    def __repr__(self):
        return type(self).__name__ + "()"


class _InverseTransform(Transform):
    """The inverse of a transform: its domain and codomain swapped, calls its inverse."""

    def __init__(self, transform):
        super().__init__(cache_size=transform._cache_size)
        self._forward = transform

    domain = forwarded_property("_forward.codomain")
    codomain = forwarded_property("_forward.domain")
    bijective = forwarded_property("_forward.bijective")
    sign = forwarded_property("_forward.sign")
    inv = forwarded_property("_forward")

    def with_cache(self, cache_size=1):
        return self._forward.with_cache(cache_size).inv

    def __eq__(self, other):
        return isinstance(other, _InverseTransform) and self._forward == other._forward

    def __repr__(self):
        return f"{type(self).__name__}({self._forward!r})"

    def __call__(self, x):
        return self._forward._inv_call(x)

    def log_abs_det_jacobian(self, x, y):
        return -self._forward.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape):
        return self._forward.inverse_shape(shape)

    def inverse_shape(self, shape):
        return self._forward.forward_shape(shape)


class ComposeTransform(Transform):
    """ComposeTransform(parts, cache_size=0): the transforms ``parts`` applied in order.

    Its inverse is the composition of the parts' inverses in reverse order.
    """

    def __init__(self, parts, cache_size=0):
        if cache_size:
            parts = [part.with_cache(cache_size) for part in parts]
        super().__init__(cache_size=cache_size)
        self.parts = list(parts)

    def __eq__(self, other):
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    def _event_dims(self):
        """The event dims at the input and at the output: a part whose domain needs more
        event dimensions than its predecessor's codomain gives makes the earlier parts
        work on more (and so the later ones)."""
        out = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):
            out = max(out + part.domain.event_dim - part.codomain.event_dim,
                      part.domain.event_dim)
        inp = out
        for part in self.parts:
            inp = max(inp + part.codomain.event_dim - part.domain.event_dim,
                      part.codomain.event_dim)
        return out, inp

    @property
    def domain(self):
        if not self.parts:
            return constraints.real
        return _with_event_dim(self.parts[0].domain, self._event_dims()[0])

    @property
    def codomain(self):
        if not self.parts:
            return constraints.real
        return _with_event_dim(self.parts[-1].codomain, self._event_dims()[1])

    @property
    def bijective(self):
        return all(p.bijective for p in self.parts)

    @property
    def sign(self):
        sign = 1
        for p in self.parts:
            sign = sign * p.sign
        return sign

    def _make_inverse(self):
        inv = ComposeTransform([p.inv for p in reversed(self.parts)])
        inv._inv = weakref.ref(self)
        return inv

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x):
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x, y):
        if not self.parts:
            return jt.zeros_like(x)
        xs = [x]
        for part in self.parts[:-1]:
            xs.append(part(xs[-1]))
        xs.append(y)
        total, event_dim = 0, self.domain.event_dim
        for part, a, b in zip(self.parts, xs[:-1], xs[1:]):
            term = part.log_abs_det_jacobian(a, b)
            total = total + _sum_rightmost(term, event_dim - part.domain.event_dim)
            event_dim += part.codomain.event_dim - part.domain.event_dim
        return total

    def forward_shape(self, shape):
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __repr__(self):
        inner = ",\n    ".join(repr(p) for p in self.parts)
        return f"{type(self).__name__}(\n    {inner}\n)"


def _with_event_dim(constraint, event_dim):
    """``constraint`` reinterpreted to span ``event_dim`` dimensions."""
    if event_dim > constraint.event_dim:
        return constraints.independent(constraint, event_dim - constraint.event_dim)
    return constraint


identity_transform = ComposeTransform([])
