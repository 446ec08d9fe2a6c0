"""Parity of torch.special's Airy function, Bessel functions (airy_ai, bessel_j0/j1/y0/y1,
modified_bessel_i0/i1/k0/k1, scaled_modified_bessel_k0/k1, spherical_bessel_j0) and orthogonal
polynomials (chebyshev_polynomial_t/u/v/w, shifted_chebyshev_polynomial_t/u/v/w,
hermite_polynomial_h/he, laguerre_polynomial_l, legendre_polynomial_p) with PyTorch: values in
float32 and float64 over every branch of ATen's kernels, integer inputs, scalar arguments,
broadcasting, out=, the errors, outputs that never require grad, and values under
jtorch.compile. Each test runs all the functions at once (one kernel compilation each)."""

import numpy as np
import pytest
import torch
from helpers import assert_close, parity, raises_like

import jtorch

F32, F64 = np.float32, np.float64
INF, NAN = float("inf"), float("nan")

BESSEL = ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0",
          "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
          "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0"]
POLYNOMIALS = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
               "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
               "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
               "shifted_chebyshev_polynomial_w", "hermite_polynomial_h",
               "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p"]

# every branch point of the Bessel kernels (Airy's -2.09, 2.09, 8.32, 103.892; J's and Y's 5
# and 1e-5; I's 8; K's 2; spherical j0's 0.5), zeros, negatives, the infinities and NaN;
# float32 results stay above its smallest normal number (XLA:CPU flushes subnormals to 0)
_EDGES = [0.0, -0.0, 1e-6, -1e-6, 1e-30, 0.5, -0.5, 0.49, 1.0, -1.0, 2.0, -2.0, 2.09, -2.09,
          2.0899, -2.0901, 5.0, -5.0, 5.01, 8.0, -8.0, 8.01, 8.3203353, 8.33, 20.0, -20.0, 75.0,
          -75.0, 103.892, 110.0, 300.0, -300.0, INF, -INF, NAN]


def _bessel_inputs(dtype):
    rng = np.random.default_rng(0)
    x = np.concatenate([_EDGES, rng.uniform(-3, 3, 200), rng.uniform(-30, 30, 200),
                        rng.uniform(-100, 100, 50)])
    return x.astype(dtype)


def _special(T, name):
    return getattr(T.special, name)


@pytest.mark.parametrize("dtype", [F32, F64])
def test_bessel_values(dtype):
    # float32: a few ulp (the elementary functions of C's libm and XLA differ in the last bit);
    # near the zeros of the oscillating functions, a few ulp of their amplitude
    tol = {F32: (4e-6, 3e-7), F64: (1e-13, 1e-15)}[dtype]
    x = _bessel_inputs(dtype)
    # the inputs require grad in both libraries; no output does (parity checks that)
    parity(lambda T, a: [_special(T, f)(a) for f in BESSEL], x, rtol=tol[0], atol=tol[1],
           jit=False)


_X = [-3.0, -1.5, -1.0, -0.999, -0.7, -0.5, -0.2, -0.0, 0.0, 1e-7, 0.1, 0.25, 0.5, 0.6, 0.75,
      0.9, 0.999, 1.0, 1.2, 2.0, 4.0, INF, -INF, NAN]
# negative, 0 and 1, the recurrences, the trigonometric forms above 4, 6 and 8, Hermite's
# limits (128 in float32, 512 in float64), fractions (truncated), NaN, infinities, out of int64
_N = [-3.0, -1.0, -0.5, 0.0, 1.0, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 12.0, 20.0, 31.0,
      129.0, 513.0, NAN, INF, -INF, 1e30]

# the polynomials whose ATen kernel returns an uninitialised variable for x = NaN and n >= 2
# (PyTorch gives garbage there; jtorch gives NaN)
_NAN_X_GARBAGE = {"chebyshev_polynomial_u", "chebyshev_polynomial_w", "laguerre_polynomial_l",
                  "legendre_polynomial_p", "shifted_chebyshev_polynomial_u",
                  "shifted_chebyshev_polynomial_w"}


def _compare_polynomial(name, a, e, x, n, dtype):
    """Values equal up to rounding, with room for the Chebyshev polynomials' closed forms
    inside the interval (cos(n acos(x)) and the like): a 1-ulp difference between libm's and
    XLA's acos is multiplied by n, and by 1 / sin(acos(x)) near the ends."""
    a, e = np.asarray(a, np.float64), np.asarray(e, np.float64)
    eps = np.finfo(dtype).eps
    scale = np.maximum(np.abs(e), 1.0)
    if "chebyshev" in name:
        y = 2 * x - 1 if name.startswith("shifted") else x
        with np.errstate(invalid="ignore"):
            ends = 1 / np.sqrt(np.clip(1 - y * y, 1e-12, 1))
        scale = np.maximum(np.abs(e), 2 * np.minimum(np.abs(n), 600) + 1) * ends
    tol = 16 * eps * (np.minimum(np.abs(n), 600) + 1) * scale
    with np.errstate(invalid="ignore"):   # inf - inf
        same = (a == e) | (np.isnan(a) & np.isnan(e)) | (np.abs(a - e) <= tol)
    if name in _NAN_X_GARBAGE:
        garbage = np.isnan(x) & (n >= 2) & (n < 2.0 ** 63)
        same = np.where(garbage, np.isnan(a), same)
    assert same.all(), f"{name} {dtype.__name__}: {a[~same][:5]} != torch {e[~same][:5]}"


