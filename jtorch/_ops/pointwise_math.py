"""Pointwise math: exponentials, logarithms, trigonometry, error functions, rounding, and the
binary functions atan2, hypot, logaddexp, xlogy, copysign, nextafter, heaviside, ldexp, and
frexp.

Unary functions of floats give the default float dtype for integer and bool inputs
(``promote="float"``), as PyTorch does; ``torch.special`` aliases are exported here too.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp

from .._core.kernel import HALF, rounded_to
from ._elementwise import (
    broadcast_check,
    is_bool,
    is_integral,
    kink_grad,
    no_complex,
    overload_grad_name,
    refuse,
)
from ._registry import export, op

_FLOAT_BIN = {"tensors": ("input", "other"), "promote": "float"}


def _unary(names, fn, *, special=(), doc=None, saves=True, real_only=None):
    """Register a unary float function (``torch.fn``, ``Tensor.fn``, ``Tensor.fn_``).

    saves: what PyTorch's backward reads: the input (True), the result ("output": exp,
    sigmoid, tanh, sqrt... so modifying the input afterwards is fine), or nothing (False).
    real_only: PyTorch's error for a complex input, as (exception type, message)."""

    def body(input):
        if real_only is not None:
            no_complex(input, *real_only)
        return fn(input)

    body.__doc__ = doc
    public = op(names, inplace=True, promote="float", saves=saves, opmath="forward")(body)
    for s in special:
        export(s, namespace="special")(public)
    return public


def _from_output(fn, float32_grad, float16_steps=False):
    """``fn`` whose float16/bfloat16 derivative is PyTorch's kernel of it, a function of the
    rounded output ``y``: ``float32_grad(g, y, step)`` computed in float32 and rounded once.
    ``step`` rounds an intermediate value: to float16 for float16 with ``float16_steps`` (as
    PyTorch's float16 sigmoid kernel computes), else not at all."""

    @jax.custom_vjp
    def half(x):
        return fn(x.astype(jnp.float32)).astype(x.dtype)

    def fwd(x):
        y = half(x)
        return y, y

    def bwd(y, g):
        y32 = rounded_to(y.astype(jnp.float32), y.dtype)
        step = (lambda v: rounded_to(v, y.dtype)) if float16_steps and y.dtype == jnp.float16 \
            else (lambda v: v)
        return (float32_grad(g.astype(jnp.float32), y32, step).astype(g.dtype),)

    half.defvjp(fwd, bwd)

    def body(x):
        return half(x) if x.dtype in HALF else fn(x)

    return body


def _float32_in_float64(fn):
    """``fn`` computed in float64 for float32 inputs and rounded once. XLA's float32 expm1 and
    log1p are up to 5 ulp from the correctly rounded value (3 of 4 float32 expm1 results in
    [-0.5, 0.5] differ from it), PyTorch's within 1 ulp; GPyTorch's inverse softplus
    ``x + log(-expm1(-x))`` of a float32 hyperparameter then lands an ulp away."""

    def wide(x):
        if x.dtype == jnp.float32:
            return fn(x.astype(jnp.float64)).astype(jnp.float32)
        return fn(x)

    return wide


@jax.custom_jvp
def _real_tanh(x):
    """tanh of a real float: float32 through float64, rounded once (XLA's float32 tanh is up to
    4 ulp from the correctly rounded value, half of its results differ from it, and it is
    exactly +-1 from |x| = 7.9 where PyTorch's is 1 - 2**-24 up to 9.01: a tanh-squashed
    Gaussian's log-probability, ``log(1 - tanh(x)**2 + eps)`` as in stable-baselines3's SAC,
    then moves by 0.1); PyTorch's derivative from the output, ``g * (1 - y * y)``."""
    return _float32_in_float64(jnp.tanh)(x)


@_real_tanh.defjvp
def _real_tanh_jvp(primals, tangents):
    y = _real_tanh(primals[0])
    return y, tangents[0] * (1 - y * y)


