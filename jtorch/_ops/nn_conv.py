"""nn.functional ops: convolution, transposed convolution, pixel/channel shuffle.

Convolutions are one ``lax.conv_general_dilated`` each (their backward is JAX's vjp of it); a
transposed convolution is the same primitive in its ``lhs_dilation`` form with the kernel's
in/out axes swapped per group and its spatial axes flipped. Every shape error PyTorch raises is
raised at trace time with PyTorch's text.
"""

from __future__ import annotations

import itertools

import jax.numpy as jnp
from jax import lax

from ._registry import op
from ._util import wrap_dim
from .reduction import type_name

_SPATIAL = "DHW"


def shape_str(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


def expand_param(name, value, n, k):
    """PyTorch's ``expand_param_if_needed``: an int or a 1-list becomes ``k`` values; a list of
    ``n`` values must have ``k`` (the weight's spatial rank) entries."""
    vals = (value,) * n if isinstance(value, int) else tuple(int(v) for v in value)
    if len(vals) == 1:
        vals = vals * k
    if len(vals) != k:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {k} "
                           f"values to match the convolution dimensions, but got "
                           f"{name}={shape_str(vals)}")
    return vals


def batchify(name, x, n):
    """Adds the batch dim to an unbatched input (PyTorch's ``batchify``); returns (x, batched)."""
    if x.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to "
                           f"{name}, but got input of size: {shape_str(x.shape)}")
    return (x, True) if x.ndim == n + 2 else (x[None], False)


def _check_dtypes(x, w, b, transposed):
    """PyTorch's dtype checks: a convolution checks its bias's dtype before its weight's, a
    transposed convolution its weight's first."""
    bias_ok = b is None or b.dtype == x.dtype
    if x.dtype != w.dtype and (transposed or bias_ok):
        if x.dtype != jnp.float32:
            raise RuntimeError(f"expected scalar type {type_name(x)} but found {type_name(w)}")
        raise RuntimeError(f"Input type (torch.{type_name(x)}Tensor) and weight type "
                           f"(torch.{type_name(w)}Tensor) should be the same or input should "
                           "be a MKLDNN tensor and weight is a dense tensor")
    if not bias_ok:
        raise RuntimeError(f"Input type ({type_name(x).lower()}) and bias type "
                           f"({type_name(b).lower()}) should be the same")


