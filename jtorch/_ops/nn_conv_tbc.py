"""``torch.conv_tbc`` (also ``F.conv_tbc``): a 1-d convolution over (time, batch, channel)
inputs, fairseq's layout, with a (kernel width, in channels, out channels) weight and a
required bias.

Computed as ATen computes it: the output starts as the bias (in the input's dtype) and each
kernel offset adds one matrix product of the shifted input with that offset's weight, in
order; so integer and bfloat16 inputs work as in PyTorch, and float32 results differ from
PyTorch's only by the order of the sums inside each matrix product.
"""

from __future__ import annotations

import jax.numpy as jnp

from ._registry import op
from ._util import type_name


def _check(input, weight, bias):
    if input.ndim != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.ndim != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, "
                           "out_channels.")
    if bias.ndim != 1:
        raise RuntimeError("Bias must be 1-D")
    if bias.shape[0] != weight.shape[2]:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    if input.shape[2] != weight.shape[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")


@op("conv_tbc", namespace=",nn.functional", method=False, out=False,
    tensors=("input", "weight", "bias"), grad_name="ConvTbcBackward0")
def conv_tbc(input, weight, bias, pad=0):
    """``(T + 2 pad - K + 1, B, C_out)`` output of ``input`` ``(T, B, C_in)`` convolved with
    ``weight`` ``(K, C_in, C_out)``, plus ``bias``."""
    _check(input, weight, bias)
    width, batch, c_out = weight.shape[0], input.shape[1], weight.shape[2]
    length = input.shape[0] + 2 * pad - width + 1
    if length < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {length}: "
                           f"[{length}, {batch}, {c_out}]")
    if input.dtype != weight.dtype:
        raise RuntimeError("self and mat2 must have the same dtype, but got "
                           f"{type_name(input)} and {type_name(weight)}")
    x = jnp.pad(input, ((pad, pad), (0, 0), (0, 0)))
    dt = input.dtype
    out = jnp.broadcast_to(bias.astype(dt), (length, batch, c_out))
    # each offset is one addmm: the product accumulates in float32 for half types and the
    # sum with the output so far rounds once
    acc = jnp.float32 if dt in (jnp.bfloat16, jnp.float16) else None
    for k in range(width):
        step = jnp.matmul(x[k:k + length], weight[k], preferred_element_type=acc)
        out = (out.astype(step.dtype) + step).astype(dt)
    return out
