"""``torchvision.ops``' box regression losses: generalized, distance and complete IoU loss of
matched pairs of boxes (xyxy, ``(..., 4)`` each; the loss is ``(...)`` before reduction).

As torchvision's: boxes of an integer or half dtype are computed in float32, the IoU is
``intersection / (union + eps)``, and the mean of an empty loss is 0 (with the graph).
"""

from __future__ import annotations

import math

from jtorch.autograd.grad_mode import no_grad

from ..._core.dtypes import float32, float64
from ..._ops.compare import maximum, minimum, where
from ..._ops.creation import zeros_like
from .boxes import reduce_loss


def _float(t):
    return t if t.dtype in (float32, float64) else t.float()


def _iou_and_enclosing(boxes1, boxes2, eps):
    """Each pair's IoU (over ``union + eps``), union, and enclosing box's corners."""
    x1, y1, x2, y2 = boxes1.unbind(dim=-1)
    gx1, gy1, gx2, gy2 = boxes2.unbind(dim=-1)
    ix1, iy1, ix2, iy2 = maximum(x1, gx1), maximum(y1, gy1), minimum(x2, gx2), minimum(y2, gy2)
    overlap = (iy2 > iy1) & (ix2 > ix1)
    inter = where(overlap, (ix2 - ix1) * (iy2 - iy1), zeros_like(x1))
    union = (x2 - x1) * (y2 - y1) + (gx2 - gx1) * (gy2 - gy1) - inter
    enclosing = (minimum(x1, gx1), minimum(y1, gy1), maximum(x2, gx2), maximum(y2, gy2))
    return inter / (union + eps), union, enclosing


def generalized_box_iou_loss(boxes1, boxes2, reduction="none", eps=1e-7):
    """``1 - GIoU`` of each pair of boxes (xyxy)."""
    boxes1, boxes2 = _float(boxes1), _float(boxes2)
    iou, union, (cx1, cy1, cx2, cy2) = _iou_and_enclosing(boxes1, boxes2, eps)
    area = (cx2 - cx1) * (cy2 - cy1)
    return reduce_loss(1 - (iou - (area - union) / (area + eps)), reduction, 0.0)


def _diou_loss_and_iou(boxes1, boxes2, eps):
    iou, _, (cx1, cy1, cx2, cy2) = _iou_and_enclosing(boxes1, boxes2, eps)
    diagonal2 = (cx2 - cx1) ** 2 + (cy2 - cy1) ** 2 + eps
    x1, y1, x2, y2 = boxes1.unbind(dim=-1)
    gx1, gy1, gx2, gy2 = boxes2.unbind(dim=-1)
    centers2 = ((x2 + x1) / 2 - (gx1 + gx2) / 2) ** 2 + ((y2 + y1) / 2 - (gy1 + gy2) / 2) ** 2
    return 1 - iou + centers2 / diagonal2, iou


def distance_box_iou_loss(boxes1, boxes2, reduction="none", eps=1e-7):
    """``1 - DIoU`` of each pair of boxes (xyxy)."""
    loss, _ = _diou_loss_and_iou(_float(boxes1), _float(boxes2), eps)
    return reduce_loss(loss, reduction, 0.0)


def complete_box_iou_loss(boxes1, boxes2, reduction="none", eps=1e-7):
    """``1 - CIoU`` of each pair of boxes (xyxy); the aspect-ratio term's weight is not
    differentiated (and its distance part uses eps 1e-7 whatever ``eps`` is, as
    torchvision's)."""
    boxes1, boxes2 = _float(boxes1), _float(boxes2)
    diou_loss, iou = _diou_loss_and_iou(boxes1, boxes2, 1e-7)
    x1, y1, x2, y2 = boxes1.unbind(dim=-1)
    gx1, gy1, gx2, gy2 = boxes2.unbind(dim=-1)
    v = (4 / math.pi ** 2) * (((gx2 - gx1) / (gy2 - gy1)).atan()
                              - ((x2 - x1) / (y2 - y1)).atan()) ** 2
    with no_grad():
        alpha = v / (1 - iou + v + eps)
    return reduce_loss(diou_loss + alpha * v, reduction, 0.0)
