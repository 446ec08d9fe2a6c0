"""``torch.special``'s orthogonal polynomials of degree ``n``: chebyshev_polynomial_t/u/v/w,
shifted_chebyshev_polynomial_t/u/v/w, hermite_polynomial_h/he, laguerre_polynomial_l and
legendre_polynomial_p.

Each is ATen's kernel (``aten/src/ATen/native/Math.h``) written with ``where`` over its cases,
in the order ATen tests them: ``n < 0`` gives 0; then the values at the ends of the interval
(``|x| == 1``; ``x == 0`` and ``x == 1`` for the shifted polynomials, ``x == 0`` for
Laguerre's); then the Chebyshev polynomials' closed trigonometric forms for large ``n`` inside
the interval (``n > 6``, ``n > 8`` or ``n > 4``, as ATen picks); ``n == 0`` and ``n == 1``;
and the three-term recurrence for the rest, which stops early where its value becomes NaN.
The recurrence is one ``lax.while_loop`` over the elements that take it, bounded by their
largest ``n`` (read inside the program, so it works on traced tensors), each element frozen
once its own ``n`` is reached.

``n`` takes a tensor or a Python number, as does ``x`` (not both); both are promoted to their
common float dtype and ``n`` is then truncated to an integer, as ATen's ``static_cast<int64_t>``
does on x86-64: NaN, infinities and values beyond int64's range become INT64_MIN, so they give
0. Hermite's polynomials are NaN above degree 128 (float32) or 512 (float64), as in ATen.
The outputs never require grad (PyTorch 2.13 defines no derivative for these functions).
"""

from __future__ import annotations

import jax.numpy as jnp
from jax import lax

from .._core.tensor_base import TensorBase
from ._registry import op
from .special_bessel import _cos, _sin, check_float, select_first, wide

_INT64_MIN = -(2 ** 63)


def _degree(n):
    """ATen's ``static_cast<int64_t>(n)`` (x86-64's cvttsd2si: out of range or NaN is
    INT64_MIN)."""
    ok = (n >= -2.0 ** 63) & (n < 2.0 ** 63)   # False for NaN
    return jnp.where(ok, jnp.trunc(jnp.where(ok, n, 0)).astype(jnp.int64), _INT64_MIN)


def _real(n, x):
    """An int64 expression of ``n`` (``n + 1``, ``-(n + n + 1)``) converted to x's dtype, as C++
    converts an integer returned or multiplied as a float."""
    return n.astype(x.dtype)


def _recurrence(steps, p, q, step, stop_at_nan=True):
    """ATen's ``for (i = 0; i < steps && !isnan(q); i++) { r = step(i, p, q); p = q; q = r; }``
    for every element at once (``steps`` per element, 0 for the elements that take another
    case); returns the last ``r`` (``q`` where no step ran). ``i`` (ATen's ``k`` less its
    start) is an int64 array of q's shape rather than a scalar: XLA turns a division by a
    scalar into a multiplication by its reciprocal, which is not correctly rounded."""
    def running(i, q):
        on = i < steps
        return on & ~jnp.isnan(q) if stop_at_nan else on

    def cond(state):
        i, _, q = state
        return jnp.any(running(i, q))

    def body(state):
        i, p, q = state
        on = running(i, q)
        r = step(i, p, q)
        return i + 1, jnp.where(on, q, p), jnp.where(on, r, q)

    i = jnp.zeros(q.shape, jnp.int64)
    return lax.while_loop(cond, body, (i, p, q))[2]


def _check_operands(name):
    def check(x, n, *args, **kwargs):
        if not isinstance(x, TensorBase) and not isinstance(n, TensorBase):
            raise TypeError(f"special_{name}() received an invalid combination of arguments - "
                            f"got ({type(x).__name__}, {type(n).__name__}), but expected one "
                            "of:\n * (Tensor x, Tensor n, *, Tensor out = None)\n * (Number x, "
                            "Tensor n, *, Tensor out = None)\n * (Tensor x, Number n, *, "
                            "Tensor out = None)\n")
    return check


def _polynomial(name, doc):
    """Publish ``torch.special.<name>(x, n)``, whose value the decorated ``fn(x, n)`` computes
    from x and the integer degree n (broadcast together)."""
    def deco(fn):
        def body(x, n):
            check_float(f"{name}_cpu", x)
            x, n = jnp.broadcast_arrays(lax.stop_gradient(x), lax.stop_gradient(n))
            return fn(x, _degree(n))

        body.__name__ = body.__qualname__ = name
        body.__doc__ = doc
        return op(name, method=False, namespace="special", tensors=("x", "n"),
                  promote="float", differentiable=False, check=_check_operands(name))(body)

    return deco


def _two_term(x, n, first, rest):
    """The common tail of the polynomials: 1 at n == 0, ``first`` at n == 1, ``rest`` above."""
    return select_first(rest, (n == 0, 1.0), (n == 1, first))


def _sign_by_parity(n, value):
    return jnp.where(n % 2 == 0, value, -value)


def _acos(x):
    return wide(jnp.arccos, x)


