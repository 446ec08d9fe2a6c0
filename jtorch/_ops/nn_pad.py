"""Padding: ``F.pad`` (modes constant, reflect, replicate, circular; negative pads crop) and
``torch.constant_pad_nd``.

``pad`` lists (left, right) pairs from the LAST dim backwards, as in PyTorch. Constant padding
is one ``lax.pad``; the other modes are one gather per padded dim with static indices, so the
backward (a scatter-add) accumulates the gradient of every copied element, as PyTorch's. Checks
and their texts follow PyTorch (reflect pads must be smaller than the dim, non-constant modes
pad the last 1/2/3 dims of 2-3/3-4/4-5-D inputs, circular pads wrap at most once).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .._core.dispatch import dispatch
from .._core.kernel import OpDef
from ._registry import export, op


def _check_length(input, pad):
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError(f"Padding length should be less than or equal to two times the input "
                           f"dimension but got padding length {len(pad)} and input of dimension "
                           f"{input.ndim}")


def _constant_name(input, pad, value=0):
    return "ConstantPadNdBackward0"


@op("constant_pad_nd", method=False, out=False, saves=False, grad_name=_constant_name)
def constant_pad_nd(input, pad, value=0):
    """Pads (or, for negative entries, crops) the last ``len(pad) // 2`` dims with ``value``."""
    _check_length(input, pad)
    cfg = [(0, 0, 0)] * input.ndim
    for i in range(len(pad) // 2):
        d = input.ndim - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        if input.shape[d] + min(lo, 0) + min(hi, 0) < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
        cfg[d] = (lo, hi, 0)
    v = jnp.asarray(value).astype(input.dtype)
    return jax.lax.pad(input, v, cfg)


# ------------------------------------------------------------------ reflect/replicate/circular
def _reflect_index(w, lo, hi):
    x = np.arange(w + lo + hi) - lo
    x = np.where(x < 0, -x, x)
    return np.where(x > w - 1, 2 * (w - 1) - x, x)


def _replicate_index(w, lo, hi):
    return np.clip(np.arange(w + lo + hi) - lo, 0, w - 1)


def _circular_index(w, lo, hi):
    start = max(-lo, 0)
    m = w - start - max(-hi, 0)
    return start + (np.arange(w + lo + hi) - max(lo, 0)) % max(m, 1)


_INDEX = {"reflect": _reflect_index, "replicate": _replicate_index,
          "circular": _circular_index}
_SUPPORTED = ("Supported combinations for non-constant padding:\n"
              "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
              "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
              "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
_AXES = ("W", "H", "D")


def _check_nonzero(input, k):
    batched = input.ndim == k + 2
    if any(s == 0 for s in input.shape[1 if batched else 0:]):
        raise RuntimeError(f"Expected {k + 1}D or {k + 2}D (batch mode) tensor with possibly 0 "
                           f"batch size and other non-zero dimensions for input, but got: "
                           f"{list(input.shape)}")


def _check_small(input, pad, k, mode):
    dims = [input.ndim - 1 - i for i in range(k)][::-1]   # D, H, W order
    names = _AXES[:k][::-1]
    outs = [input.shape[d] + pad[2 * (input.ndim - 1 - d)] + pad[2 * (input.ndim - 1 - d) + 1]
            for d in dims]
    bad = all(o < 1 for o in outs) if k > 1 else outs[0] < 1
    if bad:
        sep = " )" if mode == "replicate" and k == 2 else ")"
        ins = ", ".join(f"{n}: {input.shape[d]}" for n, d in zip(names, dims))
        got = " ".join(f"{n}: {o}" for n, o in zip(names, outs))
        raise RuntimeError(f"input ({ins}{sep} is too small. Calculated output {got}")


def _nonconstant_body(input, pad, mode):
    _check_length(input, pad)
    k = len(pad) // 2
    if k not in (1, 2, 3) or input.ndim not in (k + 1, k + 2):
        raise NotImplementedError(f"Padding size {len(pad)} is not supported for {input.ndim}D "
                                  f"input tensor.\n{_SUPPORTED}")
    if mode != "circular":
        _check_nonzero(input, k)
    if mode == "reflect":
        for i in range(k):
            d = input.ndim - 1 - i
            lo, hi = pad[2 * i], pad[2 * i + 1]
            if lo >= input.shape[d] or hi >= input.shape[d]:
                raise RuntimeError(f"Argument #{4 + 2 * i}: Padding size should be less than the "
                                   f"corresponding input dimension, but got: padding ({lo}, {hi}) "
                                   f"at dimension {d} of input {list(input.shape)}")
    if mode != "circular":
        _check_small(input, pad, k, mode)
    x = input
    for i in range(k):
        d = input.ndim - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        w = input.shape[d]
        if mode == "circular":
            if lo > w or hi > w:
                raise RuntimeError("Padding value causes wrapping around more than once.")
            if w + min(lo, 0) + min(hi, 0) <= 0:
                raise RuntimeError("Negative padding value is resulting in an empty dimension")
            if max(lo, 0) > w + min(hi, 0) + min(lo, 0) or max(hi, 0) > w + min(hi, 0) + min(lo, 0):
                raise RuntimeError("unsupported operation: some elements of the input tensor and "
                                   "the written-to tensor refer to a single memory location. "
                                   "Please clone() the tensor before performing the operation.")
        idx = _INDEX[mode](w, lo, hi)
        x = jnp.take(x, jnp.asarray(idx, jnp.int32), axis=d)
    return x


def _pad_name(input, pad, mode):
    if mode == "circular":
        return "CopySlices"
    base = "ReflectionPad" if mode == "reflect" else "ReplicationPad"
    return f"{base}{len(pad) // 2}DBackward0"


_NONCONSTANT = OpDef("pad", _nonconstant_body, saves=False, grad_name=_pad_name)


@export("pad", namespace="nn.functional")
def pad(input, pad, mode="constant", value=None):
    """Pads ``input``: ``pad = (left_last, right_last, left_prev, right_prev, ...)``."""

    if not isinstance(pad, (tuple, list)):
        raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, not "
                        f"{type(pad).__name__}")
    for i, p in enumerate(pad):
        if not isinstance(p, (int, np.integer)) or isinstance(p, bool):
            raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, but "
                            f"found element of type {type(p).__name__} at pos {i}")
    pad = tuple(int(p) for p in pad)
    if mode == "constant":
        return constant_pad_nd(input, pad, 0 if value is None else value)
    if mode not in _INDEX:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    return dispatch(_NONCONSTANT, (input, pad, mode), {})
