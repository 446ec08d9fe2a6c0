"""Helpers shared by the pointwise op files (pointwise, pointwise_math, compare, bitwise).

- ``kink_grad``: an elementwise ``jax.custom_jvp`` for the few ops whose derivative at kinks,
  ties or NaNs follows a different convention in PyTorch than in JAX (clamp at its bounds,
  maximum ties, fmax with NaN, pow with a zero base...). Each use is tested at the kink.
- dtype guards that raise PyTorch's errors at trace time (dtypes are static).
- ``check`` functions for ``@op(check=...)``: errors PyTorch raises on the value of a Python
  number operand (``int_tensor // 0``), which the jitted body cannot see.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.custom_derivatives import SymbolicZero

from .._core import dtypes
from .._core.kernel import SCALAR
from .._core.tensor_base import TensorBase
from ._util import check_broadcast, dtype_of, type_name


def category(x):
    return dtype_of(x).category


def is_bool(x):
    return jnp.result_type(x) == jnp.bool_


def is_integral(x):
    """Integer or bool."""
    return category(x) < dtypes.FLOAT


def not_implemented_for(kernel, x):
    return NotImplementedError(f'"{kernel}" not implemented for \'{type_name(x)}\'')


def refuse(kernel, x, *, bool_=False, integral=False, floating=False, complex_=False):
    """Raise PyTorch's ``"<kernel>" not implemented for '<Type>'`` for the dtypes named
    (``floating`` includes complex)."""
    c = category(x)
    if ((bool_ and c == dtypes.BOOL) or (integral and c <= dtypes.INT)
            or (floating and c >= dtypes.FLOAT) or (complex_ and c == dtypes.COMPLEX)):
        raise not_implemented_for(kernel, x)


def no_complex(x, exc, message):
    """Raise ``exc(message)`` for a complex input (ops PyTorch defines on reals only)."""
    if category(x) == dtypes.COMPLEX:
        raise exc(message)


def default_float():
    return dtypes.get_default_dtype().np


def to_float(*xs):
    """Integer/bool arrays become the default float dtype (PyTorch's int -> float ops)."""
    out = tuple(x if jnp.issubdtype(x.dtype, jnp.inexact) else x.astype(default_float())
                for x in xs)
    return out if len(out) > 1 else out[0]


def common_dtype(*arrays):
    """PyTorch's result dtype of arrays given as they are (0-d ones rank below the others)."""
    dims = [dtype_of(a) for a in arrays if jnp.ndim(a) > 0]
    zeros = [dtype_of(a) for a in arrays if jnp.ndim(a) == 0]
    return dtypes.result_type_from(dims, zeros, [])


def broadcast_check(*xs):
    shape = ()
    for x in xs:
        s = jnp.shape(x)
        check_broadcast(shape, s)
        shape = jnp.broadcast_shapes(shape, s)
    return shape


# ------------------------------------------------------------------ custom kink derivatives
_HALF_TYPES = (jnp.float16, jnp.bfloat16)


def lerp_values(input, end, weight):
    """ATen's lerp kernel on arrays: ``input + w (end - input)`` where ``|w| < 0.5``, else
    ``end - (end - input)(1 - w)`` (more accurate near ``w = 1``), with ``w`` in the op-math
    dtype (float32 for half types, as the operands; the input's dtype otherwise), as PyTorch
    converts a Python weight before forming ``1 - w``. Written as one select of the base and
    one of the coefficient, ``base + (end - input) * (w or w - 1)``: the same bits (negation is
    exact), and half the elementwise work of computing both formulas (Adam's moments)."""
    dtype = input.dtype
    math = jnp.float32 if dtype in _HALF_TYPES else dtype
    a, b, w = input.astype(math), end.astype(math), jnp.asarray(weight).astype(math)
    small = jnp.abs(w) < 0.5
    return (jnp.where(small, a, b) + (b - a) * jnp.where(small, w, w - 1)).astype(dtype)


def kink_grad(*jacobians):
    """Decorator: give an elementwise function PyTorch's derivative.

    ``jacobians[i](*primals, out)`` is d out / d primal_i, elementwise, or a bool mask meaning
    "the gradient passes where True, is 0 elsewhere", or None (no gradient). The JVP is the sum
    of jacobian * tangent over the inputs that are perturbed (symbolic zeros are skipped, so an
    infinite jacobian of an unperturbed input never turns into NaN); reverse mode and higher
    derivatives follow from JAX's transposition of this JVP.
    """

    def deco(fn):
        f = jax.custom_jvp(fn)

        def jvp(primals, tangents):
            out = f(*primals)
            t = None
            for jac, dx in zip(jacobians, tangents):
                if jac is None or type(dx) is SymbolicZero:
                    continue
                j = jac(*primals, out)
                dx = dx.astype(out.dtype)
                term = jnp.where(j, dx, 0) if j.dtype == jnp.bool_ else j.astype(out.dtype) * dx
                t = term if t is None else t + term
            if t is None:
                t = jnp.zeros_like(out)
            return out, jnp.broadcast_to(t, out.shape).astype(out.dtype)

        f.defjvp(jvp, symbolic_zeros=True)
        return f

    return deco


# ------------------------------------------------------------------ checks on Python numbers
def _int_like(x):
    """x is an integer/bool Tensor or a Python int/bool (its result stays integral)."""
    if isinstance(x, TensorBase):
        return x.dtype.category <= dtypes.INT
    return isinstance(x, (bool, int))


def check_int_divisor(input, other, *args, **kwargs):
    """PyTorch raises ``ZeroDivisionError`` (a RuntimeError) for integer division by a Python 0
    (floor_divide, remainder, fmod, div with a rounding mode).

    Division by an integer TENSOR holding 0 is value-dependent and not checked: jtorch returns
    what XLA computes (see docs/differences.md)."""
    if type(other) in (int, bool) and other == 0 and _int_like(input):
        raise RuntimeError("ZeroDivisionError")


def check_div(input, other, *, rounding_mode=None):
    if rounding_mode is not None:
        check_int_divisor(input, other)


def check_int_pow(input, exponent=None, *args, **kwargs):
    """``int_tensor ** -1`` raises in PyTorch (a negative Python int exponent)."""
    if (type(exponent) is int and exponent < 0 and isinstance(input, TensorBase)
            and input.dtype.category <= dtypes.INT):
        raise RuntimeError("Integers to negative integer powers are not allowed.")


# ------------------------------------------------------------------ overload-dependent names
def is_number(marker):
    """In a ``grad_name`` callable: the argument was a Python number (PyTorch's Scalar
    overload), not a tensor."""

    return marker is SCALAR or isinstance(marker, (bool, int, float, complex))


def overload_grad_name(base, tensor_tensor, *scalar_suffixes):
    """grad_name callable: ``<base><tensor_tensor>`` when every operand is a tensor, else the
    suffix paired with the first operand that is a number (``PowBackward2`` for 2 ** x); a
    suffix ``"->Rsub1"`` names another op (``1 - x`` is ``RsubBackward1`` in PyTorch)."""

    def name(*args, **kwargs):
        for a, suffix in zip(args, scalar_suffixes):
            if suffix is not None and is_number(a):
                if isinstance(suffix, str) and suffix.startswith("->"):  # another op's name
                    return f"{suffix[2:-1]}Backward{suffix[-1]}"
                return f"{base}{suffix}"
        return f"{base}{tensor_tensor}"

    return name