exp = _unary("exp", jnp.exp, saves="output")
exp2 = _unary("exp2", jnp.exp2, special=("exp2",), saves="output")
expm1 = _unary("expm1", _float32_in_float64(jnp.expm1), special=("expm1",), saves="output")
log = _unary("log", jnp.log)
log1p = _unary("log1p", _float32_in_float64(jnp.log1p), special=("log1p",))
log2 = _unary("log2", jnp.log2)
log10 = _unary("log10", jnp.log10)
sqrt = _unary("sqrt", _from_output(jnp.sqrt, lambda g, y, r: g / (2 * y)),
              doc="The derivative at 0 is inf, as in PyTorch.", saves="output")
rsqrt = _unary("rsqrt", jax.lax.rsqrt, saves="output")
sin = _unary("sin", jnp.sin)
cos = _unary("cos", jnp.cos)
tan = _unary("tan", jnp.tan)
asin = _unary(("asin", "arcsin"), jnp.arcsin)
acos = _unary(("acos", "arccos"), jnp.arccos)
atan = _unary(("atan", "arctan"), jnp.arctan)
sinh = _unary("sinh", jnp.sinh)
cosh = _unary("cosh", jnp.cosh)
tanh = _unary("tanh", _from_output(lambda x: jnp.tanh(x) if jnp.iscomplexobj(x) else _real_tanh(x),
                                   lambda g, y, r: g * (1 - y * y)),
              saves="output")
asinh = _unary(("asinh", "arcsinh"), jnp.arcsinh)
acosh = _unary(("acosh", "arccosh"), jnp.arccosh)
atanh = _unary(("atanh", "arctanh"), jnp.arctanh)
sigmoid = _unary("sigmoid", _from_output(jax.nn.sigmoid, lambda g, y, r: r(r(g * r(1 - y)) * y),
                                         float16_steps=True),
                 special=("expit",), saves="output")
_C64 = "not implemented for 'ComplexFloat'"
erf = _unary("erf", jax.scipy.special.erf, special=("erf",),
             real_only=(NotImplementedError, f'"erf_vml_cpu" {_C64}'))
erfc = _unary("erfc", jax.scipy.special.erfc, special=("erfc",),
              real_only=(NotImplementedError, f'"erfc_vml_cpu" {_C64}'))
erfinv = _unary("erfinv", jax.scipy.special.erfinv, special=("erfinv",), saves="output",
                real_only=(NotImplementedError, f'"erfinv_vml_cpu" {_C64}'))
sinc = _unary("sinc", jnp.sinc, special=("sinc",), doc="sin(pi x) / (pi x); 1 at 0.")
deg2rad = _unary("deg2rad", lambda x: x * jnp.asarray(math.pi / 180, x.dtype),
                 saves=False, real_only=(RuntimeError,
                                         "deg2rad is not supported for complex tensors."))
rad2deg = _unary("rad2deg", lambda x: x * jnp.asarray(180 / math.pi, x.dtype),
                 saves=False, real_only=(RuntimeError,
                                         "rad2deg is not supported for complex tensors."))


@op("ndtr", method=False, namespace="special", promote="float")
def ndtr(input):
    """The standard normal CDF (``torch.special.ndtr``)."""
    refuse("erf_vml_cpu", input, complex_=True)
    return 0.5 * jax.scipy.special.erfc(-input / math.sqrt(2.0))


@op("angle", promote="float")
def angle(input):
    """pi for negative reals, 0 otherwise (NaN stays NaN); the gradient of a real input is 0."""
    if jnp.issubdtype(input.dtype, jnp.complexfloating):
        return jnp.angle(input)
    pi = jnp.asarray(math.pi, input.dtype)
    out = jnp.where(jnp.isnan(input), input, jnp.where(input < 0, pi, 0))
    return jax.lax.stop_gradient(out)


# ------------------------------------------------------------------ logit
def _logit_jac(eps):
    def jac(x, out):
        one = jnp.ones_like(x)
        d = one / (x * (one - x))
        if eps is None:
            return jnp.where((x < 0) | (x > 1), jnp.nan, d)
        return jnp.where((x < eps) | (x > 1 - eps), 0, d)

    return jac


_LOGIT = {}


