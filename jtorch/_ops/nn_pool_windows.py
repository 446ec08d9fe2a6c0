"""Pooling windows: the input's windows stacked on a trailing axis, PyTorch's choice of the
maximum in a window, and the flat indices of that choice.

When stride == kernel_size, with no padding and dilation 1, the windows are the input's tiles
and a reshape stacks them (``tiles``; other windows are strided slices, nn_conv.windows).
Max pooling makes PyTorch's CPU choice (``val > max || isnan(val)``: the first maximum in
row-major window order, or the last NaN) as that loop unrolled over the window: a chain of
elementwise selects whose derivative sends each window's gradient to the chosen element, with
no gather or scatter (windows of more than ``MAX_UNROLL`` elements: an argmax and a one-hot).
XLA:CPU lowers the derivative of a ``reduce_window`` max, ``select_and_scatter``, into
full-size iotas, a multi-output reduce_window and a scatter: on a small CNN it cost more than
the convolutions. Average pooling on tiles is a sum over the tile axes.
"""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np
from jax import lax

# windows with more elements than this are not unrolled: argmax and a one-hot selection
MAX_UNROLL = 9


def is_tiled(spatial, ks, ss, ps, ds, outs):
    """Whether the windows are the input's tiles: stride == kernel, no padding, dilation 1,
    and the output size of floor mode (a trailing remainder is dropped, as in PyTorch;
    ceil_mode only differs when there is a remainder)."""
    return (tuple(ss) == tuple(ks) and not any(ps) and all(d == 1 for d in ds)
            and all(o == L // k for L, k, o in zip(spatial, ks, outs)))


def _crop_split(x, ks):
    """(N, C, *spatial) -> (N, C, o1, k1, o2, k2, ...), the trailing remainder dropped."""
    outs = tuple(L // k for L, k in zip(x.shape[2:], ks))
    if any(o * k != L for o, k, L in zip(outs, ks, x.shape[2:])):
        x = lax.slice(x, (0,) * x.ndim, x.shape[:2] + tuple(o * k for o, k in zip(outs, ks)))
    return x.reshape(x.shape[:2] + sum(((o, k) for o, k in zip(outs, ks)), ()))


def tiles(x, ks):
    """(N, C, *spatial) -> (N, C, *outs, prod(ks)): each window on the last axis, in PyTorch's
    row-major window order."""
    return window_axis(_crop_split(x, ks))


def window_axis(x):
    """(N, C, o1, k1, o2, k2, ...) -> (N, C, o1, o2, ..., k1 * k2 * ...)."""
    n = (x.ndim - 2) // 2
    perm = (0, 1) + tuple(2 + 2 * i for i in range(n)) + tuple(3 + 2 * i for i in range(n))
    return x.transpose(perm).reshape(x.shape[:2] + x.shape[2::2] + (math.prod(x.shape[3::2]),))


def first_max(win, want_index, valid=None):
    """PyTorch's choice in each window (last axis of ``win``): the first maximum, or the last
    NaN, among the window's real elements. Padding must hold the dtype's lowest value;
    ``valid`` (static, ``(*outs, K)``; None: all real) marks the real elements, so that a
    padded window whose real elements are all lowest chooses its first real one, as PyTorch
    does. Returns ``(value, position in the
    window or None)``."""
    first = None
    if valid is not None and not valid.all():
        first = valid & (np.cumsum(valid, axis=-1) == 1)
    if win.shape[-1] > MAX_UNROLL:
        am = _window_argmax(win)
        if first is not None:  # windows of only -inf (or the integer minimum): the first real
            top = jnp.max(win, axis=-1, keepdims=True)
            am = jnp.where(jnp.all(win[..., :1] == top, axis=-1) & ~first[..., 0],
                           np.argmax(first, axis=-1), am)
        sel = jnp.arange(win.shape[-1]) == am[..., None]
        val = jnp.sum(jnp.where(sel, win, jnp.zeros((), win.dtype)), axis=-1, dtype=win.dtype)
        return val, (am if want_index else None)
    best = win[..., 0]
    idx = jnp.zeros(best.shape, jnp.int64) if want_index else None
    floating = jnp.issubdtype(win.dtype, jnp.floating)
    for j in range(1, win.shape[-1]):
        v = win[..., j]
        take = (v > best) | jnp.isnan(v) if floating else v > best
        if first is not None and first[..., j].any():
            take = take | first[..., j]
        best = jnp.where(take, v, best)
        if want_index:
            idx = jnp.where(take, j, idx)
    return best, idx


def window_validity(spatial, ks, ss, ps, ds, outs):
    """Static ``(*outs, prod(ks))`` mask of the window elements inside the input (not
    padding), in row-major window order; None when every element is inside."""
    n = len(ks)
    mask = np.ones(tuple(outs) + tuple(ks), bool)
    for i, (L, k, s, p, d, o) in enumerate(zip(spatial, ks, ss, ps, ds, outs)):
        pos = np.arange(o)[:, None] * s - p + np.arange(k)[None, :] * d
        shape = [1] * (2 * n)
        shape[i], shape[n + i] = o, k
        mask = mask & ((pos >= 0) & (pos < L)).reshape(shape)
    return None if mask.all() else mask.reshape(tuple(outs) + (-1,))


def _window_argmax(win):
    """The position ``first_max`` chooses in each window (last axis), as one argmax."""
    am = jnp.argmax(win, axis=-1)
    if jnp.issubdtype(win.dtype, jnp.floating):
        nan = jnp.isnan(win)
        last_nan = win.shape[-1] - 1 - jnp.argmax(nan[..., ::-1], axis=-1)
        am = jnp.where(nan.any(axis=-1), last_nan, am)
    return am


def tiled_sum(x, ks, acc):
    """Sum of each tile, accumulated in dtype ``acc``."""
    x = _crop_split(x.astype(acc), ks)
    return jnp.sum(x, axis=tuple(3 + 2 * i for i in range(len(ks))), dtype=acc)


def flat_indices(am, spatial, widths, position):
    """PyTorch's flat input indices (into the spatial plane) of window positions ``am``
    (row-major offsets in windows of shape ``widths``; outputs laid out as ``(N, C, *outs)``).
    ``position(i, o, off)``: the input coordinate along spatial dim ``i`` of offset ``off`` in
    the window of output ``o``."""
    n = len(widths)
    flat = jnp.zeros(am.shape, jnp.int64)
    rem = am.astype(jnp.int64)
    for i in range(n):
        inner = math.prod(widths[i + 1:])
        off = rem // inner
        rem = rem % inner
        shape = [1] * am.ndim
        shape[2 + i] = am.shape[2 + i]
        o = jnp.arange(am.shape[2 + i], dtype=jnp.int64).reshape(shape)
        flat = flat + position(i, o, off) * math.prod(spatial[i + 1:])
    return flat
