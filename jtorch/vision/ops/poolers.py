"""``torchvision.ops.MultiScaleRoIAlign`` (Faster/Mask R-CNN's box and mask poolers): RoI Align
from the level of a feature pyramid that the FPN paper's heuristic assigns to each box.

The scales are inferred from the feature maps' and images' sizes on the first call, as in
torchvision. Each box's result is taken from its level with ``where`` over every level's RoI
Align of all boxes (torchvision indexes the boxes of each level instead, a data-dependent
shape): the same values and gradients, and it runs inside jtorch.compile.
"""

from __future__ import annotations

import math

import numpy as np

from jtorch import nn

from ..._core.dtypes import int64
from ..._ops.compare import where
from ..._ops.creation import tensor, zeros
from ..._ops.shape_copy import cat
from ._utils import convert_boxes_to_roi_format
from .boxes import box_area
from .roi_align import roi_align

__all__ = ["MultiScaleRoIAlign"]


class LevelMapper:
    """The FPN level (``0`` for ``k_min``) of each box of a list of ``Tensor[L, 4]``: eq. 1 of
    the Feature Pyramid Network paper, ``floor(canonical_level + log2(sqrt(area) /
    canonical_scale) + eps)`` clamped to ``[k_min, k_max]``."""

    def __init__(self, k_min, k_max, canonical_scale=224, canonical_level=4, eps=1e-6):
        self.k_min = k_min
        self.k_max = k_max
        self.s0 = canonical_scale
        self.lvl0 = canonical_level
        self.eps = eps

    def __call__(self, boxlists):
        s = cat([box_area(b) for b in boxlists]).sqrt()
        target = (self.lvl0 + (s / self.s0).log2() + tensor(self.eps, dtype=s.dtype)).floor()
        return target.clamp(min=self.k_min, max=self.k_max).to(int64) - self.k_min


def initLevelMapper(k_min, k_max, canonical_scale=224, canonical_level=4, eps=1e-6):  # noqa: N802
    return LevelMapper(k_min, k_max, canonical_scale, canonical_level, eps)


def _infer_scale(feature, original_size):
    """The power of two nearest a feature map's size over the image's (its height's)."""
    scales = [2.0 ** float(np.round(np.log2(np.float32(float(s1) / float(s2)))))
              for s1, s2 in zip(feature.shape[-2:], original_size)]
    return scales[0]


def _setup_scales(features, image_shapes, canonical_scale, canonical_level):
    if not image_shapes:
        raise ValueError("images list should not be empty")
    original = (max(s[0] for s in image_shapes), max(s[1] for s in image_shapes))
    scales = [_infer_scale(f, original) for f in features]
    lvl_min = -math.log2(np.float32(scales[0]))
    lvl_max = -math.log2(np.float32(scales[-1]))
    return scales, initLevelMapper(int(lvl_min), int(lvl_max), canonical_scale=canonical_scale,
                                   canonical_level=canonical_level)


def _filter_input(x, featmap_names):
    return [v for k, v in x.items() if k in featmap_names]


def _multiscale_roi_align(x_filtered, boxes, output_size, sampling_ratio, scales, mapper):
    if scales is None or mapper is None:
        raise ValueError("scales and mapper should not be None")
    rois = convert_boxes_to_roi_format(boxes)
    if len(x_filtered) == 1:
        return roi_align(x_filtered[0], rois, output_size=output_size, spatial_scale=scales[0],
                         sampling_ratio=sampling_ratio)
    levels = mapper(boxes)[:, None, None, None]
    first = x_filtered[0]
    result = zeros((rois.shape[0], first.shape[1], *output_size), dtype=first.dtype,
                   device=first.device)
    for level, (feature, scale) in enumerate(zip(x_filtered, scales)):
        pooled = roi_align(feature, rois, output_size=output_size, spatial_scale=scale,
                           sampling_ratio=sampling_ratio)
        result = where(levels == level, pooled.to(result.dtype), result)
    return result


class MultiScaleRoIAlign(nn.Module):
    """Multi-scale RoI Align over the feature maps ``featmap_names`` of an ``OrderedDict``:
    ``forward(x, boxes, image_shapes)`` with ``boxes`` a list of ``Tensor[L, 4]`` in image
    coordinates and ``image_shapes`` the images' ``(height, width)`` before the backbone."""

    __annotations__ = {"scales": list, "map_levels": LevelMapper}

    def __init__(self, featmap_names, output_size, sampling_ratio, *, canonical_scale=224,
                 canonical_level=4):
        super().__init__()
        if isinstance(output_size, int):
            output_size = (output_size, output_size)
        self.featmap_names = featmap_names
        self.sampling_ratio = sampling_ratio
        self.output_size = tuple(output_size)
        self.scales = None
        self.map_levels = None
        self.canonical_scale = canonical_scale
        self.canonical_level = canonical_level

    def forward(self, x, boxes, image_shapes):
        x_filtered = _filter_input(x, self.featmap_names)
        if self.scales is None or self.map_levels is None:
            self.scales, self.map_levels = _setup_scales(
                x_filtered, image_shapes, self.canonical_scale, self.canonical_level)
        return _multiscale_roi_align(x_filtered, boxes, self.output_size, self.sampling_ratio,
                                     self.scales, self.map_levels)

    def __repr__(self):
        return (f"{self.__class__.__name__}(featmap_names={self.featmap_names}, "
                f"output_size={self.output_size}, sampling_ratio={self.sampling_ratio})")

