"""Pointwise ops: arithmetic, transcendental, comparison, logical, bitwise."""

from __future__ import annotations

import jax.numpy as jnp

from ._registry import op

_BIN = {"tensors": ("input", "other"), "promote": "common"}


def _broadcast_check(a, b):
    from ._util import check_broadcast

    check_broadcast(a.shape, b.shape)


@op("add", inplace=True, dunder=("__add__", "__radd__", "__iadd__"), saves=False, **_BIN)
def add(input, other, *, alpha=1):
    _broadcast_check(input, other)
    return input + other * alpha if alpha != 1 else input + other


@op(("sub", "subtract"), inplace=True, dunder=("__sub__", "__rsub__", "__isub__"), saves=False,
    **_BIN)
def sub(input, other, *, alpha=1):
    _broadcast_check(input, other)
    return input - other * alpha if alpha != 1 else input - other


@op(("mul", "multiply"), inplace=True, dunder=("__mul__", "__rmul__", "__imul__"),
    saves="others", **_BIN)
def mul(input, other):
    _broadcast_check(input, other)
    return input * other


@op(("div", "divide"), inplace=True, dunder=("__truediv__", "__rtruediv__", "__itruediv__"),
    tensors=("input", "other"), promote="common")
def div(input, other, *, rounding_mode=None):
    _broadcast_check(input, other)
    if rounding_mode is None:
        if not jnp.issubdtype(input.dtype, jnp.inexact):
            from .._dtype import get_default_dtype

            input = input.astype(get_default_dtype().np)
            other = other.astype(input.dtype)
        return input / other
    raise NotImplementedError("jtorch: div(rounding_mode=...) not implemented yet")


@op("neg", inplace=True, dunder=("__neg__",), saves=False)
def neg(input):
    return -input


@op("exp", inplace=True, promote="float", tensors=("input",))
def exp(input):
    return jnp.exp(input)


@op("relu", inplace=True, namespace=",nn.functional")
def relu(input):
    return jnp.maximum(input, 0)
