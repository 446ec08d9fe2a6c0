"""Comparisons and selection: eq/ne/lt/le/gt/ge, isclose/allclose/equal, maximum/minimum,
fmax/fmin, clamp, relu, where, isnan/isinf/isfinite..., nan_to_num, isin.

The derivatives at ties and bounds are PyTorch's (``kink_grad``): maximum/minimum split ties
0.5/0.5 and pass the gradient to both inputs at a NaN; fmax/fmin give ties to the first input;
clamp passes the gradient at its bounds; relu gives 0 at 0.
"""

from __future__ import annotations

import jax.numpy as jnp

from .._core import dtypes
from .._core.tensor_base import TensorBase
from ._elementwise import (
    broadcast_check,
    default_float,
    is_bool,
    is_number,
    kink_grad,
    no_complex,
    overload_grad_name,
    refuse,
)
from ._registry import export, op
from ._util import type_name
from .indexing import nonzero

_CMP = {"tensors": ("input", "other"), "promote": "common", "differentiable": False}


def _comparison(names, fn, dunder, ordered=True):
    kernel = (names if isinstance(names, str) else names[0]) + "_cpu"

    def body(input, other):
        broadcast_check(input, other)
        if ordered:
            refuse(kernel, input, complex_=True)
        return fn(input, other)

    return op(names, inplace=True, dunder=(dunder,), **_CMP)(body)


eq = _comparison("eq", jnp.equal, "__eq__", ordered=False)
ne = _comparison(("ne", "not_equal"), jnp.not_equal, "__ne__", ordered=False)
lt = _comparison(("lt", "less"), jnp.less, "__lt__")
le = _comparison(("le", "less_equal"), jnp.less_equal, "__le__")
gt = _comparison(("gt", "greater"), jnp.greater, "__gt__")
ge = _comparison(("ge", "greater_equal"), jnp.greater_equal, "__ge__")


# ------------------------------------------------------------------ closeness
@op("isclose", tensors=("input", "other"), differentiable=False)
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|input - other| <= atol + rtol * |other|, elementwise; inputs must share a dtype."""
    if jnp.result_type(input) != jnp.result_type(other):
        raise RuntimeError(f"{type_name(input)} did not match {type_name(other)}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")
    broadcast_check(input, other)
    close = input == other
    if equal_nan and jnp.issubdtype(input.dtype, jnp.inexact):
        close = close | (jnp.isnan(input) & jnp.isnan(other))
    if rtol == 0 and atol == 0:
        return close
    if is_bool(input):
        input, other = input.astype(default_float()), other.astype(default_float())
    # PyTorch computes in the input dtype (Python-float tolerances: the default float for ints)
    tol_dt = input.dtype if jnp.issubdtype(input.dtype, jnp.inexact) else default_float()
    allowed = atol + jnp.abs(rtol * other.astype(tol_dt))
    actual = jnp.abs(input - other)
    actual = actual.astype(jnp.promote_types(actual.dtype, tol_dt))
    return close | (jnp.isfinite(actual) & (actual <= allowed))


def _python_bool(t):
    """A 0-d bool Tensor's value; raises jtorch's trace error inside jit."""
    return bool(t.item())


@export("allclose", method=True)
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True when ``isclose`` holds everywhere (a Python bool)."""
    return _python_bool(_all(isclose(input, other, rtol, atol, equal_nan)))


@op("_all_true", method=False, out=False, differentiable=False)
def _all(input):
    return jnp.all(input)


@op("_equal_values", method=False, out=False, tensors=("input", "other"), promote="common",
    differentiable=False)
def _equal_values(input, other):
    return jnp.all(input == other)


@export("equal", method=True)
def equal(input, other):
    """True when both tensors have the same shape and elements (a Python bool; NaN != NaN)."""
    if tuple(input.shape) != tuple(other.shape):
        return False
    return _python_bool(_equal_values(input, other))


# ------------------------------------------------------------------ maximum / minimum
@kink_grad(lambda x, y, out: jnp.where(x == y, 0.5, jnp.where(x < y, 0.0, 1.0)),
             lambda x, y, out: jnp.where(x == y, 0.5, jnp.where(x > y, 0.0, 1.0)))
def _maximum(x, y):
    return jnp.maximum(x, y)


@kink_grad(lambda x, y, out: jnp.where(x == y, 0.5, jnp.where(x > y, 0.0, 1.0)),
             lambda x, y, out: jnp.where(x == y, 0.5, jnp.where(x < y, 0.0, 1.0)))
