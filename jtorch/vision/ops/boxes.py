"""``torchvision.ops``' box functions and focal loss, written with jtorch's ops (so they
differentiate, compile and run on any device as the rest of jtorch).

Boxes are ``(..., 4)`` tensors; ``xyxy`` is (x1, y1, x2, y2) corners, ``xywh`` a corner, width
and height, ``cxcywh`` a centre, width and height. As torchvision's, areas and pairwise results
are computed in an upcast dtype (float16/bfloat16 in float32, small integers in int32), and
pairwise functions take ``(..., N, 4)`` and ``(..., M, 4)`` and return ``(..., N, M)``.

Differences from torchvision: the rotated formats (``xywhr``, ``cxcywhr``, ``xyxyxyxy``) of
``box_convert`` and ``box_iou`` raise NotImplementedError.
"""

from __future__ import annotations

import math

import jtorch.nn.functional as F
from jtorch.autograd.grad_mode import no_grad

from ..._core.dtypes import float32, float64, int32, int64
from ..._core.errors import not_implemented
from ..._ops.compare import maximum, minimum, where
from ..._ops.creation import zeros, zeros_like
from ..._ops.shape_copy import stack

# torchvision defines nms and batched_nms in torchvision/ops/boxes.py, and programs import them
# from there (segment-anything: ``from torchvision.ops.boxes import batched_nms, box_area``)
from .nms import batched_nms as batched_nms, nms as nms

_AXIS_ALIGNED = ("xyxy", "xywh", "cxcywh")
_ROTATED = ("xywhr", "cxcywhr", "xyxyxyxy")


def _upcast(t):
    """``t`` in a dtype wide enough for products of coordinates (as torchvision's)."""
    if t.is_floating_point():
        return t if t.dtype in (float32, float64) else t.float()
    return t if t.dtype in (int32, int64) else t.int()


def _corners(boxes, fmt):
    """(top-left, bottom-right), each ``(..., 2)``, of ``fmt`` boxes."""
    a, b = boxes[..., :2], boxes[..., 2:]
    if fmt == "xyxy":
        return a, b
    if fmt == "xywh":
        return a, a + b
    return a - b / 2, a + b / 2


