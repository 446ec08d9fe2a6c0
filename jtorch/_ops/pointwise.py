"""Pointwise arithmetic: add, sub, mul, div and its rounding modes, remainder, fmod, pow,
neg, abs, reciprocal, square, lerp, addcmul, addcdiv.

Transcendental and rounding functions live in pointwise_math.py, comparisons, clamp and
where in compare.py, logical and bitwise ops in bitwise.py; shared helpers in _elementwise.py.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from .._core import dtypes
from .._core.kernel import opmath
from .._core.tensor_base import TensorBase
from ._deprecated_overloads import scalar_first
from ._elementwise import (
    broadcast_check,
    category,
    check_div,
    check_int_divisor,
    check_int_pow,
    common_dtype,
    is_bool,
    is_integral,
    kink_grad,
    lerp_values,
    overload_grad_name,
    refuse,
    to_float,
)
from ._registry import export, op
from ._util import cpp_name

_BIN = {"tensors": ("input", "other"), "promote": "common"}


# a Python number of each dtype category: what a one-element tensor given for alpha stands for
_KIND_SAMPLE = {dtypes.BOOL: True, dtypes.INT: 2, dtypes.FLOAT: 2.0, dtypes.COMPLEX: 2j}


def _alpha(x, alpha, name="alpha"):
    """``alpha * x`` with PyTorch's checks on alpha for the result dtype. ``alpha`` is a Python
    number, or an array: a one-element tensor given for it (Lamb's trust ratio), which
    PyTorch's argument parser reads by value; it stays dynamic here (one kernel for every
    value)."""
    c = category(x)
    dynamic = isinstance(alpha, jax.Array)
    kind = _KIND_SAMPLE[category(alpha)] if dynamic else alpha
    if isinstance(kind, bool):
        if c != dtypes.BOOL:
            raise RuntimeError("Boolean alpha only supported for Boolean results.")
    elif isinstance(kind, float) and c < dtypes.FLOAT:
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           "point number.")
    elif isinstance(kind, complex) and c < dtypes.COMPLEX:
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a complex "
                           "number.")
    if dynamic:
        alpha = jnp.asarray(alpha, x.dtype).reshape(())
    elif alpha == 1:
        return x
    if x.dtype != opmath(x).dtype:  # float16/bfloat16: alpha rounded to it, the product kept
        return opmath(x) * opmath(jnp.asarray(alpha, x.dtype))   # at float32 for the sum
    return (x * alpha).astype(x.dtype)


@op("add", inplace=True, dunder=("__add__", "__radd__", "__iadd__"), saves=False,
    legacy=scalar_first("add", "alpha", ("other",)), **_BIN)
def add(input, other, *, alpha=1):
    broadcast_check(input, other)
    return (input + _alpha(other, alpha)).astype(input.dtype)


def _is_bool_operand(x):
    return type(x) is bool or (isinstance(x, TensorBase) and x.dtype is dtypes.bool_)


def _check_sub(input, other, *, alpha=1):
    a, b = _is_bool_operand(input), _is_bool_operand(other)
    if a and b:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    if a or b:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")


@op(("sub", "subtract"), inplace=True, dunder=("__sub__", "__rsub__", "__isub__"), saves=False,
    check=_check_sub, legacy=scalar_first("sub", "alpha", ("other",)),
    grad_name=overload_grad_name("SubBackward", 0, "->Rsub1"), **_BIN)
def sub(input, other, *, alpha=1):
    broadcast_check(input, other)
    return (input - _alpha(other, alpha)).astype(input.dtype)


@op("rsub", method=False, saves=False, check=_check_sub,
    grad_name=overload_grad_name("RsubBackward", 0, None, 1), **_BIN)
def rsub(input, other, *, alpha=1):
    """``other - alpha * input``."""
    broadcast_check(input, other)
    return (other - _alpha(input, alpha)).astype(other.dtype)


@op(("mul", "multiply"), inplace=True, dunder=("__mul__", "__rmul__", "__imul__"),
    saves="others", opmath=True, **_BIN)
def mul(input, other):
    broadcast_check(input, other)
    return input * other


# ------------------------------------------------------------------ division
def true_div(a, b):
    """``a / b`` rounded as IEEE division, as PyTorch divides. XLA rewrites a division by a
    constant (any backend) and, on the CPU, by a broadcast operand, as a product with the
    reciprocal, which is one step off for a fifth to a quarter of float32 quotients
    (``x / 3.3``, ``x / x.norm(dim=1, keepdim=True)``). A divisor that is broadcast is
    therefore passed through an optimization barrier (no longer a constant) and given a second
    use (the NaN check, which changes no value: a NaN divisor gives NaN either way), so that
    neither rewrite applies; one select per element."""
    shape = jnp.broadcast_shapes(jnp.shape(a), jnp.shape(b))
    if jnp.shape(b) == shape:
        return a / b
    b = jax.lax.optimization_barrier(jnp.asarray(b))
    full = (1,) * (len(shape) - b.ndim) + b.shape
    kept = tuple(i for i, n in enumerate(full) if n != 1)
    b = b.reshape([full[i] for i in kept])   # the operand the broadcast and the check share
    q = a / jax.lax.broadcast_in_dim(b, shape, kept)
    nan = jnp.asarray(jnp.nan, q.dtype)
    return jnp.where(jax.lax.broadcast_in_dim(b != b, shape, kept), nan, q)


def _trunc_div(a, b):
    if is_integral(a):
        return jax.lax.div(*jnp.broadcast_arrays(a, b))
    return jnp.trunc(true_div(a, b))


def _floor_div(a, b):
    """PyTorch's floor division: Python's semantics for integers; for floats the rounding of
    c10::div_floor_floating (exact quotient, -0.0 sign, x/0 gives inf)."""
    if is_integral(a):
        return jnp.floor_divide(a, b)
    mod = jnp.fmod(a, b)
    div = true_div(a - mod, b)
    div = jnp.where((mod != 0) & ((b < 0) != (mod < 0)), div - 1, div)
    fl = jnp.floor(div)
    fl = jnp.where(div - fl > 0.5, fl + 1, fl)
    q = true_div(a, b)
    fl = jnp.where(div == 0, jnp.copysign(jnp.zeros_like(div), q), fl)
    return jnp.where(b == 0, q, fl)


_DIV_KERNEL = {"trunc": "div_trunc_cpu", "floor": "div_floor_cpu"}


def _div_name(input, other, *, rounding_mode=None):
    return "DivBackward0" if rounding_mode is None else "DivBackward2"


@op(("div", "divide", "true_divide"), inplace=True,
    dunder=("__truediv__", "__itruediv__", "__div__", "__idiv__"),
    check=check_div, grad_name=_div_name, opmath=True, saves="others", **_BIN)
def div(input, other, *, rounding_mode=None):
    broadcast_check(input, other)
    if rounding_mode is None:
        input, other = to_float(input, other)
        return true_div(input, other)
    if rounding_mode not in _DIV_KERNEL:
        raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                           f"but found '{rounding_mode}'")
    refuse(_DIV_KERNEL[rounding_mode], input, bool_=True, complex_=True)
    f = _trunc_div if rounding_mode == "trunc" else _floor_div
    # piecewise constant: PyTorch's gradient is 0 everywhere
    return jax.lax.stop_gradient(f(input, other))


@op("floor_divide", inplace=True, dunder=("__floordiv__", "__rfloordiv__", "__ifloordiv__"),
    check=check_int_divisor, **_BIN)
def floor_divide(input, other):
    """Differences from PyTorch: the gradient is 0 (PyTorch raises at backward)."""
    broadcast_check(input, other)
    refuse("div_floor_cpu", input, bool_=True, complex_=True)
    return jax.lax.stop_gradient(_floor_div(input, other))


@op("remainder", inplace=True, dunder=("__mod__", "__rmod__", "__imod__"),
    check=check_int_divisor, grad_name=overload_grad_name("RemainderBackward", 1, None, 0),
    saves=False, **_BIN)
def remainder(input, other):
    """Python's sign convention: the result has the sign of the divisor.

    Differences from PyTorch: nothing is saved for backward (PyTorch saves both operands only
    when the divisor needs a gradient), so modifying them in place is never an error here."""
    broadcast_check(input, other)
    refuse("remainder_cpu", input, bool_=True, complex_=True)
    return jnp.remainder(input, other)


@op("fmod", inplace=True, check=check_int_divisor,
    grad_name=overload_grad_name("FmodBackward", 1, None, 0), **_BIN)
def fmod(input, other):
    """C's fmod: the result has the sign of the dividend."""
    broadcast_check(input, other)
    refuse("fmod_cpu", input, bool_=True, complex_=True)
    return jnp.fmod(input, other)