def _check_shapes(x, w, b, stride, padding, dilation, groups, transposed, output_padding):
    """PyTorch's ``check_shape_forward`` (x is batched; padding a list of pairs)."""
    if any(lo < 0 or hi < 0 for lo, hi in padding):
        raise RuntimeError("negative padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("non-positive dilation is not supported")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    ws, xs = shape_str(w.shape), shape_str(x.shape)
    if w.ndim != x.ndim:
        raise RuntimeError(f"Expected {w.ndim}-dimensional input for {w.ndim}-dimensional "
                           f"weight {ws}, but got {x.ndim}-dimensional input of size {xs} "
                           "instead")
    if w.shape[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at "
                           f"dimension 0, but got weight of size {ws} instead")
    if w.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} "
                           f"at dimension 0, but got weight of size [{ws}] instead")
    if not transposed:
        if x.shape[1] != w.shape[1] * groups:
            raise RuntimeError(f"Given groups={groups}, weight of size {ws}, expected input{xs} "
                               f"to have {w.shape[1] * groups} channels, but got {x.shape[1]} "
                               "channels instead")
        if b is not None and (b.ndim != 1 or b.shape[0] != w.shape[0]):
            raise RuntimeError(f"Given weight of size {ws}, expected bias to be 1-dimensional "
                               f"with {w.shape[0]} elements, but got bias of size "
                               f"{shape_str(b.shape)} instead")
        padded = [x.shape[i + 2] + lo + hi for i, (lo, hi) in enumerate(padding)]
        kern = [d * (k - 1) + 1 for d, k in zip(dilation, w.shape[2:])]
        if any(p < k for p, k in zip(padded, kern)):
            raise RuntimeError("Calculated padded input size per channel: ("
                               + " x ".join(map(str, padded)) + "). Kernel size: ("
                               + " x ".join(map(str, kern)) + "). Kernel size can't be greater "
                               "than actual input size")
    else:
        if x.shape[1] != w.shape[0]:
            raise RuntimeError(f"Given transposed=1, weight of size {ws}, expected input{xs} to "
                               f"have {w.shape[0]} channels, but got {x.shape[1]} channels "
                               "instead")
        if b is not None and (b.ndim != 1 or b.shape[0] != w.shape[1] * groups):
            raise RuntimeError(f"Given transposed=1, weight of size {ws}, expected bias to be "
                               f"1-dimensional with {w.shape[1] * groups} elements, but got "
                               f"bias of size {shape_str(b.shape)} instead")
        bad = [o >= s and o >= d for o, s, d in zip(output_padding, stride, dilation)]
        if any(bad):
            k = len(stride)
            names = ("depth", "height", "width")[3 - max(k, 2):]
            ops_, ss, ds = (((0,) + tuple(v)) if k == 1 else tuple(v)
                            for v in (output_padding, stride, dilation))
            if k == 1:
                ss, ds = (1,) + tuple(stride), (1,) + tuple(dilation)
            parts = ([f"output_padding_{n}: {v}" for n, v in zip(names, ops_)]
                     + [f"stride_{n}: {v}" for n, v in zip(names, ss)]
                     + [f"dilation_{n}: {v}" for n, v in zip(names, ds)])
            raise RuntimeError("output padding must be smaller than either stride or dilation, "
                               "but got " + " ".join(parts))


def _dims(k):
    sp = _SPATIAL[3 - k:] if k <= 3 else "".join(chr(ord("a") + i) for i in range(k))
    return ("NC" + sp, "OI" + sp, "NC" + sp)


def _add_bias(out, bias):
    if bias is None:
        return out
    return out + bias.reshape((1, -1) + (1,) * (out.ndim - 2))


def _conv_with_bias(x, weight, bias, *args, **kwargs):
    """``lax.conv_general_dilated(x, weight, *args, **kwargs)`` plus ``bias``. In bfloat16 and
    float16 PyTorch adds the bias to the float32 accumulator and rounds once (as its addmm
    does for ``linear``), not the rounded convolution and then the bias."""
    if bias is not None and x.dtype in (jnp.bfloat16, jnp.float16):
        out = lax.conv_general_dilated(x, weight, *args, preferred_element_type=jnp.float32,
                                       **kwargs)
        return _add_bias(out, bias.astype(jnp.float32)).astype(x.dtype)
    return _add_bias(lax.conv_general_dilated(x, weight, *args, **kwargs), bias)


