"""Transforms that rearrange dimensions or combine other transforms along one: Independent,
Reshape, Cat and Stack."""

from __future__ import annotations

import math

from . import _lib as jt, constraints
from ._forward import forwarded_property
from ._transform import Transform
from .utils import _sum_rightmost


class _Wrapping(Transform):
    """A transform built on others (``self._parts``): its cached copy caches them too."""

    _parts: list

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        new = super().with_cache(cache_size)
        new._parts = [t.with_cache(cache_size) for t in self._parts]
        return new


class IndependentTransform(_Wrapping):
    """IndependentTransform(base_transform, reinterpreted_batch_ndims, cache_size=0):
    ``base_transform`` with ``reinterpreted_batch_ndims`` more rightmost dimensions in its
    event (the log-determinant sums over them)."""

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        super().__init__(cache_size=cache_size)
        self._parts = [base_transform.with_cache(cache_size)]
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    @property
    def base_transform(self):
        return self._parts[0]

    @property
    def domain(self):
        return constraints.independent(self.base_transform.domain,
                                       self.reinterpreted_batch_ndims)

    @property
    def codomain(self):
        return constraints.independent(self.base_transform.codomain,
                                       self.reinterpreted_batch_ndims)

    bijective = forwarded_property("base_transform.bijective")
    sign = forwarded_property("base_transform.sign")

    def _call(self, x):
        if x.dim() < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y):
        if y.dim() < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        return _sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y),
                              self.reinterpreted_batch_ndims)

    def __repr__(self):
        return (f"{type(self).__name__}({self.base_transform!r}, "
                f"{self.reinterpreted_batch_ndims})")

    def forward_shape(self, shape):
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        return self.base_transform.inverse_shape(shape)


def _split_shape(shape, event):
    """``shape`` cut into (batch, event) where its rightmost part must be ``event``."""
    if len(shape) < len(event):
        raise ValueError("Too few dimensions on input")
    cut = len(shape) - len(event)
    if tuple(shape[cut:]) != tuple(event):
        raise ValueError(f"Shape mismatch: expected {tuple(shape[cut:])} but got "
                         f"{tuple(event)}")
    return tuple(shape[:cut])


class ReshapeTransform(Transform):
    """ReshapeTransform(in_shape, out_shape, cache_size=0): reshapes the rightmost
    ``in_shape`` dimensions into ``out_shape`` (same number of elements)."""

    bijective = True

    def __init__(self, in_shape, out_shape, cache_size=0):
        self.in_shape, self.out_shape = jt.Size(in_shape), jt.Size(out_shape)
        if math.prod(self.in_shape) != math.prod(self.out_shape):
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    @property
    def domain(self):
        return constraints.independent(constraints.real, len(self.in_shape))

    @property
    def codomain(self):
        return constraints.independent(constraints.real, len(self.out_shape))

    def _call(self, x):
        batch = x.shape[:x.dim() - len(self.in_shape)]
        return x.reshape(*batch, *self.out_shape)

    def _inverse(self, y):
        batch = y.shape[:y.dim() - len(self.out_shape)]
        return y.reshape(*batch, *self.in_shape)

    def log_abs_det_jacobian(self, x, y):
        return x.new_zeros(x.shape[:x.dim() - len(self.in_shape)])

    def forward_shape(self, shape):
        return jt.Size(_split_shape(shape, self.in_shape) + tuple(self.out_shape))

    def inverse_shape(self, shape):
        return jt.Size(_split_shape(shape, self.out_shape) + tuple(self.in_shape))


class _AlongDim(_Wrapping):
    """Transform ``tseq[i]`` applied to the i-th part of the input along ``dim``."""

    def __init__(self, tseq, dim, cache_size):
        super().__init__(cache_size=cache_size)
        self._parts = [t.with_cache(cache_size) for t in tseq]
        self.dim = dim

    transforms = forwarded_property("_parts")

    @property
    def bijective(self):
        return all(t.bijective for t in self._parts)


class CatTransform(_AlongDim):
    """CatTransform(tseq, dim=0, lengths=None, cache_size=0): transform ``tseq[i]`` applied
    to the i-th consecutive slice (of ``lengths[i]``, default 1) along ``dim``."""

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        super().__init__(tseq, dim, cache_size)
        self.lengths = [1] * len(self._parts) if lengths is None else list(lengths)
        if len(self.lengths) != len(self._parts):
            raise ValueError("tseq and lengths must have the same length")

    @property
    def event_dim(self):
        return max(t.event_dim for t in self._parts)

    @property
    def length(self):
        return sum(self.lengths)

    @property
    def domain(self):
        return constraints.cat([t.domain for t in self._parts], self.dim, self.lengths)

    @property
    def codomain(self):
        return constraints.cat([t.codomain for t in self._parts], self.dim, self.lengths)

    def _slices(self, x):
        if x.shape[self.dim] != self.length:
            raise ValueError(f"Expected size {self.length} along dim {self.dim}, got "
                             f"{x.shape[self.dim]}")
        start = 0
        for n in self.lengths:
            yield x.narrow(self.dim, start, n)
            start += n

    def _call(self, x):
        return jt.cat([t(s) for t, s in zip(self._parts, self._slices(x))], self.dim)

    def _inverse(self, y):
        return jt.cat([t.inv(s) for t, s in zip(self._parts, self._slices(y))], self.dim)

    def log_abs_det_jacobian(self, x, y):
        terms = [_sum_rightmost(t.log_abs_det_jacobian(a, b), self.event_dim - t.event_dim)
                 for t, a, b in zip(self._parts, self._slices(x), self._slices(y))]
        # the concatenated dimension survives the event sums only if it is a batch one
        dim = (self.dim - x.dim() if self.dim >= 0 else self.dim) + self.event_dim
        return jt.cat(terms, dim) if dim < 0 else sum(terms)


class StackTransform(_AlongDim):
    """StackTransform(tseq, dim=0, cache_size=0): transform ``tseq[i]`` applied to the i-th
    slice along ``dim``."""

    def __init__(self, tseq, dim=0, cache_size=0):
        super().__init__(tseq, dim, cache_size)

    @property
    def domain(self):
        return constraints.stack([t.domain for t in self._parts], self.dim)

    @property
    def codomain(self):
        return constraints.stack([t.codomain for t in self._parts], self.dim)

    def _slices(self, x):
        if x.shape[self.dim] != len(self._parts):
            raise ValueError(f"Expected size {len(self._parts)} along dim {self.dim}, got "
                             f"{x.shape[self.dim]}")
        return x.unbind(self.dim)

    def _map(self, fn, x):
        return jt.stack([fn(t, s) for t, s in zip(self._parts, self._slices(x))], self.dim)

    def _call(self, x):
        return self._map(lambda t, s: t(s), x)

    def _inverse(self, y):
        return self._map(lambda t, s: t.inv(s), y)

    def log_abs_det_jacobian(self, x, y):
        pairs = zip(self._parts, self._slices(x), self._slices(y))
        return jt.stack([t.log_abs_det_jacobian(a, b) for t, a, b in pairs], self.dim)
