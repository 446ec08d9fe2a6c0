"""``torchvision.ops.roi_pool`` and ``RoIPool`` (Fast R-CNN's RoI max pooling), as
torchvision's CPU kernel computes it.

Each roi is rounded to whole pixels (half away from zero) and cut into ``output_size`` bins of
``floor``/``ceil`` pixel bounds, clipped to the input; a bin's output is its first largest value
(row-major order; NaN never wins), ``-FLT_MAX`` when every value is ``-inf``/NaN, and 0 for an
empty bin; the gradient goes to that first largest element. The bins' pixels are gathered for
all rois at once, up to the widest bin, whose size is read on the host (inside jtorch.compile
the input's own height and width bound it instead).
"""

from __future__ import annotations

import jax

from ..._ops.compare import where
from ..._ops.creation_math import arange
from ._utils import _RoIModule, host_int, roi_arguments

__all__ = ["RoIPool", "roi_pool"]

_FLT_MAX = 3.4028234663852886e38


def round_half_away(t):
    """C's ``round``: halves away from zero (torch.round rounds them to even)."""
    whole = t.trunc()
    return whole + where((t - whole).abs() >= 0.5, t.sign(), 0.0)


def pixel_bins(start, length, pooled, dtype, clip):
    """The ``[start, end)`` pixel bounds of ``pooled`` bins over rois of integer ``start`` and
    ``length`` (``(K,)`` each; bin sizes in ``dtype``), clipped to ``[0, clip]``: ``(K,
    pooled)`` each."""
    bin_size = length.to(dtype) / pooled
    p = arange(pooled, dtype=bin_size.dtype)[None, :]
    lo = (p * bin_size[:, None]).floor().long() + start[:, None]
    hi = ((p + 1) * bin_size[:, None]).ceil().long() + start[:, None]
    return lo.clamp(0, clip), hi.clamp(0, clip)


def bin_window(lo, hi, bound, what):
    """The pixel indices ``lo + 0..n-1`` covering the widest bin (``n`` read on the host; inside
    a trace the input's size ``bound``; clamped to ``bound - 1``), and which of them fall inside
    each bin: ``(K, P, n)`` each."""
    if isinstance(lo._value, jax.core.Tracer):
        n = bound
    else:
        n = host_int(hi - lo, what)
    j = arange(n, device=lo.device)
    return (lo[..., None] + j).clamp(max=bound - 1), j < (hi - lo)[..., None]


def roi_pool(input, boxes, output_size, spatial_scale=1.0):
    """RoI max pooling: ``(K, C, *output_size)`` from ``input`` (``(N, C, H, W)``) and
    ``boxes`` (``Tensor[K, 5]`` or a list of ``Tensor[L, 4]``)."""
    rois, (ph, pw) = roi_arguments("roi_pool", input, boxes, output_size)
    _, c, height, width = input.shape
    if rois.shape[0] == 0:
        return input.new_zeros((0, c, ph, pw))
    corners = round_half_away(rois[:, 1:] * spatial_scale).long()    # x1, y1, x2, y2
    size = (corners[:, 2:] - corners[:, :2] + 1).clamp(min=1)         # width, height
    dt = input.dtype
    hs, he = pixel_bins(corners[:, 1], size[:, 1], ph, dt, height)
    ws, we = pixel_bins(corners[:, 0], size[:, 0], pw, dt, width)
    rows, row_in = bin_window(hs, he, height, "roi_pool")             # (K, PH, n)
    cols, col_in = bin_window(ws, we, width, "roi_pool")              # (K, PW, m)
    features = input.permute(0, 2, 3, 1)                              # (N, H, W, C)
    b = rois[:, 0].long()[:, None, None, None, None]
    vals = features[b, rows[:, :, None, :, None], cols[:, None, :, None, :]]  # (K,PH,PW,n,m,C)
    inside = (row_in[:, :, None, :, None] & col_in[:, None, :, None, :])[..., None]
    k, _, _, n, m, _ = vals.shape
    flat = where(inside & ~vals.isnan(), vals.detach(), -float("inf")).reshape(k, ph, pw, n * m, c)
    best = flat.amax(3)                                                # (K, PH, PW, C)
    first = flat.argmax(3, keepdim=True)                               # first largest
    picked = vals.reshape(k, ph, pw, n * m, c).gather(3, first).squeeze(3)
    empty = ((he <= hs)[:, :, None] | (we <= ws)[:, None, :])[..., None]
    out = where(best > -_FLT_MAX, picked, -_FLT_MAX)
    return where(empty, 0.0, out).permute(0, 3, 1, 2)


class RoIPool(_RoIModule):
    """See :func:`roi_pool`."""

    _op = staticmethod(roi_pool)