# ------------------------------------------------------------------ powers
def _pow_raw(x, y):
    return jnp.power(x, y)


@kink_grad(lambda x, y, out: jnp.where(y == 0, 0, y * _pow_raw(x, y - 1)),
             lambda x, y, out: jnp.where((x == 0) & (y >= 0), 0, out * jnp.log(x)))
def _float_pow(x, y):
    """PyTorch's pow derivative: d/dx is 0 where y == 0; d/dy is 0 where x == 0 and y >= 0
    (so 0 ** y gives 0, and 0 ** -1 gives -inf, where JAX gives NaN)."""
    return jnp.power(x, y)


def _int_pow(b, e):
    """Integer pow; a negative exponent gives 0 except for bases 1 and -1 (PyTorch)."""
    if not jnp.issubdtype(e.dtype, jnp.signedinteger):
        return jnp.power(b, e)
    neg = e < 0
    p = jnp.power(b, jnp.where(neg, 0, e))
    inv = jnp.where(b == 1, 1, jnp.where(b == -1, jnp.where(e % 2 == 0, 1, -1), 0))
    return jnp.where(neg, inv.astype(b.dtype), p)


def _pow(x, y):
    if is_integral(x):
        return _int_pow(x, y)
    if jnp.issubdtype(x.dtype, jnp.complexfloating):
        return jnp.power(x, y)
    return _float_pow(x, y)


