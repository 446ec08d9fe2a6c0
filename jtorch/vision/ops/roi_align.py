"""``torchvision.ops.roi_align`` and ``RoIAlign`` (Mask R-CNN's RoI Align), as torchvision's
CPU kernel computes it.

Each of the ``K`` rois (``(batch index, x1, y1, x2, y2)``, scaled by ``spatial_scale``; with
``aligned`` shifted by half a pixel) is cut into ``output_size`` bins; each bin averages a grid
of ``sampling_ratio`` x ``sampling_ratio`` bilinear samples (``sampling_ratio <= 0``:
``ceil(roi size / output size)`` per roi and axis). The samples are gathered for all rois at
once, so autograd reaches the input (the rois get no gradient, as in torchvision). An
adaptive grid's size depends on the rois' values: it is read on the host, so inside
jtorch.compile only a fixed ``sampling_ratio > 0`` works.
"""

from __future__ import annotations

from ..._ops.compare import where
from ..._ops.creation_math import arange
from ._utils import _RoIModule, host_int, roi_arguments

__all__ = ["RoIAlign", "roi_align"]


def axis_samples(coord, size):
    """torchvision's ``bilinear_interpolate`` along one axis, for sample coordinates of any
    shape: the lower and upper neighbour indices, their weights and whether the sample lies in
    ``[-1, size]`` (outside, it contributes 0)."""
    inside = (coord >= -1.0) & (coord <= size)
    c = where(inside, coord, 0.0).clamp(min=0)
    low = c.long()
    last = low >= size - 1
    low = low.clamp(max=size - 1)
    high = where(last, low, low + 1)
    frac = where(last, low.to(c.dtype), c) - low
    return low, high, 1.0 - frac, frac, inside


def bilinear_sum(features, batch, y, x, valid):
    """The bilinear samples of ``features`` (``(N, H, W, C)``) at the rois' sample points,
    summed per bin: ``y`` is ``(K, PH, IY)`` and ``x`` ``(K, PW, IX)`` coordinates, ``valid`` a
    mask broadcasting to ``(K, PH, PW, IY, IX)`` or None; the result is ``(K, PH, PW, C)``."""
    _, height, width, _ = features.shape
    ylo, yhi, yh, yl, yin = (t[:, :, None, :, None] for t in axis_samples(y, height))
    xlo, xhi, xh, xl, xin = (t[:, None, :, None, :] for t in axis_samples(x, width))
    b = batch[:, None, None, None, None]
    val = ((yh * xh)[..., None] * features[b, ylo, xlo]
           + (yh * xl)[..., None] * features[b, ylo, xhi]
           + (yl * xh)[..., None] * features[b, yhi, xlo]
           + (yl * xl)[..., None] * features[b, yhi, xhi])
    keep = yin & xin if valid is None else yin & xin & valid
    return where(keep[..., None], val, 0.0).sum((3, 4))


def sample_grid(rois, spatial_scale, pooled, sampling_ratio, offset, min_size, what):
    """The rois' sample coordinates along both axes (``(K, P, I)`` each), the per-roi mask of
    the samples an adaptive grid uses, and each roi's sample count (shaped to divide a
    ``(K, PH, PW, C)`` sum)."""
    dt = rois.dtype
    start = rois[:, 1:3] * spatial_scale - offset           # (x1, y1)
    size = rois[:, 3:5] * spatial_scale - offset - start    # (width, height)
    if min_size is not None:
        size = size.clamp(min=min_size)
    coords, grids, masks = [], [], []
    for axis, p in ((1, pooled[0]), (0, pooled[1])):        # y then x
        bin_size = size[:, axis] / p
        if sampling_ratio > 0:
            grid, n = sampling_ratio, sampling_ratio
        else:
            grid = (size[:, axis] / p).ceil()
            n = host_int(grid, f"torchvision.ops.{what} with sampling_ratio <= 0 (the number of "
                               "samples per bin depends on the boxes; pass sampling_ratio > 0)")
        i = arange(n, dtype=dt)
        ratio = grid if isinstance(grid, int) else grid[:, None, None]
        coords.append(start[:, axis, None, None] + arange(p, dtype=dt)[None, :, None]
                      * bin_size[:, None, None] + (i + 0.5)[None, None, :]
                      * bin_size[:, None, None] / ratio)
        grids.append(grid)
        masks.append(None if isinstance(grid, int) else i[None, :] < grid[:, None])
    gy, gx = grids
    valid = None if masks[0] is None else \
        masks[0][:, None, None, :, None] & masks[1][:, None, None, None, :]
    count = gy * gx if isinstance(gy, int) else (gy * gx)[:, None, None, None]
    return coords[0], coords[1], valid, count


def roi_align(input, boxes, output_size, spatial_scale=1.0, sampling_ratio=-1, aligned=False):
    """RoI Align: ``(K, C, *output_size)`` bilinear averages of ``input`` (``(N, C, H, W)``)
    over the bins of each roi; ``boxes`` is ``Tensor[K, 5]`` (batch index first) or a list of
    ``Tensor[L, 4]`` per image, xyxy in input coordinates times ``1 / spatial_scale``."""
    rois, pooled = roi_arguments("roi_align", input, boxes, output_size)
    n, c, _, _ = input.shape
    if rois.shape[0] == 0:
        return input.new_zeros((0, c, *pooled))
    y, x, valid, count = sample_grid(rois, spatial_scale, pooled, sampling_ratio,
                                     0.5 if aligned else 0.0, None if aligned else 1.0,
                                     "roi_align")
    total = bilinear_sum(input.permute(0, 2, 3, 1), rois[:, 0].long(), y, x, valid)
    count = max(count, 1) if isinstance(count, int) else count.clamp(min=1)
    return (total / count).permute(0, 3, 1, 2)


class RoIAlign(_RoIModule):
    """See :func:`roi_align`."""

    _op = staticmethod(roi_align)
    _settings = ("output_size", "spatial_scale", "sampling_ratio", "aligned")

    def __init__(self, output_size, spatial_scale, sampling_ratio, aligned=False):
        super().__init__(output_size, spatial_scale)
        self.sampling_ratio = sampling_ratio
        self.aligned = aligned
