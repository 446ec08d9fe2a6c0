"""log I0 and log I1 (modified Bessel functions of the first kind) by the polynomial
approximations of Abramowitz and Stegun 9.8.1-9.8.4 (relative error below 2e-7), which is
what PyTorch's VonMises evaluates: the same approximation gives the same numbers."""

from __future__ import annotations

import math

from . import _lib as jt

_SMALL = {  # I0(x) and I1(x) / x: polynomials in (x / 3.75)^2 for x < 3.75
    0: (1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.0360768, 0.0045813),
    1: (0.5, 0.87890594, 0.51498869, 0.15084934, 0.02658733, 0.00301532, 0.00032411),
}
_LARGE = {  # sqrt(x) exp(-x) I_n(x): polynomials in 3.75 / x for x >= 3.75
    0: (0.39894228, 0.01328592, 0.00225319, -0.00157565, 0.00916281, -0.02057706,
        0.02635537, -0.01647633, 0.00392377),
    1: (0.39894228, -0.03988024, -0.00362018, 0.00163801, -0.01031555, 0.02282967,
        -0.02895312, 0.01787654, -0.00420059),
}


def _horner(coefficients, y):
    out = jt.zeros_like(y) + coefficients[-1]
    for c in reversed(coefficients[:-1]):
        out = out * y + c
    return out


def log_bessel_i(x, order):
    """``log I_order(x)`` for x > 0, order 0 or 1."""
    small = _horner(_SMALL[order], (x / 3.75).pow(2))
    if order == 1:
        small = x.abs() * small
    safe = jt.where(x < 3.75, 3.75, x)  # keep the large branch finite where it is unused
    large = safe - 0.5 * safe.log() + _horner(_LARGE[order], 3.75 / safe).log()
    return jt.where(x < 3.75, small.log(), large)


LOG_2PI = math.log(2 * math.pi)