# ------------------------------------------------------------------ Chebyshev, on [-1, 1]
def _chebyshev_recurrence(x, n, first, skip):
    """T, U, V, W share ``r = 2x q - p`` from ``q = first`` (k = 2..n); ``skip`` marks the
    elements that another case decides (they take no step)."""
    steps = jnp.where((n >= 2) & ~skip, n - 1, 0)
    return _recurrence(steps, jnp.ones_like(x), first, lambda i, p, q: (x + x) * q - p)


# The four kinds below take x (the shifted argument 2x - 1 for the shifted polynomials), n, the
# degree above which ATen uses the closed form inside (-1, 1), and ``ends``: the elements the
# caller's special cases at the ends of the interval decide.
def _chebyshev_t(x, n, threshold, ends):
    """T_n(x) = cos(n acos(x)) or the recurrence."""
    trig = (n > threshold) & (jnp.abs(x) < 1.0)
    rest = _chebyshev_recurrence(x, n, x, trig | ends)
    return jnp.where(trig, _cos(_real(n, x) * _acos(x)), _two_term(x, n, x, rest))


def _chebyshev_u(x, n, threshold, ends):
    """U_n(x) = sin((n + 1) acos(x)) / sin(acos(x)) or the recurrence."""
    trig = (n > threshold) & (jnp.abs(x) < 1.0)
    theta = _acos(x)
    m = _real(n + 1, x)
    closed = jnp.where(_sin(theta) != 0.0, _sin(m * theta) / _sin(theta),
                       m * _cos(m * theta) / x)
    rest = _chebyshev_recurrence(x, n, x + x, trig | ends)
    return jnp.where(trig, closed, _two_term(x, n, x + x, rest))


def _chebyshev_v(x, n, threshold, ends):
    """V_n(x) = cos((n + 1/2) acos(x)) / cos(acos(x) / 2) or the recurrence."""
    trig = (n > threshold) & (jnp.abs(x) < 1.0)
    theta = _acos(x)
    closed = jnp.where(_sin(theta / 2.0) != 1.0,
                       _cos((_real(n, x) + 0.5) * theta) / _cos(theta / 2.0),
                       _sign_by_parity(n, _real(n + n + 1, x)))
    rest = _chebyshev_recurrence(x, n, x + x - 1.0, trig | ends)
    return jnp.where(trig, closed, _two_term(x, n, x + x - 1.0, rest))


def _chebyshev_w(x, n, threshold, ends, at_one):
    """W_n(x) = sin((n + 1/2) acos(x)) / sin(acos(x) / 2) or the recurrence; ``at_one`` is the
    closed form's value where cos(acos(x) / 2) rounds to 1."""
    trig = (n > threshold) & (jnp.abs(x) < 1.0)
    theta = _acos(x)
    closed = jnp.where(_cos(theta / 2.0) != 1.0,
                       _sin((_real(n, x) + 0.5) * theta) / _sin(theta / 2.0), at_one)
    rest = _chebyshev_recurrence(x, n, x + x + 1.0, trig | ends)
    return jnp.where(trig, closed, _two_term(x, n, x + x + 1.0, rest))


@_polynomial("chebyshev_polynomial_t", "The Chebyshev polynomial of the first kind T_n(x).")
def chebyshev_polynomial_t(x, n):
    at_ends = jnp.where((x > 0) | (n % 2 == 0), 1.0, -1.0)
    ends = jnp.abs(x) == 1.0
    return select_first(_chebyshev_t(x, n, 6, ends), (n < 0, 0.0), (ends, at_ends))


@_polynomial("chebyshev_polynomial_u", "The Chebyshev polynomial of the second kind U_n(x).")
def chebyshev_polynomial_u(x, n):
    m = _real(n + 1, x)
    at_ends = jnp.where((x > 0) | (n % 2 == 0), m, _real(-(n + 1), x))
    ends = jnp.abs(x) == 1.0
    return select_first(_chebyshev_u(x, n, 8, ends), (n < 0, 0.0), (ends, at_ends))


@_polynomial("chebyshev_polynomial_v", "The Chebyshev polynomial of the third kind V_n(x).")
def chebyshev_polynomial_v(x, n):
    at_ends = jnp.where(x > 0, 1.0, _sign_by_parity(n, _real(n + n + 1, x)))
    ends = jnp.abs(x) == 1.0
    return select_first(_chebyshev_v(x, n, 8, ends), (n < 0, 0.0), (ends, at_ends))


@_polynomial("chebyshev_polynomial_w", "The Chebyshev polynomial of the fourth kind W_n(x).")
def chebyshev_polynomial_w(x, n):
    at_ends = jnp.where(x > 0, _real(n + n + 1, x), _sign_by_parity(n, jnp.ones_like(x)))
    ends = jnp.abs(x) == 1.0
    return select_first(_chebyshev_w(x, n, 8, ends, at_ends), (n < 0, 0.0), (ends, at_ends))