def _logit_fn(eps):
    f = _LOGIT.get(eps)
    if f is None:
        @kink_grad(_logit_jac(eps))
        def f(x):
            if eps is not None:
                lo, hi = jnp.asarray(eps, x.dtype), jnp.asarray(1 - eps, x.dtype)
                x = jnp.where(x < lo, lo, jnp.where(x > hi, hi, x))
            return jnp.log(x / (1 - x))

        _LOGIT[eps] = f
    return f


@op("logit", inplace=True, promote="float")
def logit(input, eps=None):
    """log(p / (1 - p)), with p clamped to [eps, 1 - eps] when eps is given. The gradient is
    PyTorch's: 0 outside [eps, 1 - eps] (passing at the bounds), NaN outside [0, 1] without
    eps."""
    refuse("logit_cpu", input, complex_=True)
    return _logit_fn(eps)(input)


export("logit", namespace="special")(logit)


# ------------------------------------------------------------------ rounding and signs
def _rounding(names, fn, kernel, grad_name=None):
    short = names if isinstance(names, str) else names[0]

    def body(input):
        refuse(kernel, input, bool_=True)
        no_complex(input, NotImplementedError, f"{short} is not supported for complex inputs")
        if is_integral(input):
            return input
        return fn(input)

    return op(names, inplace=True, grad_name=grad_name, saves=False)(body)


floor = _rounding("floor", jnp.floor, "floor_vml_cpu")
ceil = _rounding("ceil", jnp.ceil, "ceil_vml_cpu")
trunc = _rounding(("trunc", "fix"), jnp.trunc, "trunc_vml_cpu")


def _round_decimals(x, decimals):
    """PyTorch's round(decimals): nearbyint(x * 10^d) / 10^d (or x / 10^-d for d < 0) in the
    op-math type (float32 for half types)."""
    op_dt = jnp.float32 if x.dtype in (jnp.float16, jnp.bfloat16) else x.dtype
    y = x.astype(op_dt)
    p = jnp.asarray(10.0 ** abs(decimals), op_dt)
    y = jnp.round(y / p) * p if decimals < 0 else jnp.round(y * p) / p
    return y.astype(x.dtype)


@op("round", inplace=True, saves=False,
    grad_name=lambda input, *, decimals=0: f"RoundBackward{int(decimals != 0)}")
def round(input, *, decimals=0):
    """Rounds half to even, as PyTorch (and C's nearbyint); gradient 0."""
    if decimals == 0:
        refuse("round_vml_cpu", input, bool_=True, complex_=True)
        return input if is_integral(input) else jnp.round(input)
    refuse("round_cpu", input, integral=True, complex_=True)
    return _round_decimals(input, decimals)


export("round", namespace="special")(round)


@op("frac", inplace=True, saves=False)
def frac(input):
    refuse("frac_cpu", input, integral=True, complex_=True)
    return input - jnp.trunc(input)


def _sign(x):
    """PyTorch's sign: sign(nan) is 0."""
    if is_bool(x):
        return x
    s = jnp.sign(x)
    if jnp.issubdtype(x.dtype, jnp.floating):
        s = jnp.where(jnp.isnan(x), jnp.zeros_like(x), s)  # PyTorch: sign(nan) == 0
    return s


@op("sign", inplace=True, saves=False)
def sign(input):
    no_complex(input, NotImplementedError, "Unlike NumPy, torch.sign is not intended to "
                 "support complex numbers. Please use torch.sgn instead.")
    return _sign(input)


@op("sgn", inplace=True, saves=False)
def sgn(input):
    """sign for reals; x / |x| (0 at 0) for complex numbers."""
    if jnp.issubdtype(input.dtype, jnp.complexfloating):
        a = jnp.abs(input)
        return jnp.where(a == 0, jnp.zeros_like(input), input / jnp.where(a == 0, 1, a))
    return _sign(input)


@op("signbit", differentiable=False)
def signbit(input):
    no_complex(input, NotImplementedError, "signbit is not implemented for complex tensors.")
    if is_bool(input):
        return jnp.zeros(input.shape, jnp.bool_)
    if is_integral(input):
        return input < 0
    return jnp.signbit(input)


