"""Special functions: the gamma family (lgamma, digamma, polygamma, mvlgamma), the incomplete
gamma functions (igamma, igammac), Bessel functions of order 0 and 1 (i0, i0e, i1, i1e), the
Hurwitz zeta function and ``torch.special``'s entr, erfcx, log_ndtr and ndtri. torch.special's
Airy function, its other Bessel functions (first and second kind, modified, scaled, spherical)
and its orthogonal polynomials are ATen's kernels in ``special_bessel.py`` and
``special_poly.py``.

Each is published under PyTorch's names: ``torch.<fn>``, ``Tensor.<fn>``, ``Tensor.<fn>_`` where
PyTorch has them, and the ``torch.special`` aliases (``gammaln``, ``psi``, ``multigammaln``,
``gammainc``...). Values come from ``jax.scipy.special`` with PyTorch's results at the edges
(poles, zeros, infinities) put back with ``where``; derivatives are PyTorch's formulas
(``lgamma' = digamma``, ``digamma' = polygamma(1)``, ``polygamma(n)' = polygamma(n + 1)``), so
they agree at the poles too. Trigamma is PyTorch's own series (it gives PyTorch's finite
values at the negative integers).

Differences from PyTorch:
    - ``mvlgamma`` does not check that every element exceeds ``(p - 1) / 2`` (the check needs
      the values on the host); such elements give NaN or inf instead of the RuntimeError.
    - ``igamma``/``igammac`` also have a gradient with respect to ``input`` (PyTorch raises
      "not implemented" for it).
"""

from __future__ import annotations

import math

import jax.numpy as jnp
import jax.scipy.special as jss

from .._core.views import inplace_call
from ._elementwise import kink_grad, refuse
from ._registry import export, op

_C64 = "not implemented for 'ComplexFloat'"


def _real(kernel, x):
    refuse(kernel, x, complex_=True)


# ------------------------------------------------------------------ digamma and polygamma
def _wide(fn, x):
    """``fn(x)`` computed in float64 for shorter floats (JAX's float32 kernels are a few ulp off
    the correctly rounded values PyTorch's CPU kernels give)."""
    if x.dtype == jnp.float64:
        return fn(x)
    return fn(x.astype(jnp.float64)).astype(x.dtype)


def _digamma_value(x):
    """digamma with PyTorch's poles: -inf at +0, +inf at -0, NaN at the negative integers."""
    d = _wide(jss.digamma, x)
    return jnp.where(x == 0, jnp.copysign(jnp.asarray(jnp.inf, x.dtype), -x), d)


def _trigamma(x):
    """PyTorch's trigamma series (reflection below 0.5, six recurrence steps, asymptotics)."""
    one = jnp.ones_like(x)
    pi = jnp.asarray(math.pi, x.dtype)
    small = x < 0.5
    sin_pi_x = jnp.sin(pi * x)
    result = jnp.where(small, -(pi * pi) / (sin_pi_x * sin_pi_x), jnp.zeros_like(x))
    sign = jnp.where(small, -one, one)
    x = jnp.where(small, one - x, x)
    for _ in range(6):
        result = result + one / (x * x)
        x = x + one
    ixx = one / (x * x)
    tail = (one + one / (2 * x) + ixx * (1.0 / 6 - ixx * (1.0 / 30 - ixx * (1.0 / 42)))) / x
    return sign * (result + tail)


def _zeta_value(x, q):
    """Hurwitz zeta with the edge results of PyTorch's (Cephes') zeta."""
    inf = jnp.asarray(jnp.inf, x.dtype)
    nan = jnp.asarray(jnp.nan, x.dtype)
    z = jss.zeta(x, q)
    z = jnp.where(jnp.isposinf(x), jnp.where(q < 1, inf, jnp.where(q == 1, 1, 0)).astype(x.dtype),
                  z)
    neg_q = q <= 0
    z = jnp.where(neg_q & (x != jnp.floor(x)), nan, z)
    z = jnp.where(neg_q & (q == jnp.floor(q)), inf, z)
    z = jnp.where(x < 1, nan, z)
    return jnp.where(x == 1, inf, z)


def _polygamma_value(n, x):
    if n == 0:
        return _digamma_value(x)
    if n == 1:
        return _trigamma(x)
    sign = 1.0 if n % 2 else -1.0
    fact = jnp.asarray(sign * math.exp(math.lgamma(n + 1.0)), x.dtype)
    return fact * _zeta_value(jnp.asarray(n + 1.0, x.dtype), x)


_POLYGAMMA = {}


def _polygamma_fn(n):
    """polygamma(n, .) as an elementwise function whose derivative is polygamma(n + 1, .)."""
    f = _POLYGAMMA.get(n)
    if f is None:
        @kink_grad(lambda x, out: _polygamma_fn(n + 1)(x))
        def f(x):
            return _polygamma_value(n, x)

        _POLYGAMMA[n] = f
    return f


@kink_grad(lambda x, out: _polygamma_fn(0)(x))
def _lgamma(x):
    return _wide(jss.gammaln, x)


@op("lgamma", inplace=True, promote="float")
def lgamma(input):
    """log |Gamma(input)|; its derivative is digamma (-inf at 0, as in PyTorch)."""
    _real("lgamma_vml_cpu", input)
    return _lgamma(input)


export("gammaln", namespace="special")(lgamma)


@op("digamma", inplace=True, promote="float")
def digamma(input):
    """The logarithmic derivative of Gamma: -inf at 0 (+inf at -0), NaN at negative integers."""
    _real("digamma", input)
    return _polygamma_fn(0)(input)


export("digamma", namespace="special")(digamma)
export("psi", namespace="special")(digamma)


def _check_n(n):
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")