# ------------------------------------------------------------------ shifted Chebyshev, on [0, 1]
# each is the kind above at ATen's ``x + x - 1``, after its own cases at x == 1 and x == 0
def _ends(x):
    return (x == 0.0) | (x == 1.0)


@_polynomial("shifted_chebyshev_polynomial_t",
             "The shifted Chebyshev polynomial of the first kind T*_n(x) = T_n(2x - 1).")
def shifted_chebyshev_polynomial_t(x, n):
    inner = _chebyshev_t(x + x - 1.0, n, 6, _ends(x))
    return select_first(inner, (n < 0, 0.0), (x == 1.0, 1.0),
                   (x == 0.0, _sign_by_parity(n, jnp.ones_like(x))))


@_polynomial("shifted_chebyshev_polynomial_u",
             "The shifted Chebyshev polynomial of the second kind U*_n(x) = U_n(2x - 1).")
def shifted_chebyshev_polynomial_u(x, n):
    m = _real(n + 1, x)
    inner = _chebyshev_u(x + x - 1.0, n, 6, _ends(x))
    return select_first(inner, (n < 0, 0.0), (x == 1.0, m),
                   (x == 0.0, jnp.where(n % 2 == 0, m, _real(-(n + 1), x))))


@_polynomial("shifted_chebyshev_polynomial_v",
             "The shifted Chebyshev polynomial of the third kind V*_n(x) = V_n(2x - 1).")
def shifted_chebyshev_polynomial_v(x, n):
    inner = _chebyshev_v(x + x - 1.0, n, 6, _ends(x))
    return select_first(inner, (n < 0, 0.0), (x == 1.0, 1.0),
                   (x == 0.0, _sign_by_parity(n, _real(n + n + 1, x))))


@_polynomial("shifted_chebyshev_polynomial_w",
             "The shifted Chebyshev polynomial of the fourth kind W*_n(x) = W_n(2x - 1).")
def shifted_chebyshev_polynomial_w(x, n):
    parity = _sign_by_parity(n, jnp.ones_like(x))
    inner = _chebyshev_w(x + x - 1.0, n, 4, _ends(x), parity)
    return select_first(inner, (n < 0, 0.0), (x == 1.0, _real(n + n + 1, x)), (x == 0.0, parity))


# ------------------------------------------------------------------ Hermite, Laguerre, Legendre
def _hermite_limit(x):
    return 128 if x.dtype == jnp.float32 else 512


@_polynomial("hermite_polynomial_h", "The physicists' Hermite polynomial H_n(x).")
def hermite_polynomial_h(x, n):
    steps = jnp.where((n >= 2) & (n <= _hermite_limit(x)), n - 1, 0)
    # ATen's k runs over 2, 4, ..., 2n - 2: k = 2i + 2 at step i
    rest = _recurrence(steps, jnp.ones_like(x), x + x,
                       lambda i, p, q: (x + x) * q - _real(i + i + 2, x) * p, stop_at_nan=False)
    return select_first(rest, (n < 0, 0.0), (n == 0, 1.0), (n == 1, x + x),
                   (n > _hermite_limit(x), float("nan")))


@_polynomial("hermite_polynomial_he", "The probabilists' Hermite polynomial He_n(x).")
def hermite_polynomial_he(x, n):
    steps = jnp.where((n >= 2) & (n <= _hermite_limit(x)), n - 1, 0)
    rest = _recurrence(steps, jnp.ones_like(x), x,
                       lambda i, p, q: x * q - _real(i + 1, x) * p, stop_at_nan=False)
    return select_first(rest, (n < 0, 0.0), (n == 0, 1.0), (n == 1, x),
                   (n > _hermite_limit(x), float("nan")))


def _laguerre_step(x, k, p, q):
    return ((_real(k + k, x) + (1.0 - x)) * q - _real(k, x) * p) / _real(k + 1, x)


def _legendre_step(x, k, p, q):
    return (_real(k + k + 1, x) * x * q - _real(k, x) * p) / _real(k + 1, x)


@_polynomial("laguerre_polynomial_l", "The Laguerre polynomial L_n(x).")
def laguerre_polynomial_l(x, n):
    steps = jnp.where((n >= 2) & (x != 0.0), n - 1, 0)
    rest = _recurrence(steps, jnp.ones_like(x), 1.0 - x,
                       lambda i, p, q: _laguerre_step(x, i + 1, p, q))
    return select_first(rest, (n < 0, 0.0), (x == 0.0, 1.0), (n == 0, 1.0), (n == 1, 1.0 - x))


@_polynomial("legendre_polynomial_p", "The Legendre polynomial P_n(x).")
def legendre_polynomial_p(x, n):
    at_ends = jnp.where((x > 0) | (n % 2 == 0), 1.0, -1.0)
    steps = jnp.where((n >= 2) & (jnp.abs(x) != 1.0), n - 1, 0)
    rest = _recurrence(steps, jnp.ones_like(x), x,
                       lambda i, p, q: _legendre_step(x, i + 1, p, q))
    return select_first(rest, (n < 0, 0.0), (jnp.abs(x) == 1.0, at_ends), (n == 0, 1.0),
                   (n == 1, x))