# ------------------------------------------------------------------ binary math
@kink_grad(lambda y, x, out: _masked_recip(x * x + y * y) * x,
             lambda y, x, out: -y * _masked_recip(x * x + y * y))
def _atan2(y, x):
    return jnp.arctan2(y, x)


def _masked_recip(d):
    return jnp.where(d == 0, 0, 1 / jnp.where(d == 0, 1, d))


@op(("atan2", "arctan2"), inplace=True, **_FLOAT_BIN)
def atan2(input, other):
    """The gradient at (0, 0) is 0, as in PyTorch."""
    broadcast_check(input, other)
    refuse("atan2_cpu", input, complex_=True)
    return _atan2(input, other)


_REAL_BIN = {"tensors": ("input", "other"), "promote": "common"}


@kink_grad(lambda x, y, out: x / out, lambda x, y, out: y / out)
def _hypot(x, y):
    return jnp.hypot(x, y)


@op("hypot", inplace=True, opmath=True, **_REAL_BIN)
def hypot(input, other):
    """sqrt(x^2 + y^2); the gradient at (0, 0) is NaN, as in PyTorch (x / result)."""
    broadcast_check(input, other)
    refuse("hypot_cpu", input, integral=True, complex_=True)
    return _hypot(input, other)


@kink_grad(lambda x, y, out: 1 / (1 + jnp.exp(y - x)),
             lambda x, y, out: 1 / (1 + jnp.exp(x - y)))
def _logaddexp(x, y):
    return jnp.logaddexp(x, y)


@kink_grad(lambda x, y, out: 1 / (1 + jnp.exp2(y - x)),
             lambda x, y, out: 1 / (1 + jnp.exp2(x - y)))
def _logaddexp2(x, y):
    return jnp.logaddexp2(x, y)


@op("logaddexp", opmath="forward", **_REAL_BIN)
def logaddexp(input, other):
    """log(exp(x) + exp(y)); the gradient at x == y == +-inf is NaN, as in PyTorch."""
    broadcast_check(input, other)
    refuse("logaddexp_cpu", input, integral=True)
    return _logaddexp(input, other)


@op("logaddexp2", opmath="forward", **_REAL_BIN)
def logaddexp2(input, other):
    broadcast_check(input, other)
    refuse("logaddexp2_cpu", input, integral=True, complex_=True)
    return _logaddexp2(input, other)


def _xlogy_like(logf, dlog, jac_x):
    """x * logf(y) with PyTorch's conventions: 0 where x == 0 unless y is NaN."""

    def fwd(x, y):
        v = jnp.where(x == 0, jnp.zeros_like(x), x * logf(y))
        return jnp.where(jnp.isnan(y), y, v)

    return kink_grad(lambda x, y, out: jac_x(fwd, x, y, out),
                       lambda x, y, out: x * dlog(y))(fwd)


# d/dx: xlogy(x != 0, y) for xlogy (0 where x == 0); plain log1p(y) for xlog1py (PyTorch's)
_xlogy = _xlogy_like(jnp.log, lambda y: 1 / y,
                     lambda fwd, x, y, out: fwd((x != 0).astype(out.dtype), y))
_xlog1py = _xlogy_like(jnp.log1p, lambda y: 1 / (1 + y), lambda fwd, x, y, out: jnp.log1p(y))


@op("xlogy", inplace=True, grad_name=overload_grad_name("XlogyBackward", 0, 1, 2),
    **_FLOAT_BIN)
def xlogy(input, other):
    """x * log(y), 0 where x == 0 (NaN if y is NaN)."""
    broadcast_check(input, other)
    refuse("xlogy_cpu", input, complex_=True)
    return _xlogy(input, other)


export("xlogy", namespace="special")(xlogy)


@op("xlog1py", namespace="special", method=False,
    grad_name=overload_grad_name("SpecialXlog1PyBackward", 0, 1, 2), **_FLOAT_BIN)
def xlog1py(input, other):
    """x * log1p(y), 0 where x == 0 (NaN if y is NaN)."""
    broadcast_check(input, other)
    refuse("xlog1py_cpu", input, complex_=True)
    return _xlog1py(input, other)