@op("pow", inplace=True, dunder=("__pow__", "__rpow__", "__ipow__"),
    tensors=("input", "exponent"), promote="common", check=check_int_pow,
    grad_name=overload_grad_name("PowBackward", 1, 2, 0))
def pow(input, exponent):
    broadcast_check(input, exponent)
    refuse("pow", input, bool_=True)
    return _pow(input, exponent)


@op("float_power", inplace=True, tensors=("input", "exponent"),
    grad_name=overload_grad_name("PowBackward", 1, 2, 0))
def float_power(input, exponent):
    """``pow`` computed in float64 (complex128 when an operand is complex).

    Differences from PyTorch: ``float_power_`` on a non-float64 tensor casts the result back
    instead of raising."""
    broadcast_check(input, exponent)
    cplx = any(jnp.issubdtype(jnp.result_type(v), jnp.complexfloating)
               for v in (input, exponent))
    dt = jnp.complex128 if cplx else jnp.float64
    return _pow(jnp.asarray(input).astype(dt), jnp.asarray(exponent).astype(dt))


@op("square", inplace=True, grad_name="PowBackward0")
def square(input):
    if is_bool(input):
        input = input.astype(jnp.int64)
    return input * input


@op(("neg", "negative"), inplace=True, dunder=("__neg__",), saves=False)
def neg(input):
    if is_bool(input):
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If "
                           "you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    return -input


@export("__pos__", namespace=None, method=True)
@export("positive", method=True)
def positive(input):
    """Returns ``input`` itself (not a copy), as PyTorch does."""
    if input.dtype is dtypes.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input



@kink_grad(lambda x, out: jnp.where(jnp.isnan(x), 0, jnp.sign(x)))
def _abs(x):
    return jnp.abs(x)


@op(("abs", "absolute"), inplace=True, dunder=("__abs__",))
def abs(input):
    """The derivative is sign(x): 0 at 0 (and at NaN), as in PyTorch."""
    refuse("abs_cpu", input, bool_=True)
    return _abs(input) if jnp.issubdtype(input.dtype, jnp.floating) else jnp.abs(input)


@op("reciprocal", inplace=True, promote="float", saves="output")
def reciprocal(input):
    return 1 / input


# ------------------------------------------------------------------ fused arithmetic
def _lerp_check(input, other, what):
    if jnp.result_type(other) != input.dtype:
        raise RuntimeError(f"expected dtype {cpp_name(input)} for `{what}` but got dtype "
                           f"{cpp_name(other)}")


