"""``torchvision.ops.ps_roi_align`` and ``PSRoIAlign`` (R-FCN's position-sensitive RoI Align),
as torchvision's CPU kernel computes it: output channel ``c`` of bin ``(i, j)`` averages the
bilinear samples of input channel ``(c * PH + i) * PW + j``; rois are shifted by half a pixel
and not widened to 1 pixel, and a bin with no samples is 0/0 (NaN). The sampling is
:mod:`roi_align`'s."""

from __future__ import annotations

from ..._ops.compare import where
from ..._ops.creation_math import arange
from ._utils import _RoIModule, roi_arguments
from .roi_align import axis_samples, sample_grid

__all__ = ["PSRoIAlign", "ps_roi_align"]


def position_sensitive(input, pooled):
    """``input`` (``(N, C, H, W)``) as ``(N, C_out, PH, PW, H, W)``, with the kernels' error
    for channels that are not a multiple of ``PH * PW``, and the index grids of its three
    channel axes for a ``(K, C_out, PH, PW, ...)`` gather."""
    n, c, height, width = input.shape
    ph, pw = pooled
    if c % (ph * pw):
        raise RuntimeError("input channels must be a multiple of pooling height * pooling width")
    grids = (arange(c // (ph * pw))[None, :, None, None, None, None],
             arange(ph)[None, None, :, None, None, None],
             arange(pw)[None, None, None, :, None, None])
    return input.reshape(n, c // (ph * pw), ph, pw, height, width), grids


def ps_roi_align(input, boxes, output_size, spatial_scale=1.0, sampling_ratio=-1):
    """Position-sensitive RoI Align: ``(K, C / (PH * PW), PH, PW)``."""
    rois, pooled = roi_arguments("ps_roi_align", input, boxes, output_size)
    features, (co, ph, pw) = position_sensitive(input, pooled)
    if rois.shape[0] == 0:
        return input.new_zeros((0, features.shape[1], *pooled))
    _, _, _, _, height, width = features.shape
    y, x, valid, count = sample_grid(rois, spatial_scale, pooled, sampling_ratio, 0.5, None,
                                     "ps_roi_align")
    ylo, yhi, yh, yl, yin = (t[:, None, :, None, :, None] for t in axis_samples(y, height))
    xlo, xhi, xh, xl, xin = (t[:, None, None, :, None, :] for t in axis_samples(x, width))
    b = rois[:, 0].long()[:, None, None, None, None, None]

    def at(yi, xi):
        return features[b, co, ph, pw, yi, xi]                         # (K, Co, PH, PW, IY, IX)

    val = (yh * xh) * at(ylo, xlo) + (yh * xl) * at(ylo, xhi) + (yl * xh) * at(yhi, xlo) \
        + (yl * xl) * at(yhi, xhi)
    keep = yin & xin if valid is None else yin & xin & valid[:, None]
    total = where(keep, val, 0.0).sum((4, 5))
    return total / count


class PSRoIAlign(_RoIModule):
    """See :func:`ps_roi_align`."""

    _op = staticmethod(ps_roi_align)
    _settings = ("output_size", "spatial_scale", "sampling_ratio")

    def __init__(self, output_size, spatial_scale, sampling_ratio):
        super().__init__(output_size, spatial_scale)
        self.sampling_ratio = sampling_ratio