@op("polygamma", method=False, namespace=",special", promote="float")
def polygamma(n, input):
    """The n-th derivative of digamma (``torch.polygamma(n, input)``)."""
    _check_n(n)
    _real("polygamma", input)
    return _polygamma_fn(int(n))(input)


@op("_polygamma_self", method=False, out=False, promote="float",
    grad_name="PolygammaBackward0")
def _polygamma_self(input, n):
    """``Tensor.polygamma(n)``: the input first (the order ``Tensor.polygamma_`` needs)."""
    return polygamma.__wrapped__(n, input)


@export("polygamma", namespace=None, method=True)
def _polygamma_method(self, n):
    return _polygamma_self(self, n)


@export("polygamma_", namespace=None, method=True)
def _polygamma_inplace(self, n):
    return inplace_call(self, _polygamma_self._opdef, (n,), {})


@op("mvlgamma", inplace=True, promote="float")
def mvlgamma(input, p):
    """The log of the multivariate gamma function of dimension ``p``:
    ``sum_j lgamma(input - j / 2) + p (p - 1) / 4 log(pi)``."""
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    _real("mvlgamma", input)
    offsets = jnp.arange(-p / 2 + 0.5, 0.5, 0.5, dtype=input.dtype)
    terms = _lgamma(input[..., None] + offsets)
    return terms.sum(-1) + jnp.asarray(p * (p - 1) * math.log(math.pi) / 4, input.dtype)


export("multigammaln", namespace="special")(mvlgamma)


# ------------------------------------------------------------------ incomplete gamma
def _incomplete_gamma(kernel, a, x, lower):
    """P(a, x) (``lower``) or Q(a, x), with PyTorch's results at the edges of the domain."""
    _real(kernel, a)
    a, x = jnp.broadcast_arrays(a, x)
    value = jss.gammainc(a, x) if lower else jss.gammaincc(a, x)
    nan = jnp.asarray(jnp.nan, value.dtype)
    one, zero = jnp.ones_like(value), jnp.zeros_like(value)
    at_inf_x, at_inf_a = (one, zero) if lower else (zero, one)
    v = jnp.where(jnp.isinf(x), at_inf_x, value)
    v = jnp.where(jnp.isinf(a), jnp.where(jnp.isinf(x), nan, at_inf_a), v)
    v = jnp.where(x == 0, at_inf_a, v)  # P(a, 0) = 0, Q(a, 0) = 1
    v = jnp.where(a == 0, jnp.where(x > 0, at_inf_x, nan), v)  # P(0, x > 0) = 1
    return jnp.where((x < 0) | (a < 0), nan, v)


_IGAMMA = {"tensors": ("input", "other"), "promote": "float", "inplace": True}


@op("igamma", **_IGAMMA)
def igamma(input, other):
    """The regularized lower incomplete gamma function P(input, other)."""
    return _incomplete_gamma("igamma_cpu", input, other, lower=True)


@op("igammac", **_IGAMMA)
def igammac(input, other):
    """The regularized upper incomplete gamma function Q(input, other)."""
    return _incomplete_gamma("igammac_cpu", input, other, lower=False)


export("gammainc", namespace="special")(igamma)
export("gammaincc", namespace="special")(igammac)


# ------------------------------------------------------------------ Bessel functions
@op("i0", inplace=True, promote="float", namespace=",special")
def i0(input):
    """The modified Bessel function of the first kind, order 0."""
    _real("i0_vml_cpu", input)
    return jss.i0(input)


def _special_unary(name, fn, kernel, doc, grad):
    def body(input):
        _real(kernel, input)
        return fn(input)

    body.__name__ = name
    body.__doc__ = doc
    return op(name, method=False, namespace="special", promote="float",
              grad_name=f"Special{grad}Backward0")(body)


i0e = _special_unary("i0e", jss.i0e, "i0e_cpu", "exp(-|x|) i0(x).", "I0E")
i1 = _special_unary("i1", jss.i1, "i1_cpu", "The modified Bessel function of the first "
                    "kind, order 1.", "I1")
i1e = _special_unary("i1e", jss.i1e, "i1e_cpu", "exp(-|x|) i1(x).", "I1E")
erfcx = _special_unary("erfcx", jss.erfcx, "erfcx_cpu", "The scaled complementary error "
                       "function exp(x^2) erfc(x).", "Erfcx")
log_ndtr = _special_unary("log_ndtr", jss.log_ndtr, "log_ndtr_cpu", "The log of the standard "
                          "normal CDF.", "LogNdtr")
ndtri = _special_unary("ndtri", jss.ndtri, "ndtri_cpu", "The inverse of the standard normal "
                       "CDF (NaN outside [0, 1], -inf and inf at 0 and 1).", "Ndtri")


def _entr_jac(x, out):
    return -(1 + jnp.log(x))


@kink_grad(_entr_jac)
def _entr(x):
    out = jnp.where(x > 0, -jss.xlogy(x, x), jnp.where(x == 0, 0, -jnp.inf)).astype(x.dtype)
    return jnp.where(jnp.isnan(x), x, out)


entr = _special_unary("entr", _entr, "entr_cpu", "-x log(x) for x > 0, 0 at 0, -inf below.",
                      "Entr")


@op("zeta", method=False, namespace="special", tensors=("input", "other"),
    promote="float", grad_name="SpecialZetaBackward0")
def zeta(input, other):
    """The Hurwitz zeta function sum_k (k + other)^-input; the gradient with respect to
    ``other`` is ``-input zeta(input + 1, other)``."""
    _real("zeta", input)
    x, q = jnp.broadcast_arrays(input, other)
    return _zeta(x, q)


@kink_grad(None, lambda x, q, out: -x * _zeta_value(x + 1, q))
def _zeta(x, q):
    return _zeta_value(x, q)
