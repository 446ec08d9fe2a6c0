"""``torchvision.ops.deform_conv2d`` and ``DeformConv2d`` (deformable convolution v1, and v2
with ``mask``), as torchvision's CPU kernel computes it.

Each kernel tap of each output position samples the input at its regular position plus a
learned ``(dy, dx)`` offset (one per offset group, tap and position), by bilinear
interpolation with zero outside the input (torchvision's rule: a sample at ``<= -1`` or
``>= size`` is 0, a corner outside the input counts as 0), times the tap's ``mask`` value;
the samples (torchvision's "columns") are then multiplied with the weight per weight group.
Written with jtorch ops: autograd reaches the input, the offsets, the mask, the weight and the
bias, and it traces under jtorch.compile.
"""

from __future__ import annotations

import math

from jtorch import nn
from jtorch.nn import init

from ..._ops.compare import where
from ..._ops.creation import empty
from ..._ops.creation_math import arange
from ..._tensor import Tensor

__all__ = ["DeformConv2d", "deform_conv2d"]


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def _sample(features, y, x, height, width):
    """Bilinear samples of ``features`` (``(N, G, Cg, H * W)``) at coordinates ``y``, ``x``
    (``(N, G, L)``): ``(N, G, Cg, L)``, 0 outside as torchvision's kernel."""
    inside = (y > -1) & (y < height) & (x > -1) & (x < width)
    y0, x0 = y.floor(), x.floor()
    ly, lx = y - y0, x - x0
    y0, x0 = y0.long(), x0.long()
    total = 0.0
    for dy, wy in ((0, 1 - ly), (1, ly)):
        for dx, wx in ((0, 1 - lx), (1, lx)):
            yi, xi = y0 + dy, x0 + dx
            ok = inside & (yi >= 0) & (yi <= height - 1) & (xi >= 0) & (xi <= width - 1)
            flat = where(ok, yi * width + xi, 0)
            n, g, cg, _ = features.shape
            v = features.gather(3, flat[:, :, None, :].expand(n, g, cg, flat.shape[-1]))
            total = total + (wy * wx)[:, :, None, :] * where(ok[:, :, None, :], v, 0.0)
    return total


def deform_conv2d(input, offset, weight, bias=None, stride=(1, 1), padding=(0, 0),
                  dilation=(1, 1), mask=None):
    """Deformable convolution: ``input`` ``(N, C, H, W)``, ``offset`` ``(N, 2 * G * kh * kw,
    Ho, Wo)`` (``dy``, ``dx`` per offset group and tap), ``weight`` ``(O, C / groups, kh,
    kw)``, ``mask`` ``(N, G * kh * kw, Ho, Wo)`` or None; returns ``(N, O, Ho, Wo)``."""
    out_channels = weight.shape[0]
    (sh, sw), (ph, pw), (dh, dw) = _pair(stride), _pair(padding), _pair(dilation)
    kh, kw = weight.shape[-2:]
    n, c, height, width = input.shape
    offset_groups = offset.shape[1] // (2 * kh * kw)
    weight_groups = c // weight.shape[1]
    if offset_groups == 0:
        raise RuntimeError(
            "the shape of the offset tensor at dimension 1 is not valid. It should be a "
            "multiple of 2 * weight.size[2] * weight.size[3].\n"
            f"Got offset.shape[1]={offset.shape[1]}, while 2 * weight.size[2] * "
            f"weight.size[3]={2 * kh * kw}")
    ho = (height + 2 * ph - (dh * (kh - 1) + 1)) // sh + 1
    wo = (width + 2 * pw - (dw * (kw - 1) + 1)) // sw + 1
    if offset.shape[0] != n:
        raise RuntimeError("invalid batch size of offset")
    if offset.shape[1] != 2 * offset_groups * kh * kw:
        raise RuntimeError(f"offset.shape[1] is not valid: got: {offset.shape[1]} expected: "
                           f"{2 * offset_groups * kh * kw}")
    if tuple(offset.shape[2:]) != (ho, wo):
        raise RuntimeError(f"offset output dims: ({offset.shape[2]}, {offset.shape[3]}) - "
                           f"computed output dims: ({ho}, {wo})")
    taps = kh * kw
    dt = input.dtype
    # each tap's regular sampling position, (K, Ho, 1) rows and (K, 1, Wo) columns
    i = arange(kh, dtype=dt).repeat_interleave(kw)[:, None, None]
    j = arange(kw, dtype=dt).repeat(kh)[:, None, None]
    rows = arange(ho, dtype=dt)[None, :, None] * sh - ph + i * dh
    cols = arange(wo, dtype=dt)[None, None, :] * sw - pw + j * dw
    off = offset.reshape(n, offset_groups, taps, 2, ho, wo)
    y = (rows + off[:, :, :, 0]).reshape(n, offset_groups, taps * ho * wo)
    x = (cols + off[:, :, :, 1]).reshape(n, offset_groups, taps * ho * wo)
    features = input.reshape(n, offset_groups, c // offset_groups, height * width)
    columns = _sample(features, y, x, height, width)          # (N, G, Cg, K * Ho * Wo)
    if mask is not None:
        columns = columns * mask.reshape(n, offset_groups, 1, taps * ho * wo)
    columns = columns.reshape(n, weight_groups, c // weight_groups * taps, ho * wo)
    w = weight.reshape(weight_groups, out_channels // weight_groups, -1)
    out = (w[None] @ columns).reshape(n, out_channels, ho, wo)
    return out if bias is None else out + bias[None, :, None, None]


class DeformConv2d(nn.Module):
    """See :func:`deform_conv2d`; ``forward(input, offset, mask=None)``."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True):
        super().__init__()
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _pair(kernel_size)
        self.stride = _pair(stride)
        self.padding = _pair(padding)
        self.dilation = _pair(dilation)
        self.groups = groups
        self.weight = nn.Parameter(empty(out_channels, in_channels // groups,
                                         *self.kernel_size))
        if bias:
            self.bias = nn.Parameter(empty(out_channels))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in)
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor, offset: Tensor, mask: Tensor | None = None):
        return deform_conv2d(input, offset, self.weight, self.bias, stride=self.stride,
                             padding=self.padding, dilation=self.dilation, mask=mask)

    def __repr__(self):
        s = (f"{self.__class__.__name__}({self.in_channels}, {self.out_channels}, "
             f"kernel_size={self.kernel_size}, stride={self.stride}")
        s += f", padding={self.padding}" if self.padding != (0, 0) else ""
        s += f", dilation={self.dilation}" if self.dilation != (1, 1) else ""
        s += f", groups={self.groups}" if self.groups != 1 else ""
        s += ", bias=False" if self.bias is None else ""
        return s + ")"

