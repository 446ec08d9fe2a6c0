"""Elementwise transforms: Exp, Power, Sigmoid, Softplus, Tanh, Abs, Affine and
CumulativeDistribution."""

from __future__ import annotations

import math
import numbers

from . import _lib as jt, constraints
from ._forward import forwarded_property
from ._math import atanh, clipped_sigmoid, softplus
from ._transform import Transform
from .utils import _sum_rightmost, broadcast_all


class _Parameterless(Transform):
    """A transform without parameters: equal to every instance of its class."""

    def __eq__(self, other):
        return isinstance(other, type(self))


class _IncreasingOnReals(_Parameterless):
    """A parameterless increasing bijection from the real line onto ``codomain``."""

    domain = constraints.real
    bijective = True
    sign = 1


class ExpTransform(_IncreasingOnReals):
    """``y = exp(x)``."""

    codomain = constraints.positive

    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        return x


class PowerTransform(Transform):
    """PowerTransform(exponent, cache_size=0): ``y = x ** exponent`` on positive x."""

    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent, cache_size=0):
        super().__init__(cache_size=cache_size)
        (self.exponent,) = broadcast_all(exponent)

    @property
    def sign(self):
        return self.exponent.sign()

    def __eq__(self, other):
        return isinstance(other, PowerTransform) and bool((self.exponent ==
                                                           other.exponent).all())

    def _call(self, x):
        return x.pow(self.exponent)

    def _inverse(self, y):
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape):
        return jt.broadcast_shapes(shape, tuple(self.exponent.shape))

    inverse_shape = forward_shape


class SigmoidTransform(_IncreasingOnReals):
    """``y = sigmoid(x)`` (kept inside (0, 1))."""

    codomain = constraints.unit_interval

    def _call(self, x):
        return clipped_sigmoid(x)

    def _inverse(self, y):
        info = jt.finfo(y.dtype)
        y = y.clamp(min=info.tiny, max=1 - info.eps)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x, y):
        return -softplus(-x) - softplus(x)


class SoftplusTransform(_IncreasingOnReals):
    """``y = log(1 + exp(x))``."""

    codomain = constraints.positive

    def _call(self, x):
        return softplus(x)

    def _inverse(self, y):
        return (-y).expm1().neg().log() + y

    def log_abs_det_jacobian(self, x, y):
        return -softplus(-x)


class TanhTransform(_IncreasingOnReals):
    """``y = tanh(x)``."""

    codomain = constraints.interval(-1.0, 1.0)

    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        return atanh(y)

    def log_abs_det_jacobian(self, x, y):
        # log(1 - tanh(x)^2) = 2 (log 2 - x - softplus(-2x)), stable for large |x|
        return 2.0 * (math.log(2.0) - x - softplus(-2.0 * x))


class AbsTransform(_Parameterless):
    """``y = |x|`` (not invertible: the inverse returns the positive root)."""

    domain = constraints.real
    codomain = constraints.positive

    def _call(self, x):
        return x.abs()

    def _inverse(self, y):
        return y


class AffineTransform(Transform):
    """AffineTransform(loc, scale, event_dim=0, cache_size=0): ``y = loc + scale * x``;
    ``event_dim`` rightmost dimensions form one event (the log-determinant sums over them).
    """

    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.loc, self.scale, self._event_dim = loc, scale, event_dim

    @property
    def event_dim(self):
        return self._event_dim

    @property
    def domain(self):
        if self._event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self._event_dim)

    codomain = domain

    @property
    def sign(self):
        if isinstance(self.scale, numbers.Real):
            return 1 if float(self.scale) > 0 else -1 if float(self.scale) < 0 else 0
        return self.scale.sign()

    def __eq__(self, other):
        if not isinstance(other, AffineTransform):
            return False
        return _same(self.loc, other.loc) and _same(self.scale, other.scale)

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        if isinstance(self.scale, numbers.Real):
            log_scale = jt.full_like(x, math.log(abs(self.scale)))
        else:
            log_scale = self.scale.abs().log().expand(x.shape)
        return _sum_rightmost(log_scale, self._event_dim)

    def forward_shape(self, shape):
        return jt.broadcast_shapes(shape, tuple(getattr(self.loc, "shape", ())),
                                   tuple(getattr(self.scale, "shape", ())))

    inverse_shape = forward_shape


def _same(a, b):
    """Whether two parameters (numbers or tensors) are equal everywhere."""
    if isinstance(a, numbers.Number) and isinstance(b, numbers.Number):
        return a == b
    return bool((a == b).all())


class CumulativeDistributionTransform(Transform):
    """CumulativeDistributionTransform(distribution, cache_size=0): ``y = distribution.cdf(x)``
    (the probability integral transform); the inverse is ``icdf``."""

    bijective = True
    codomain = constraints.unit_interval
    sign = 1

    def __init__(self, distribution, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    domain = forwarded_property("distribution.support")

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)