def box_convert(boxes, in_fmt, out_fmt):
    """``boxes`` from ``in_fmt`` to ``out_fmt`` (``"xyxy"``, ``"xywh"`` or ``"cxcywh"``)."""
    known = _AXIS_ALIGNED + _ROTATED
    if in_fmt not in known or out_fmt not in known:
        raise ValueError(f"Unsupported Bounding Box Conversions for given in_fmt {in_fmt} and "
                         f"out_fmt {out_fmt}")
    if in_fmt == out_fmt:
        return boxes.clone()
    if in_fmt in _ROTATED or out_fmt in _ROTATED:
        if (in_fmt in _ROTATED) != (out_fmt in _ROTATED):
            raise NotImplementedError(f"Unsupported Bounding Box Conversions for given in_fmt "
                                      f"{in_fmt} and out_fmt {out_fmt}")
        raise not_implemented(f"torchvision.ops.box_convert between rotated formats "
                              f"({in_fmt} to {out_fmt})")
    x, y, u, v = boxes.unbind(-1)
    if in_fmt == "xywh":       # to corners
        x1, y1, x2, y2 = x, y, x + u, y + v
    elif in_fmt == "cxcywh":
        x1, y1, x2, y2 = x - 0.5 * u, y - 0.5 * v, x + 0.5 * u, y + 0.5 * v
    else:
        x1, y1, x2, y2 = x, y, u, v
    if out_fmt == "xyxy":
        parts = (x1, y1, x2, y2)
    elif out_fmt == "xywh":
        parts = (x1, y1, x2 - x1, y2 - y1)
    else:
        parts = ((x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1)
    return stack(parts, dim=-1)


def box_area(boxes, fmt="xyxy"):
    """The area of each box (``(...,)`` of ``(..., 4)``)."""
    if fmt not in _AXIS_ALIGNED:
        raise ValueError(f"Unsupported Bounding Box area for given format {fmt}")
    boxes = _upcast(boxes)
    if fmt == "xyxy":
        return (boxes[..., 2] - boxes[..., 0]) * (boxes[..., 3] - boxes[..., 1])
    return boxes[..., 2] * boxes[..., 3]


def _inter_union(boxes1, boxes2, fmt="xyxy"):
    """Pairwise intersection and union areas, ``(..., N, M)`` each."""
    area1, area2 = box_area(boxes1, fmt=fmt), box_area(boxes2, fmt=fmt)
    lt1, rb1 = _corners(boxes1[..., None, :], fmt)
    lt2, rb2 = _corners(boxes2[..., None, :, :], fmt)
    wh = _upcast(minimum(rb1, rb2) - maximum(lt1, lt2)).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    return inter, area1[..., None] + area2[..., None, :] - inter


def box_iou(boxes1, boxes2, fmt="xyxy"):
    """Pairwise intersection over union of two sets of boxes: ``(..., N, M)``."""
    if fmt in _ROTATED:
        raise not_implemented(f"torchvision.ops.box_iou of rotated boxes (fmt={fmt!r})")
    if fmt not in _AXIS_ALIGNED:
        raise ValueError(f"Unsupported format '{fmt}'. Supported axis-aligned formats: "
                         f"{_AXIS_ALIGNED}. Supported rotated formats: "
                         f"{('cxcywhr', 'xywhr', 'xyxyxyxy')}.")
    inter, union = _inter_union(boxes1, boxes2, fmt)
    return inter / union


def _enclosing_wh(boxes1, boxes2):
    """Width and height of the smallest box enclosing each pair (xyxy): ``(..., N, M, 2)``."""
    lt = minimum(boxes1[..., None, :2], boxes2[..., None, :, :2])
    rb = maximum(boxes1[..., None, 2:], boxes2[..., None, :, 2:])
    return _upcast(rb - lt).clamp(min=0)


def generalized_box_iou(boxes1, boxes2):
    """Pairwise generalized IoU (xyxy boxes): IoU minus the part of the enclosing box's area
    that the union leaves empty."""
    inter, union = _inter_union(boxes1, boxes2)
    wh = _enclosing_wh(boxes1, boxes2)
    enclosing = wh[..., 0] * wh[..., 1]
    return inter / union - (enclosing - union) / enclosing


def _diou_and_iou(boxes1, boxes2, eps):
    iou = box_iou(boxes1, boxes2)
    wh = _enclosing_wh(boxes1, boxes2)
    diagonal2 = wh[..., 0] ** 2 + wh[..., 1] ** 2 + eps
    cx1, cy1 = (boxes1[..., 0] + boxes1[..., 2]) / 2, (boxes1[..., 1] + boxes1[..., 3]) / 2
    cx2, cy2 = (boxes2[..., 0] + boxes2[..., 2]) / 2, (boxes2[..., 1] + boxes2[..., 3]) / 2
    centers2 = _upcast(cx1[..., None] - cx2[..., None, :]) ** 2 + \
        _upcast(cy1[..., None] - cy2[..., None, :]) ** 2
    return iou - centers2 / diagonal2, iou


def distance_box_iou(boxes1, boxes2, eps=1e-7):
    """Pairwise distance IoU (xyxy boxes): IoU minus the squared distance of the centres over
    the squared diagonal of the enclosing box."""
    return _diou_and_iou(_upcast(boxes1), _upcast(boxes2), eps)[0]


def complete_box_iou(boxes1, boxes2, eps=1e-7):
    """Pairwise complete IoU (xyxy boxes): distance IoU minus an aspect-ratio term whose weight
    is not differentiated (as torchvision's)."""
    boxes1, boxes2 = _upcast(boxes1), _upcast(boxes2)
    diou, iou = _diou_and_iou(boxes1, boxes2, eps)
    w1 = boxes1[..., None, 2] - boxes1[..., None, 0]
    h1 = boxes1[..., None, 3] - boxes1[..., None, 1]
    w2 = boxes2[..., None, :, 2] - boxes2[..., None, :, 0]
    h2 = boxes2[..., None, :, 3] - boxes2[..., None, :, 1]
    v = (4 / math.pi ** 2) * ((w1 / h1).atan() - (w2 / h2).atan()) ** 2
    with no_grad():
        alpha = v / (1 - iou + v + eps)
    return diou - alpha * v


def clip_boxes_to_image(boxes, size):
    """``boxes`` (xyxy) clamped into an image of ``size`` (height, width)."""
    height, width = size
    xs = boxes[..., 0::2].clamp(min=0, max=width)
    ys = boxes[..., 1::2].clamp(min=0, max=height)
    return stack((xs, ys), dim=boxes.dim()).reshape(boxes.shape)


def remove_small_boxes(boxes, min_size):
    """Indices of the boxes (xyxy) whose width and height are both at least ``min_size``."""
    w, h = boxes[..., 2] - boxes[..., 0], boxes[..., 3] - boxes[..., 1]
    return where((w >= min_size) & (h >= min_size))[0]


def masks_to_boxes(masks):
    """The xyxy box (float32) around the nonzero pixels of each of ``masks`` (N, H, W); an
    empty mask gives zeros."""
    if masks.numel() == 0:
        return zeros((0, 4), device=masks.device, dtype=float32)
    _, h, w = masks.shape
    present = masks.bool()
    rows, cols = present.any(dim=2), present.any(dim=1)
    # argmax of a 0/1 row finds its first 1; of the flipped row, its last
    first_y, first_x = rows.float().argmax(dim=1), cols.float().argmax(dim=1)
    last_y = (h - 1) - rows.float().flip(dims=[1]).argmax(dim=1)
    last_x = (w - 1) - cols.float().flip(dims=[1]).argmax(dim=1)
    boxes = stack([first_x, first_y, last_x, last_y], dim=1).float()
    return where(rows.any(dim=1)[:, None], boxes, zeros_like(boxes))


def sigmoid_focal_loss(inputs, targets, alpha=0.25, gamma=2, reduction="none"):
    """The focal loss of RetinaNet (Lin et al., 2017) on logits ``inputs``: binary cross
    entropy scaled by ``(1 - p_t) ** gamma`` and weighted by ``alpha`` (none when -1)."""
    if not (0 <= alpha <= 1) and alpha != -1:
        raise ValueError(f"Invalid alpha value: {alpha}. alpha must be in the range [0,1] or -1 "
                         "for ignore.")
    p = inputs.sigmoid()
    ce = F.binary_cross_entropy_with_logits(inputs, targets, reduction="none")
    p_t = p * targets + (1 - p) * (1 - targets)
    loss = ce * ((1 - p_t) ** gamma)
    if alpha >= 0:
        loss = (alpha * targets + (1 - alpha) * (1 - targets)) * loss
    return reduce_loss(loss, reduction)


def reduce_loss(loss, reduction, empty_mean=None):
    """``loss`` reduced as torchvision's losses do (``"none"``, ``"mean"``, ``"sum"``); with
    ``empty_mean``, the mean of an empty loss is that (torchvision's box losses: 0, with the
    loss's graph)."""
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean() if empty_mean is None or loss.numel() > 0 else \
            empty_mean * loss.sum()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(f"Invalid Value for arg 'reduction': '{reduction} \n Supported reduction "
                     "modes: 'none', 'mean', 'sum'")