@op("lerp", inplace=True, tensors=("input", "end", "weight"),
    grad_name=overload_grad_name("LerpBackward", 1, None, None, 0))
def lerp(input, end, weight):
    """``input + weight * (end - input)``, with PyTorch's two-sided formula for accuracy."""
    _lerp_check(input, end, "end")
    if jnp.ndim(weight) > 0:  # a 0-d weight is cast, as PyTorch's scalar weight
        _lerp_check(input, weight, "weight")
    refuse("lerp_kernel_tensor" if jnp.ndim(weight) else "lerp_kernel_scalar", input,
             integral=True)
    broadcast_check(input, end, weight)
    return lerp_values(input, end, weight)


@op("addcmul", inplace=True, tensors=("input", "tensor1", "tensor2"), promote="common",
    saves="others", opmath=True, legacy=scalar_first("addcmul", "value", ("tensor1", "tensor2")))
def addcmul(input, tensor1, tensor2, *, value=1):
    broadcast_check(input, tensor1, tensor2)
    refuse("addcmul_cpu_out", input, bool_=True)
    if is_integral(input):
        value = int(value)
    return input + value * tensor1 * tensor2


_ADDCDIV_INT = (
    "Integer division with addcdiv is no longer supported, and in a future  release addcdiv "
    "will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can "
    "be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for "
    "integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future "
    "addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), "
    "for all dtypes.")


@op("addcdiv", inplace=True, tensors=("input", "tensor1", "tensor2"),
    opmath="forward",
    legacy=scalar_first("addcdiv", "value", ("tensor1", "tensor2")))
def addcdiv(input, tensor1, tensor2, *, value=1):
    if is_integral(tensor1) and is_integral(tensor2):
        raise RuntimeError(_ADDCDIV_INT)
    broadcast_check(input, tensor1, tensor2)
    dt = common_dtype(input, tensor1, tensor2).np
    input, tensor1, tensor2 = (jnp.asarray(v).astype(dt) for v in (input, tensor1, tensor2))
    return input + value * tensor1 / tensor2


# ------------------------------------------------------------------ complex basics
@op("conj_physical", inplace=True, saves=False)
def conj_physical(input):
    return jnp.conj(input)


@export("conj", method=True)
def conj(input):
    """The complex conjugate; a real tensor is returned itself.

    Differences from PyTorch: for complex tensors this is a copy, not a lazy conjugate view."""
    return conj_physical(input) if input.dtype.category == dtypes.COMPLEX else input


@op("_real", method=False, out=False, saves=False, grad_name="RealBackward0")
def _real(input):
    return jnp.real(input)


@op("_imag", method=False, out=False, saves=False, grad_name="ImagBackward0")
def _imag(input):
    return jnp.imag(input)


@export("real", tensor_property=True)
def real(input):
    """The real part; a real tensor is returned itself.

    Differences from PyTorch: for complex tensors a copy, not a view."""
    return _real(input) if input.dtype.category == dtypes.COMPLEX else input


@export("imag", tensor_property=True)
def imag(input):
    """The imaginary part of a complex tensor (a copy, not a view as in PyTorch)."""
    if input.dtype.category != dtypes.COMPLEX:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return _imag(input)


@op("_with_part", method=False, out=False, saves=False, grad_name="CopySlices",
    tensors=("input", "value"))
def _with_part(input, value, imag=False):
    part = jnp.broadcast_to(value, input.shape).astype(jnp.real(input).dtype)
    return jax.lax.complex(jnp.real(input), part) if imag else \
        jax.lax.complex(part, jnp.imag(input))


def set_real(input, value):
    """``Tensor.real = value``: writes ``value`` into the real part, in place (PyTorch copies
    it into the view ``input.real``); a real tensor is overwritten whole."""
    if input.dtype.category != dtypes.COMPLEX:
        input.copy_(value)
    else:
        input.copy_(_with_part(input, value))


def set_imag(input, value):
    """``Tensor.imag = value``: writes ``value`` into the imaginary part, in place (geoopt's
    Siegel samplers: ``tens.imag = expm(tens.imag)``)."""
    imag(input)  # a real tensor has none: PyTorch's error
    input.copy_(_with_part(input, value, imag=True))

