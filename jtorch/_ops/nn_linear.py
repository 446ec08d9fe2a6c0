"""Affine maps: ``F.linear`` (``input @ weight.T + bias``) and ``F.bilinear`` / ``torch.bilinear``.

Each is one kernel, so a Linear layer's forward is one dispatch and its backward one vjp.
Shape and dtype errors carry PyTorch's texts (the addmm/mm ones, since PyTorch lowers linear to
them). Its node lists its inputs as PyTorch's ``AddmmBackward0`` does: the bias first, then the
input and the weight. Differences from PyTorch: the grad_fn name is ``AddmmBackward0`` with a
bias and ``MmBackward0`` without, whatever the input's rank (PyTorch reports ``ViewBackward0``
for inputs of 1 or more than 2 dims, whose matmul runs on a reshaped view), and the weight's
edge leads to its ``AccumulateGrad`` directly (PyTorch's passes a ``TBackward0`` first).
"""

from __future__ import annotations

import math

import jax.numpy as jnp

from .._core import dtypes
from ._registry import op
from ._util import check_broadcast, check_expand

_CPP = {"float32": "float", "float64": "double", "float16": "c10::Half",
        "bfloat16": "c10::BFloat16", "int64": "long int", "int32": "int", "int16": "short int",
        "int8": "signed char", "uint8": "unsigned char", "bool": "bool",
        "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}


def _name(x):
    return dtypes.from_np(x.dtype).scalar_name


def _check_linear(input, weight, bias):
    if input.ndim == 0 or weight.ndim == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are "
                           f"{input.ndim}D and {weight.ndim}D")
    if weight.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                           f"{weight.ndim}D")
    addmm = bias is not None and (input.ndim <= 2 or bias.ndim <= 1)
    if addmm and bias.dtype != weight.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {_name(bias)} and "
                           f"{_name(weight)}")
    if input.dtype != weight.dtype:
        if addmm:
            raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got "
                               f"{_name(input)} and {_name(weight)}")
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{_CPP[input.dtype.name]} != {_CPP[weight.dtype.name]}")
    if weight.ndim == 1:
        if bias is not None:
            raise RuntimeError("mat2 must be a matrix, got 1-D tensor")
        k, n = input.shape[-1], weight.shape[0]
        if k != n:
            if input.ndim == 1:
                raise RuntimeError(f"inconsistent tensor size, expected tensor [{k}] and src "
                                   f"[{n}] to have the same number of elements, but got {k} "
                                   f"and {n} elements respectively")
            rows = math.prod(input.shape[:-1])
            raise RuntimeError(f"size mismatch, got input ({rows}), mat ({rows}x{k}), vec ({n})")
        return
    rows = math.prod(input.shape[:-1])
    if input.shape[-1] != weight.shape[1]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{input.shape[-1]}"
                           f" and {weight.shape[1]}x{weight.shape[0]})")
    if bias is not None:
        if input.ndim <= 2 or bias.ndim <= 1:
            src, target = tuple(bias.shape), (rows, weight.shape[0])
            check_expand(src, target, f"expand(torch.FloatTensor{{{list(src)}}}, size="
                         f"{list(target)}): the number of sizes provided ({len(target)}) must be "
                         f"greater or equal to the number of dimensions in the tensor "
                         f"({len(src)})")
        else:
            check_broadcast(input.shape[:-1] + weight.shape[:1], bias.shape)


def _linear_grad_name(input, weight, bias=None):
    return "MmBackward0" if bias is None else "AddmmBackward0"


@op("linear", namespace="nn.functional", method=False, out=False, saves="others",
    tensors=("input", "weight", "bias"), grad_name=_linear_grad_name, listed_first=("bias",))
def linear(input, weight, bias=None):
    """``input @ weight.T + bias`` (``weight``: ``(out_features, in_features)``)."""
    _check_linear(input, weight, bias)
    w = weight.T if weight.ndim == 2 else weight
    if bias is None:
        return jnp.matmul(input, w)
    if input.dtype in (jnp.bfloat16, jnp.float16):
        # PyTorch's addmm adds the bias to the float32 accumulator and rounds once
        out = jnp.matmul(input, w, preferred_element_type=jnp.float32)
        return (out + bias.astype(jnp.float32)).astype(input.dtype)
    return jnp.matmul(input, w) + bias


def _check_bilinear(input1, input2, weight, bias):
    dts = [input1.dtype, input2.dtype, weight.dtype] + ([bias.dtype] if bias is not None else [])
    if len(set(dts)) > 1:
        names = [f"input1: {_CPP[input1.dtype.name]}", f"input2: {_CPP[input2.dtype.name]}",
                 f"weight: {_CPP[weight.dtype.name]}"]
        if bias is not None:
            names.append(f"bias: {_CPP[bias.dtype.name]}")
        raise RuntimeError("All tensors must have the same dtype, got " + ", ".join(names))
    if input1.ndim != input2.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.ndim} and "
                           f"{input2.ndim}")
    for i in range(input1.ndim - 1):
        if input1.shape[i] != input2.shape[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: got "
                               f"{input1.shape[i]} and {input2.shape[i]}")
    if input1.shape[-1] != weight.shape[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got "
                           f"{input1.shape[-1]} but expected {weight.shape[1]}")
    if weight.ndim != 3:
        raise RuntimeError(f"bilinear(): weight must be 3-D, got {weight.ndim}-D")
    if input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got "
                           f"{input2.shape[-1]} but expected {weight.shape[2]}")
    if bias is not None and bias.shape[0] != weight.shape[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got "
                           f"{bias.shape[0]} but expected {weight.shape[0]}")


def _bilinear_grad_name(input1, input2, weight, bias=None):
    return "ViewBackward0" if bias is None else "AddBackward0"


@op("bilinear", namespace="nn.functional,", method=False, out=False, saves="others",
    tensors=("input1", "input2", "weight", "bias"), grad_name=_bilinear_grad_name)
def bilinear(input1, input2, weight, bias=None):
    """``y[..., o] = sum_ij input1[..., i] weight[o, i, j] input2[..., j] + bias[o]``."""
    _check_bilinear(input1, input2, weight, bias)
    out = jnp.einsum("...i,oij,...j->...o", input1, weight, input2)
    if bias is not None:
        out = out + bias
    return out

from . import nn_distance  # noqa: E402,F401 - distances and F.normalize register with the linear ops
