"""Logical ops (any dtype in, bool out), bitwise ops and shifts (integers and bools), and the
integer functions gcd and lcm."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from .._core import dtypes
from ._elementwise import broadcast_check, is_bool, refuse
from ._registry import export, op

_LOGICAL = {"tensors": ("input", "other"), "differentiable": False}


def _truth(x):
    return jnp.asarray(x) != 0


def _logical(name, fn):
    def body(input, other):
        broadcast_check(input, other)
        return fn(_truth(input), _truth(other))

    return op(name, inplace=True, **_LOGICAL)(body)


logical_and = _logical("logical_and", jnp.logical_and)
logical_or = _logical("logical_or", jnp.logical_or)
logical_xor = _logical("logical_xor", jnp.logical_xor)


@op("logical_not", inplace=True, differentiable=False)
def logical_not(input):
    return ~_truth(input)


_BITWISE = {"tensors": ("input", "other"), "promote": "common", "differentiable": False}


def _bitwise(name, fn, kernel, dunders):
    def body(input, other):
        broadcast_check(input, other)
        refuse(kernel, input, floating=True)
        return fn(input, other)

    return op(name, inplace=True, dunder=dunders, **_BITWISE)(body)


bitwise_and = _bitwise("bitwise_and", jnp.bitwise_and, "bitwise_and_cpu",
                       ("__and__", "__rand__", "__iand__"))
bitwise_or = _bitwise("bitwise_or", jnp.bitwise_or, "bitwise_or_cpu",
                      ("__or__", "__ror__", "__ior__"))
bitwise_xor = _bitwise("bitwise_xor", jnp.bitwise_xor, "bitwise_xor_cpu",
                       ("__xor__", "__rxor__", "__ixor__"))


@op("bitwise_not", inplace=True, differentiable=False)
def bitwise_not(input):
    """``~x``: logical not for bools."""
    refuse("bitwise_not_cpu", input, floating=True)
    return jnp.logical_not(input) if is_bool(input) else jnp.invert(input)


@export("__invert__", namespace=None, method=True)
def __invert__(self):  # noqa: N807 - the operator
    if self.dtype.category >= dtypes.FLOAT:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type "
                        "tensors")
    return bitwise_not(self)



def _shift_args(a, b, kernel):
    refuse(kernel, a, bool_=True, floating=True)
    bits = a.dtype.itemsize * 8
    signed = jnp.issubdtype(a.dtype, jnp.signedinteger)
    return bits, signed


def _lshift(a, b):
    """PyTorch: shifting by a negative amount or >= the bit width gives 0."""
    bits, _ = _shift_args(a, b, "lshift_cpu")
    a, b = jnp.broadcast_arrays(a, b)
    bad = (b < 0) | (b >= bits)
    r = jax.lax.shift_left(a, jnp.where(bad, 0, b).astype(a.dtype))
    return jnp.where(bad, jnp.zeros_like(a), r)


def _rshift(a, b):
    """PyTorch: shifting by a negative amount or too far fills with the sign bit (0 for
    unsigned types)."""
    bits, signed = _shift_args(a, b, "rshift_cpu")
    a, b = jnp.broadcast_arrays(a, b)
    top = bits - 1 if signed else bits
    bad = (b < 0) | (b >= top)
    if signed:
        return jax.lax.shift_right_arithmetic(a, jnp.where(bad, top, b).astype(a.dtype))
    r = jax.lax.shift_right_logical(a, jnp.where(bad, 0, b).astype(a.dtype))
    return jnp.where(bad, jnp.zeros_like(a), r)


@op("bitwise_left_shift", inplace=True, dunder=("__lshift__", "__rlshift__", "__ilshift__"),
    **_BITWISE)
def bitwise_left_shift(input, other):
    broadcast_check(input, other)
    return _lshift(input, other)


@op("bitwise_right_shift", inplace=True, dunder=("__rshift__", "__rrshift__", "__irshift__"),
    **_BITWISE)
def bitwise_right_shift(input, other):
    broadcast_check(input, other)
    return _rshift(input, other)


# ------------------------------------------------------------------ gcd / lcm
def _integer_fn(name, fn, doc):
    def body(input, other):
        broadcast_check(input, other)
        refuse(f"{name}_cpu", input, bool_=True, floating=True)
        return fn(input, other)

    body.__doc__ = doc
    return op(name, inplace=True, **_BITWISE)(body)


def _lcm(a, b):
    g = jnp.gcd(a, b)
    return jnp.abs(jnp.where(g == 0, 0, a // jnp.where(g == 0, 1, g) * b))


gcd = _integer_fn("gcd", jnp.gcd, "The greatest common divisor (non-negative; gcd(0, 0) = 0).")
lcm = _integer_fn("lcm", _lcm, "The least common multiple (non-negative; 0 if either is 0).")