def _minimum(x, y):
    return jnp.minimum(x, y)


def _fmax_first(x, y, out):
    """fmax's gradient goes to x where x >= y or y is NaN (ties included), else to y."""
    return (x >= y) | jnp.isnan(y)


def _fmin_first(x, y, out):
    return (x <= y) | jnp.isnan(y)


@kink_grad(_fmax_first, lambda x, y, out: ~_fmax_first(x, y, out))
def _fmax(x, y):
    return jnp.fmax(x, y)


@kink_grad(_fmin_first, lambda x, y, out: ~_fmin_first(x, y, out))
def _fmin(x, y):
    return jnp.fmin(x, y)


def _float_or(fn, plain):
    def f(x, y):
        return fn(x, y) if jnp.issubdtype(x.dtype, jnp.floating) else plain(x, y)

    return f


def _binary_select(name, fn, doc):
    def body(input, other):
        broadcast_check(input, other)
        no_complex(input, RuntimeError, f"{name} not implemented for complex tensors.")
        return fn(input, other)

    body.__doc__ = doc
    return op(name, tensors=("input", "other"), promote="common")(body)


maximum = _binary_select("maximum", _float_or(_maximum, jnp.maximum),
                         "Elementwise max, NaN-propagating; ties split the gradient 0.5/0.5.")
minimum = _binary_select("minimum", _float_or(_minimum, jnp.minimum),
                         "Elementwise min, NaN-propagating; ties split the gradient 0.5/0.5.")
fmax = _binary_select("fmax", _float_or(_fmax, jnp.maximum),
                      "Elementwise max ignoring NaN; a tie's gradient goes to ``input``.")
fmin = _binary_select("fmin", _float_or(_fmin, jnp.minimum),
                      "Elementwise min ignoring NaN; a tie's gradient goes to ``input``.")


# ------------------------------------------------------------------ clamp / relu
def _clamp_value(x, lo, hi):
    if lo is not None:
        x = jnp.maximum(x, lo)
    if hi is not None:
        x = jnp.minimum(x, hi)
    return x


def _clamp_fn(has_lo, has_hi):
    """clamp with PyTorch's gradient: x gets it where lo <= x <= hi (bounds included); lo where
    x < lo < hi; hi where x > hi or hi < lo. NaN anywhere gives 0."""

    def jx(x, lo, hi, out):
        m = jnp.ones(jnp.shape(x), jnp.bool_)
        if has_lo:
            m = m & (x >= lo)
        if has_hi:
            m = m & (x <= hi)
        return m

    def jlo(x, lo, hi, out):
        return (x < lo) & (lo < hi) if has_hi else x < lo

    def jhi(x, lo, hi, out):
        return (x > hi) | (hi < lo) if has_lo else x > hi

    @kink_grad(jx, jlo if has_lo else None, jhi if has_hi else None)
    def f(x, lo, hi):
        return _clamp_value(x, lo if has_lo else None, hi if has_hi else None)

    return f


_CLAMPS = {(a, b): _clamp_fn(a, b) for a in (True, False) for b in (True, False)}


def _clamp(x, lo, hi):
    no_complex(x, NotImplementedError, "clamp is not supported for complex types")
    if not jnp.issubdtype(x.dtype, jnp.floating):
        return _clamp_value(x, lo, hi)
    z = jnp.zeros((), x.dtype)
    return _CLAMPS[lo is not None, hi is not None](x, z if lo is None else lo,
                                                   z if hi is None else hi)


def _clamp_name(input, min=None, max=None):
    tensor_bound = not (min is None or is_number(min)) or not (max is None or is_number(max))
    return "ClampBackward0" if tensor_bound else "ClampBackward1"


@op(("clamp", "clip"), inplace=True, tensors=("input", "min", "max"), promote="common",
    grad_name=_clamp_name)