def string_padding(padding, kernel_size, dilation):
    """The ``(before, after)`` padding of each spatial dim for ``padding="same"`` (``d * (k -
    1)`` in all, the odd one after, as PyTorch splits it) or ``"valid"`` (none)."""
    totals = [d * (k - 1) if padding == "same" else 0 for d, k in zip(dilation, kernel_size)]
    return [(t // 2, t - t // 2) for t in totals]


def _conv(name, n, input, weight, bias, stride, padding, dilation, groups):
    x, batched = batchify(name, input, n)
    k = weight.ndim - 2
    stride = expand_param("stride", stride, n, k)
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        dilation = expand_param("dilation", dilation, n, k)
        if padding == "same" and any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        pads = string_padding(padding, weight.shape[2:], dilation)
    else:
        padding = expand_param("padding", padding, n, k)
        dilation = expand_param("dilation", dilation, n, k)
        pads = [(p, p) for p in padding]
    _check_shapes(x, weight, bias, stride, pads, dilation, groups, False, ())
    _check_dtypes(x, weight, bias, False)
    out = _conv_with_bias(x, weight, bias, stride, pads, rhs_dilation=dilation,
                          feature_group_count=groups, dimension_numbers=_dims(k))
    return out if batched else out[0]


def _conv_transpose(name, n, input, weight, bias, stride, padding, output_padding, groups,
                    dilation):
    x, batched = batchify(name, input, n)
    k = weight.ndim - 2
    stride = expand_param("stride", stride, n, k)
    padding = expand_param("padding", padding, n, k)
    output_padding = expand_param("output_padding", output_padding, n, k)
    dilation = expand_param("dilation", dilation, n, k)
    _check_shapes(x, weight, bias, stride, [(p, p) for p in padding], dilation, groups, True,
                  output_padding)
    _check_dtypes(x, weight, bias, True)
    cin, cout_g, ks = weight.shape[0], weight.shape[1], weight.shape[2:]
    # (Cin, Cout/g, *k) -> (Cout, Cin/g, *k), spatially flipped
    w = weight.reshape((groups, cin // groups, cout_g) + ks)
    w = jnp.swapaxes(w, 1, 2).reshape((groups * cout_g, cin // groups) + ks)
    w = jnp.flip(w, axis=tuple(range(2, 2 + k)))
    pads = [(d * (kk - 1) - p, d * (kk - 1) - p + o)
            for d, kk, p, o in zip(dilation, ks, padding, output_padding)]
    out = lax.conv_general_dilated(x, w, (1,) * k, pads, lhs_dilation=stride,
                                   rhs_dilation=dilation, feature_group_count=groups,
                                   dimension_numbers=_dims(k))
    out = _add_bias(out, bias)
    return out if batched else out[0]


_CONV = {"namespace": "nn.functional,", "method": False,
         "tensors": ("input", "weight", "bias"), "grad_name": "ConvolutionBackward0"}


@op("conv1d", **_CONV)
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


@op("conv2d", **_CONV)
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


@op("conv3d", **_CONV)
def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _conv("conv3d", 3, input, weight, bias, stride, padding, dilation, groups)


@op("conv_transpose1d", **_CONV)
def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    return _conv_transpose("conv_transpose1d", 1, input, weight, bias, stride, padding,
                           output_padding, groups, dilation)


@op("conv_transpose2d", **_CONV)
def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    return _conv_transpose("conv_transpose2d", 2, input, weight, bias, stride, padding,
                           output_padding, groups, dilation)


@op("conv_transpose3d", **_CONV)
def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    return _conv_transpose("conv_transpose3d", 3, input, weight, bias, stride, padding,
                           output_padding, groups, dilation)


# ------------------------------------------------------------------ pixel / channel shuffle
def _need_dims(name, x, n=3):
    if x.ndim < n:
        raise RuntimeError(f"{name} expects input to have at least {n} dimensions, but got "
                           f"input with {x.ndim} dimension(s)")


def _checked_factor(name, input, factor_name, r):
    """``r`` after pixel_shuffle/pixel_unshuffle's checks of the input's rank and of ``r``."""
    _need_dims(name, input)
    if r <= 0:
        raise RuntimeError(f"{name} expects a positive {factor_name}, but got {r}")
    return r


@op("pixel_shuffle", namespace="nn.functional,", method=False, saves=False)
def pixel_shuffle(input, upscale_factor):
    r = _checked_factor("pixel_shuffle", input, "upscale_factor", upscale_factor)
    *lead, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be "
                           f"divisible by the square of upscale_factor, but input.size(-3)={c} "
                           f"is not divisible by {r * r}")
    m = len(lead)
    x = input.reshape((*lead, c // (r * r), r, r, h, w))
    x = x.transpose(tuple(range(m + 1)) + (m + 3, m + 1, m + 4, m + 2))
    return x.reshape((*lead, c // (r * r), h * r, w * r))


@op("pixel_unshuffle", namespace="nn.functional,", method=False, saves=False)
def pixel_unshuffle(input, downscale_factor):
    r = _checked_factor("pixel_unshuffle", input, "downscale_factor", downscale_factor)
    *lead, c, h, w = input.shape
    if h % r:
        raise RuntimeError("pixel_unshuffle expects height to be divisible by downscale_factor, "
                           f"but input.size(-2)={h} is not divisible by {r}")
    if w % r:
        raise RuntimeError("pixel_unshuffle expects width to be divisible by downscale_factor, "
                           f"but input.size(-1)={w} is not divisible by {r}")
    m = len(lead)
    x = input.reshape((*lead, c, h // r, r, w // r, r))
    x = x.transpose(tuple(range(m + 1)) + (m + 2, m + 4, m + 1, m + 3))
    return x.reshape((*lead, c * r * r, h // r, w // r))


def _channel_shuffle(input, groups):
    if input.ndim <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with "
                           f"sizes {shape_str(input.shape)}")
    if groups <= 0:
        raise RuntimeError("Number of groups to divide channels in must be positive. Value of "
                           f"groups:{groups}")
    n, c, *rest = input.shape
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels "
                           f"and {groups} groups.")
    x = input.reshape((n, groups, c // groups, *rest))
    return jnp.swapaxes(x, 1, 2).reshape(input.shape)


@op("channel_shuffle", namespace="nn.functional,", method=False, saves=False)
def channel_shuffle(input, groups):
    return _channel_shuffle(input, groups)


@op("native_channel_shuffle", namespace="nn.functional,", method=False, saves=False,
    grad_name="ChannelShuffleBackward0")
def native_channel_shuffle(input, groups):
    return _channel_shuffle(input, groups)


# ------------------------------------------------------------------ sliding windows, fold, unfold
def windows(x, ks, ss, ps, ds, outs, fill, axis=-1):
    """Every kernel offset of a pooling/unfold window, stacked along ``axis``.

    ``x`` has ``len(ks)`` trailing spatial dims; the result has the output positions ``outs``
    in their place and one new axis of ``prod(ks)`` entries in PyTorch's (row-major) window
    order. Padding (left ``ps``, right as far as the last window reaches) holds ``fill``.
    """
    n = len(ks)
    lead = x.ndim - n
    spatial = x.shape[lead:]
    right = [max(0, (o - 1) * s + d * (k - 1) + 1 - L - p)
             for L, k, s, p, d, o in zip(spatial, ks, ss, ps, ds, outs)]
    if any(ps) or any(right):
        x = jnp.pad(x, [(0, 0)] * lead + list(zip(ps, right)), constant_values=fill)
    parts = []
    for offs in itertools.product(*[range(k) for k in ks]):
        start = [0] * lead + [o * d for o, d in zip(offs, ds)]
        limit = list(x.shape[:lead]) + [o * d + (m - 1) * s + 1
                                        for o, d, m, s in zip(offs, ds, outs, ss)]
        parts.append(lax.slice(x, start, limit, [1] * lead + list(ss)))
    return jnp.stack(parts, axis=axis)


def _pair(name, v):
    t = (v, v) if isinstance(v, int) else tuple(v)
    if len(t) != 2:
        raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(t)}")
    return t


def _fold_params(kernel_size, dilation, padding, stride):
    ks, ds, ps, ss = (_pair(n, v) for n, v in (("kernel_size", kernel_size),
                                                 ("dilation", dilation),
                                                 ("padding", padding), ("stride", stride)))
    for what, name, vals, ok in (("kernel size", "kernel", ks, 0), ("stride", "stride", ss, 0),
                                 ("dilation", "dilation", ds, 0)):
        if any(v <= ok for v in vals):
            raise RuntimeError(f"{what} should be greater than zero, but got {name}_height: "
                               f"{vals[0]} {name}_width: {vals[1]}")
    if any(p < 0 for p in ps):
        raise RuntimeError(f"padding should be non-negative, but got pad_height: {ps[0]} "
                           f"pad_width: {ps[1]}")
    return ks, ds, ps, ss


def _blocks(size, ks, ds, ps, ss):
    return tuple((L + 2 * p - d * (k - 1) - 1) // s + 1 for L, k, d, p, s in
                 zip(size, ks, ds, ps, ss))


def _tup_str(t):
    return "(" + ", ".join(map(str, t)) + ")"


@op("unfold", namespace="nn.functional", method=False, saves=False,
    grad_name="Im2ColBackward0")
def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    ks, ds, ps, ss = _fold_params(kernel_size, dilation, padding, stride)
    if input.ndim < 3:
        wrap_dim(input.ndim - 1 if input.ndim == 2 else 1, input.ndim - 1)
    x = input if input.ndim == 4 else (input[None] if input.ndim == 3 else None)
    if x is None or any(s == 0 for s in x.shape[1:]):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size "
                           "and other non-zero dimensions for input, but got: "
                           f"{shape_str(input.shape)}")
    if jnp.issubdtype(x.dtype, jnp.integer) or x.dtype == jnp.bool_:
        raise NotImplementedError(f"\"im2col_out_cpu\" not implemented for '{type_name(x)}'")
    outs = _blocks(x.shape[2:], ks, ds, ps, ss)
    if any(o < 1 for o in outs):
        raise RuntimeError(f"Given input with spatial size {_tup_str(x.shape[2:])}, kernel_size="
                           f"{_tup_str(ks)}, dilation={_tup_str(ds)}, padding={_tup_str(ps)}, "
                           f"calculated shape of the array of sliding blocks as {_tup_str(outs)}"
                           ", but its components must be at least one.")
    w = windows(x, ks, ss, ps, ds, outs, 0, axis=2)       # (N, C, K, oH, oW)
    n, c = x.shape[:2]
    out = w.reshape(n, c * ks[0] * ks[1], outs[0] * outs[1])
    return out if input.ndim == 4 else out[0]


@op("fold", namespace="nn.functional", method=False, saves=False, grad_name="Col2ImBackward0")
def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    size = _pair("output_size", output_size)
    ks, ds, ps, ss = _fold_params(kernel_size, dilation, padding, stride)
    if input.ndim not in (2, 3) or any(s == 0 for s in input.shape[-2:]):
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 "
                           "batch size and non-zero dimensions for input, but got: "
                           f"{shape_str(input.shape)}")
    x = input if input.ndim == 3 else input[None]
    kk = ks[0] * ks[1]
    if x.shape[1] % kk:
        raise RuntimeError("Expected size of input's dimension 1 to be divisible by the product "
                           f"of kernel_size, but got input.size(1)={x.shape[1]} and "
                           f"kernel_size={_tup_str(ks)}.")
    outs = _blocks(size, ks, ds, ps, ss)
    if any(o < 1 for o in outs) or x.shape[2] != outs[0] * outs[1]:
        raise RuntimeError(f"Given output_size={_tup_str(size)}, kernel_size={_tup_str(ks)}, "
                           f"dilation={_tup_str(ds)}, padding={_tup_str(ps)}, stride="
                           f"{_tup_str(ss)}, expected size of input's dimension 2 to match the "
                           f"calculated number of sliding blocks {outs[0]} * {outs[1]} = "
                           f"{outs[0] * outs[1]}, but got input.size(2)={x.shape[2]}.")
    n, c = x.shape[0], x.shape[1] // kk
    blocks = x.reshape((n, c, kk) + outs)
    out = jnp.zeros((n, c, size[0] + 2 * ps[0], size[1] + 2 * ps[1]), x.dtype)
    for i, (a, b) in enumerate(itertools.product(range(ks[0]), range(ks[1]))):
        h0, w0 = a * ds[0], b * ds[1]
        out = out.at[:, :, h0:h0 + (outs[0] - 1) * ss[0] + 1:ss[0],
                     w0:w0 + (outs[1] - 1) * ss[1] + 1:ss[1]].add(blocks[:, :, i])
    out = out[:, :, ps[0]:ps[0] + size[0], ps[1]:ps[1] + size[1]]
    return out if input.ndim == 3 else out[0]