@pytest.mark.parametrize("dtype", [F32, F64])
def test_polynomial_values(dtype):
    x = np.array(_X, dtype)[:, None]          # broadcast: x down, n across
    n = np.array(_N, dtype)[None, :]
    tx, tn, jx, jn = torch.tensor(x), torch.tensor(n), jtorch.tensor(x), jtorch.tensor(n)
    xb, nb = np.broadcast_arrays(x.astype(F64), n.astype(F64))
    for name in POLYNOMIALS:
        e = _special(torch, name)(tx, tn)
        a = _special(jtorch, name)(jx, jn)
        assert str(a.dtype) == str(e.dtype) and tuple(a.shape) == tuple(e.shape)
        _compare_polynomial(name, a.numpy(), e.numpy(), xb, nb, dtype)


def test_recurrence_to_large_degree():
    # Legendre's and Laguerre's recurrences have no closed form: elements of one call stop at
    # different steps, up to n = 1000
    x = np.linspace(-0.95, 0.95, 7)
    deg = np.array([300.0, 2.0, 1000.0, 57.0, 0.0, 999.0, 3.0])
    for name in ["legendre_polynomial_p", "laguerre_polynomial_l"]:
        e = _special(torch, name)(torch.tensor(x), torch.tensor(deg)).numpy()
        a = _special(jtorch, name)(jtorch.tensor(x), jtorch.tensor(deg)).numpy()
        _compare_polynomial(name, a, e, x, deg, F64)


def test_scalar_and_integer_arguments():
    xi = np.array([-2, -1, 0, 1, 3])

    def fn(T, xs):
        xf = xs.double() / 4
        return [T.special.bessel_j1(xs),                                      # int64 -> float32
                T.special.chebyshev_polynomial_t(xs, 3),                      # Tensor x, int n
                T.special.legendre_polynomial_p(xf, 7.9),                     # float n: truncated
                T.special.hermite_polynomial_h(0.25, xs + 4),                 # Number x, int n
                T.special.chebyshev_polynomial_v(xs, xs.abs()),               # int, int: float32
                T.special.laguerre_polynomial_l(xf.float(), xs.double())]     # float32, float64

    parity(fn, xi, jit=False)


def test_out():
    x = np.linspace(-3, 3, 7).astype(F32)

    def fn(T, a):
        o1 = T.empty(7, dtype=T.float64)          # computed in float32, written as float64
        r1 = T.special.bessel_y1(a, out=o1)
        o2 = T.empty(7)
        r2 = T.special.hermite_polynomial_h(a, 4, out=o2)
        o3 = T.empty(7)
        r3 = T.special.modified_bessel_k1(a.abs() + 1, out=o3)
        return [r1 is o1, o1, r2 is o2, o2, r3 is o3, o3]

    parity(fn, x, grad=False, jit=False)
    _same_error(lambda T: T.special.bessel_j0(T.ones(2), out=T.empty(2, dtype=T.int64)))


def _same_error(fn):
    raises_like(lambda: fn(torch), lambda: fn(jtorch))


def test_errors():
    for name in BESSEL:
        for dt in ("float16", "bfloat16", "complex64"):
            _same_error(lambda T, f=name, d=dt: _special(T, f)(T.ones(2, dtype=getattr(T, d))))
    for name in POLYNOMIALS:
        _same_error(lambda T, f=name: _special(T, f)(T.ones(2, dtype=T.float16), 2))
        _same_error(lambda T, f=name: _special(T, f)(0.5, 2))     # no tensor: TypeError
    # no derivative: the outputs do not require grad, so backward has nothing to run through
    _same_error(lambda T: T.special.bessel_j0(T.ones(2, requires_grad=True)).sum().backward())
    _same_error(lambda T: T.special.legendre_polynomial_p(T.ones(2), T.ones(2, requires_grad=True))
                .sum().backward())
    assert not hasattr(jtorch, "bessel_j0") and not hasattr(jtorch.Tensor, "bessel_j0")


def test_compiled_values_equal_eager():
    # Airy's series and the polynomials' recurrences are while_loops bounded by traced values
    x = jtorch.tensor(_bessel_inputs(F32)[:60])
    n = jtorch.tensor([3.0, 9.0, 40.0])[:, None]

    def f(a, m):
        S = jtorch.special
        return [S.airy_ai(a), S.bessel_y1(a), S.modified_bessel_k0(a),
                S.chebyshev_polynomial_u(a / 30, m), S.legendre_polynomial_p(a / 30, m)]

    assert_close(jtorch.compile(f)(x, n), f(x, n), rtol=1e-6, atol=1e-7)