def clamp(input, min=None, max=None):
    """Clamps into [min, max] (max wins when min > max); min/max may be numbers or tensors."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    broadcast_check(*(v for v in (input, min, max) if v is not None))
    return _clamp(input, min, max)


@op("clamp_min", inplace=True, tensors=("input", "min"), promote="common",
    grad_name=overload_grad_name("ClampMinBackward", 1, None, 0))
def clamp_min(input, min):
    broadcast_check(input, min)
    return _clamp(input, min, None)


@op("clamp_max", inplace=True, tensors=("input", "max"), promote="common",
    grad_name=overload_grad_name("ClampMaxBackward", 1, None, 0))
def clamp_max(input, max):
    broadcast_check(input, max)
    return _clamp(input, None, max)


@op("relu", inplace=True, saves="output")
def relu(input):
    """max(x, 0); the gradient at 0 is 0 and NaN passes through, as in PyTorch."""
    if is_bool(input):
        raise RuntimeError("Boolean inputs not supported for relu")
    no_complex(input, NotImplementedError, "clamp is not supported for complex types")
    return jnp.where(input <= 0, jnp.zeros_like(input), input)


# ------------------------------------------------------------------ where
@op("where", namespace=None, method=False, tensors=("input", "other"), promote="common",
    saves=("condition",))
def _where(condition, input, other):
    c = jnp.asarray(condition)
    if c.dtype != jnp.bool_:
        if c.dtype != jnp.uint8:
            raise RuntimeError("where expected condition to be a boolean tensor, but got a "
                               f"tensor with dtype {type_name(c)}")
        c = c != 0
    broadcast_check(c, input, other)
    return jnp.where(c, input, other)


@export("where")
def where(condition, input=None, other=None, *, out=None):
    """``where(condition, input, other)`` picks elementwise; ``where(condition)`` is
    ``nonzero(condition, as_tuple=True)``."""
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    if input is None or other is None:
        raise TypeError("where() missing required argument 'input' or 'other'")
    return _where(condition, input, other, out=out)


_where._opdef.public = where   # __torch_function__ gets torch.where (tensordict handles it)


@export("where", namespace=None, method=True)
def _where_method(self, condition, other):
    return _where(condition, self, other)



# ------------------------------------------------------------------ classification
def _classify(name, fn, integral_value, out=False, real_only=False):
    def body(input):
        if real_only:
            no_complex(input, RuntimeError, f"{name} does not support complex inputs.")
        if not jnp.issubdtype(input.dtype, jnp.inexact):
            return jnp.full(input.shape, integral_value, jnp.bool_)
        return fn(input)

    return op(name, differentiable=False, out=out)(body)


def _isreal(x):
    if jnp.issubdtype(x.dtype, jnp.complexfloating):
        return jnp.imag(x) == 0
    return jnp.ones(x.shape, jnp.bool_)


isnan = _classify("isnan", jnp.isnan, False)
isinf = _classify("isinf", jnp.isinf, False)
isposinf = _classify("isposinf", jnp.isposinf, False, out=True, real_only=True)
isneginf = _classify("isneginf", jnp.isneginf, False, out=True, real_only=True)
isfinite = _classify("isfinite", jnp.isfinite, True)
isreal = _classify("isreal", _isreal, True)


@op("nan_to_num", inplace=True)
def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """NaN -> ``nan``, +inf -> ``posinf`` (default: the dtype's max), -inf -> ``neginf``
    (default: its lowest). Integers and bools are returned unchanged."""
    if not jnp.issubdtype(input.dtype, jnp.floating):
        return input
    info = jnp.finfo(input.dtype)
    hi = info.max if posinf is None else posinf
    lo = info.min if neginf is None else neginf
    out = jnp.where(jnp.isnan(input), jnp.asarray(nan, input.dtype), input)
    out = jnp.where(out == jnp.inf, jnp.asarray(hi, input.dtype), out)
    return jnp.where(out == -jnp.inf, jnp.asarray(lo, input.dtype), out)




# ------------------------------------------------------------------ isin
def _check_isin(elements, test_elements, **kwargs):
    """PyTorch refuses bool and complex operands (checked before they are promoted)."""
    for x in (elements, test_elements):
        if isinstance(x, TensorBase) and x.dtype.category in (dtypes.BOOL, dtypes.COMPLEX):
            raise RuntimeError("Unsupported input type encountered for isin(): "
                               f"{x.dtype.scalar_name}")


@op("isin", method=False, tensors=("elements", "test_elements"), promote="common",
    differentiable=False, check=_check_isin)
def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """Whether each element of ``elements`` is in ``test_elements`` (NaN is in nothing);
    ``invert`` negates. ``assume_unique`` is accepted: the answer does not depend on it."""
    test = jnp.sort(test_elements.reshape(-1))   # then one binary search per element
    if test.size == 0:
        found = jnp.zeros(jnp.shape(elements), jnp.bool_)
    else:
        at = jnp.minimum(jnp.searchsorted(test, elements), test.size - 1)
        found = test[at] == elements
    return ~found if invert else found