@kink_grad(lambda x, y, out: jnp.where(x == 0, 0, out / jnp.where(x == 0, 1, x)), None)
def _copysign(x, y):
    return jnp.copysign(x, y)


@op("copysign", inplace=True, grad_name=overload_grad_name("CopysignBackward", 0, None, 1),
    **_FLOAT_BIN)
def copysign(input, other):
    """|x| with the sign of y (including -0.0); the gradient at x == 0 is 0."""
    broadcast_check(input, other)
    refuse("copysign_cpu", input, complex_=True)
    return _copysign(input, other)


@op("nextafter", inplace=True, **_REAL_BIN)
def nextafter(input, other):
    """Differences from PyTorch: the gradient is 0 (PyTorch raises at backward)."""
    broadcast_check(input, other)
    refuse("nextafter_cpu", input, integral=True, complex_=True)
    return jax.lax.stop_gradient(jnp.nextafter(input, other))


@op("heaviside", inplace=True, tensors=("input", "values"))
def heaviside(input, values):
    """0 for x < 0 (and NaN), ``values`` where x == 0, 1 for x > 0.

    Differences from PyTorch: the gradient is 0 (PyTorch raises at backward)."""
    no_complex(input, RuntimeError, "heaviside is not yet implemented for complex tensors.")
    if jnp.result_type(input) != jnp.result_type(values):
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    broadcast_check(input, values)
    out = jnp.where(input == 0, values, (input > 0).astype(input.dtype))
    return jax.lax.stop_gradient(out)


@op("ldexp", inplace=True, **_FLOAT_BIN)
def ldexp(input, other):
    """input * 2 ** other."""
    broadcast_check(input, other)
    return input * jnp.exp2(other)


def _frexp_bits(x):
    """C's frexp on float32/float64, subnormals included (XLA's CPU flushes subnormal
    arithmetic to zero, so their exponent is read from the bits)."""
    m, e = jnp.frexp(x)
    info = jnp.finfo(x.dtype)
    nbits = info.bits
    uint = jnp.uint32 if nbits == 32 else jnp.uint64
    frac_bits = info.nmant
    raw = jax.lax.bitcast_convert_type(x, uint)
    frac = raw & uint((1 << frac_bits) - 1)
    sub = ((raw >> frac_bits) & uint((1 << info.nexp) - 1) == 0) & (frac != 0)
    length = nbits - jax.lax.clz(frac).astype(jnp.int32)   # the significant bits of frac
    # x = frac * 2**(minexp - frac_bits) = (frac / 2**length) * 2**(length + minexp - frac_bits)
    norm = (frac << (frac_bits + 1 - length).astype(uint)).astype(x.dtype)
    m_sub = jnp.copysign(norm / x.dtype.type(2.0 ** (frac_bits + 1)), x)
    e_sub = length + info.minexp - frac_bits
    return jnp.where(sub, m_sub, m), jnp.where(sub, e_sub, e).astype(jnp.int32)


@jax.custom_jvp
def _mantissa(x, e):
    return _frexp_parts(x)[0]


@_mantissa.defjvp
def _mantissa_jvp(primals, tangents):
    x, e = primals
    half = e // 2   # 2**-e in two factors: each stays a normal number
    scale = jnp.exp2(-half.astype(x.dtype)) * jnp.exp2((half - e).astype(x.dtype))
    return _mantissa(x, e), tangents[0] * scale


def _frexp_parts(x):
    if x.dtype in (jnp.float16, jnp.bfloat16):   # exact in float32, and no subnormals there
        m, e = _frexp_bits(x.astype(jnp.float32))
        return m.astype(x.dtype), e
    return _frexp_bits(x)


@op("frexp", returns=("mantissa", "exponent"))
def frexp(input):
    """``input = mantissa * 2 ** exponent`` with ``0.5 <= |mantissa| < 1`` (int32 exponents;
    0, inf and NaN have exponent 0)."""
    if not jnp.issubdtype(input.dtype, jnp.floating):
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    e = jax.lax.stop_gradient(_frexp_parts(input)[1])
    return _mantissa(input, e), e
