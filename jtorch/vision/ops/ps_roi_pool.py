"""``torchvision.ops.ps_roi_pool`` and ``PSRoIPool`` (R-FCN's position-sensitive RoI
pooling), as torchvision's CPU kernel computes its forward: output channel ``c`` of bin
``(i, j)`` averages input channel ``(c * PH + i) * PW + j`` over the bin's pixels; rois are
rounded to whole pixels (at least 1 wide) and the bins clipped to ``[0, size - 1]``, so an
empty bin (at the last row or column, say) is 0.

Difference from torchvision: the gradient is the derivative of this forward. torchvision's
backward kernel clips the bins to ``[0, size]`` instead, so for bins that touch the input's
last row or column it spreads the gradient over one more row or column than the forward read
(docs/vision.md)."""

from __future__ import annotations

from ..._ops.compare import where
from ._utils import _RoIModule, roi_arguments
from .ps_roi_align import position_sensitive
from .roi_pool import bin_window, pixel_bins, round_half_away

__all__ = ["PSRoIPool", "ps_roi_pool"]


def ps_roi_pool(input, boxes, output_size, spatial_scale=1.0):
    """Position-sensitive RoI average pooling: ``(K, C / (PH * PW), PH, PW)``."""
    rois, pooled = roi_arguments("ps_roi_pool", input, boxes, output_size)
    features, (co, ph, pw) = position_sensitive(input, pooled)
    if rois.shape[0] == 0:
        return input.new_zeros((0, features.shape[1], *pooled))
    _, _, _, _, height, width = features.shape
    corners = round_half_away(rois[:, 1:] * spatial_scale).long()    # x1, y1, x2, y2
    size = (corners[:, 2:] - corners[:, :2]).clamp(min=1)              # width, height
    hs, he = pixel_bins(corners[:, 1], size[:, 1], pooled[0], input.dtype, height - 1)
    ws, we = pixel_bins(corners[:, 0], size[:, 0], pooled[1], input.dtype, width - 1)
    rows, row_in = bin_window(hs, he, height, "ps_roi_pool")          # (K, PH, n)
    cols, col_in = bin_window(ws, we, width, "ps_roi_pool")           # (K, PW, m)
    b = rois[:, 0].long()[:, None, None, None, None, None]
    vals = features[b, co, ph, pw, rows[:, None, :, None, :, None],
                    cols[:, None, None, :, None, :]]                   # (K, Co, PH, PW, n, m)
    inside = row_in[:, None, :, None, :, None] & col_in[:, None, None, :, None, :]
    total = where(inside, vals, 0.0).sum((4, 5))
    area = ((he - hs)[:, :, None] * (we - ws)[:, None, :])[:, None]   # (K, 1, PH, PW)
    return where(area > 0, total / area.clamp(min=1).to(total.dtype), 0.0)


class PSRoIPool(_RoIModule):
    """See :func:`ps_roi_pool`."""

    _op = staticmethod(ps_roi_pool)
