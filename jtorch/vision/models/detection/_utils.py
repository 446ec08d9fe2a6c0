"""The box arithmetic the detection models share (torchvision's
``models/detection/_utils.py``): ``BoxCoder`` (and ``encode_boxes``), the FCOS
``BoxLinearCoder``, the IoU ``Matcher`` (and SSD's ``SSDMatcher``), the
``BalancedPositiveNegativeSampler`` of the training heads, ``overwrite_eps`` and
``retrieve_out_channels``."""

from __future__ import annotations

import math
from collections import OrderedDict

from jtorch import nn
from jtorch.nn import functional as F

from ...._core.dtypes import int64, uint8
from ...._ops.compare import clamp, where
from ...._ops.creation import as_tensor, tensor, zeros, zeros_like
from ...._ops.creation_math import arange
from ...._ops.pointwise_math import exp, log
from ...._ops.random_ops import randperm
from ...._ops.shape_copy import cat, stack
from ...._ops.typeinfo import _assert
from ...._tensor import Tensor
from ....autograd.grad_mode import no_grad
from ...ops import (
    FrozenBatchNorm2d,
    complete_box_iou_loss,
    distance_box_iou_loss,
    generalized_box_iou_loss,
)
from .._utils import _ovewrite_value_param


class BalancedPositiveNegativeSampler:
    """Samples, per image, up to ``batch_size_per_image`` elements of which at most
    ``positive_fraction`` are positives (``matched_idxs >= 1``); the rest are negatives
    (``== 0``); ``-1`` is ignored. The draws use jtorch's generator (``randperm``).

    Returns two lists of uint8 masks per image: the chosen positives and negatives."""

    def __init__(self, batch_size_per_image: int, positive_fraction: float) -> None:
        self.batch_size_per_image = batch_size_per_image
        self.positive_fraction = positive_fraction

    def __call__(self, matched_idxs):
        pos_idx, neg_idx = [], []
        for matched in matched_idxs:
            positive = where(matched >= 1)[0]
            negative = where(matched == 0)[0]
            num_pos = min(positive.numel(), int(self.batch_size_per_image * self.positive_fraction))
            num_neg = min(negative.numel(), self.batch_size_per_image - num_pos)
            pos = positive[randperm(positive.numel(), device=positive.device)[:num_pos]]
            neg = negative[randperm(negative.numel(), device=negative.device)[:num_neg]]
            pos_mask = zeros_like(matched, dtype=uint8)
            neg_mask = zeros_like(matched, dtype=uint8)
            pos_mask[pos] = 1
            neg_mask[neg] = 1
            pos_idx.append(pos_mask)
            neg_idx.append(neg_mask)
        return pos_idx, neg_idx


def encode_boxes(reference_boxes, proposals, weights):
    """The ``(dx, dy, dw, dh)`` regression targets of ``reference_boxes`` relative to
    ``proposals`` (both ``(N, 4)`` xyxy), scaled by ``weights`` (a 4-element tensor)."""
    wx, wy, ww, wh = weights[0], weights[1], weights[2], weights[3]
    px1, py1, px2, py2 = (proposals[:, i].unsqueeze(1) for i in range(4))
    rx1, ry1, rx2, ry2 = (reference_boxes[:, i].unsqueeze(1) for i in range(4))
    ex_widths = px2 - px1
    ex_heights = py2 - py1
    ex_ctr_x = px1 + 0.5 * ex_widths
    ex_ctr_y = py1 + 0.5 * ex_heights
    gt_widths = rx2 - rx1
    gt_heights = ry2 - ry1
    gt_ctr_x = rx1 + 0.5 * gt_widths
    gt_ctr_y = ry1 + 0.5 * gt_heights
    dx = wx * (gt_ctr_x - ex_ctr_x) / ex_widths
    dy = wy * (gt_ctr_y - ex_ctr_y) / ex_heights
    dw = ww * log(gt_widths / ex_widths)
    dh = wh * log(gt_heights / ex_heights)
    return cat((dx, dy, dw, dh), dim=1)


class BoxCoder:
    """Encodes boxes as ``(dx, dy, dw, dh)`` offsets from reference boxes and decodes them
    back (Faster R-CNN's parametrization), with ``weights`` dividing the offsets and the
    log-size offsets clamped at ``bbox_xform_clip`` when decoding."""

    def __init__(self, weights, bbox_xform_clip: float = math.log(1000.0 / 16)) -> None:
        self.weights = weights
        self.bbox_xform_clip = bbox_xform_clip

    def encode(self, reference_boxes, proposals):
        boxes_per_image = [len(b) for b in reference_boxes]
        targets = self.encode_single(cat(reference_boxes, dim=0),
                                     cat(proposals, dim=0))
        return targets.split(boxes_per_image, 0)

    def encode_single(self, reference_boxes, proposals):
        weights = as_tensor(self.weights, dtype=reference_boxes.dtype,
                                   device=reference_boxes.device)
        return encode_boxes(reference_boxes, proposals, weights)

    def decode(self, rel_codes, boxes):
        _assert(isinstance(boxes, (list, tuple)),
                       "This function expects boxes of type list or tuple.")
        _assert(isinstance(rel_codes, Tensor),
                       "This function expects rel_codes of type torch.Tensor.")
        box_sum = sum(b.size(0) for b in boxes)
        if box_sum > 0:
            rel_codes = rel_codes.reshape(box_sum, -1)
        pred_boxes = self.decode_single(rel_codes, cat(boxes, dim=0))
        if box_sum > 0:
            pred_boxes = pred_boxes.reshape(box_sum, -1, 4)
        return pred_boxes

    def decode_single(self, rel_codes, boxes):
        boxes = boxes.to(rel_codes.dtype)
        widths = boxes[:, 2] - boxes[:, 0]
        heights = boxes[:, 3] - boxes[:, 1]
        ctr_x = boxes[:, 0] + 0.5 * widths
        ctr_y = boxes[:, 1] + 0.5 * heights
        wx, wy, ww, wh = self.weights
        dx = rel_codes[:, 0::4] / wx
        dy = rel_codes[:, 1::4] / wy
        dw = clamp(rel_codes[:, 2::4] / ww, max=self.bbox_xform_clip)
        dh = clamp(rel_codes[:, 3::4] / wh, max=self.bbox_xform_clip)
        pred_ctr_x = dx * widths[:, None] + ctr_x[:, None]
        pred_ctr_y = dy * heights[:, None] + ctr_y[:, None]
        pred_w = exp(dw) * widths[:, None]
        pred_h = exp(dh) * heights[:, None]
        half_h = tensor(0.5, dtype=pred_ctr_y.dtype, device=pred_h.device) * pred_h
        half_w = tensor(0.5, dtype=pred_ctr_x.dtype, device=pred_w.device) * pred_w
        return stack((pred_ctr_x - half_w, pred_ctr_y - half_h, pred_ctr_x + half_w,
                             pred_ctr_y + half_h), dim=2).flatten(1)


class BoxLinearCoder:
    """FCOS's box coding: the distances from the reference box's center to the four edges of
    the target box, divided by the reference box's size when ``normalize_by_size``."""

    def __init__(self, normalize_by_size: bool = True) -> None:
        self.normalize_by_size = normalize_by_size

    @staticmethod
    def _sizes(boxes):
        w = boxes[..., 2] - boxes[..., 0]
        h = boxes[..., 3] - boxes[..., 1]
        return stack((w, h, w, h), dim=-1)

    def encode(self, reference_boxes, proposals):
        ctr_x = 0.5 * (reference_boxes[..., 0] + reference_boxes[..., 2])
        ctr_y = 0.5 * (reference_boxes[..., 1] + reference_boxes[..., 3])
        targets = stack((ctr_x - proposals[..., 0], ctr_y - proposals[..., 1],
                                proposals[..., 2] - ctr_x, proposals[..., 3] - ctr_y), dim=-1)
        if self.normalize_by_size:
            targets = targets / self._sizes(reference_boxes)
        return targets

    def decode(self, rel_codes, boxes):
        boxes = boxes.to(dtype=rel_codes.dtype)
        ctr_x = 0.5 * (boxes[..., 0] + boxes[..., 2])
        ctr_y = 0.5 * (boxes[..., 1] + boxes[..., 3])
        if self.normalize_by_size:
            rel_codes = rel_codes * self._sizes(boxes)
        return stack((ctr_x - rel_codes[..., 0], ctr_y - rel_codes[..., 1],
                             ctr_x + rel_codes[..., 2], ctr_y + rel_codes[..., 3]), dim=-1)


class Matcher:
    """Assigns each prediction (column of an ``M x N`` quality matrix, e.g. IoUs with the
    ``M`` ground-truth boxes) the index of its best ground truth when that quality is at least
    ``high_threshold``, ``BETWEEN_THRESHOLDS`` (-2) when it is in ``[low, high)`` and
    ``BELOW_LOW_THRESHOLD`` (-1) below ``low_threshold``. With
    ``allow_low_quality_matches``, the predictions that are some ground truth's best match
    (ties included) keep their best ground truth whatever its quality."""

    BELOW_LOW_THRESHOLD = -1
    BETWEEN_THRESHOLDS = -2

    def __init__(self, high_threshold: float, low_threshold: float,
                 allow_low_quality_matches: bool = False) -> None:
        _assert(low_threshold <= high_threshold,
                       "low_threshold should be <= high_threshold")
        self.high_threshold = high_threshold
        self.low_threshold = low_threshold
        self.allow_low_quality_matches = allow_low_quality_matches

    def __call__(self, match_quality_matrix):
        if match_quality_matrix.numel() == 0:
            if match_quality_matrix.shape[0] == 0:
                raise ValueError("No ground-truth boxes available for one of the images during "
                                 "training")
            raise ValueError("No proposal boxes available for one of the images during training")
        matched_vals, matches = match_quality_matrix.max(dim=0)
        all_matches = matches.clone() if self.allow_low_quality_matches else None
        below = matched_vals < self.low_threshold
        between = (matched_vals >= self.low_threshold) & (matched_vals < self.high_threshold)
        matches[below] = self.BELOW_LOW_THRESHOLD
        matches[between] = self.BETWEEN_THRESHOLDS
        if all_matches is not None:
            self.set_low_quality_matches_(matches, all_matches, match_quality_matrix)
        return matches

    def set_low_quality_matches_(self, matches, all_matches, match_quality_matrix):
        """Gives back their best ground truth to the predictions that are the best match of
        some ground truth (ties included), in place."""
        highest_quality_foreach_gt, _ = match_quality_matrix.max(dim=1)
        pairs = where(match_quality_matrix == highest_quality_foreach_gt[:, None])
        matches[pairs[1]] = all_matches[pairs[1]]


class SSDMatcher(Matcher):
    """``Matcher`` with one threshold, where each ground truth also takes its best
    prediction."""

    def __init__(self, threshold: float) -> None:
        super().__init__(threshold, threshold, allow_low_quality_matches=False)

    def __call__(self, match_quality_matrix):
        matches = super().__call__(match_quality_matrix)
        _, best_pred = match_quality_matrix.max(dim=1)
        matches[best_pred] = arange(best_pred.size(0), dtype=int64,
                                           device=best_pred.device)
        return matches


def overwrite_eps(model: nn.Module, eps: float) -> None:
    """Sets ``eps`` of every ``FrozenBatchNorm2d`` in ``model`` (the legacy COCO weights were
    trained with ``eps=0``)."""
    for module in model.modules():
        if isinstance(module, FrozenBatchNorm2d):
            module.eps = eps


def retrieve_out_channels(model: nn.Module, size) -> list[int]:
    """The channel counts of ``model``'s outputs (a tensor or an ordered dict of them) on a
    zero image of ``size`` (width, height), run in eval mode without gradients."""
    in_training = model.training
    model.eval()
    with no_grad():
        device = next(model.parameters()).device
        features = model(zeros((1, 3, size[1], size[0]), device=device))
        if isinstance(features, Tensor):
            features = OrderedDict([("0", features)])
        out_channels = [x.size(1) for x in features.values()]
    if in_training:
        model.train()
    return out_channels


def _topk_min(input, orig_kval: int, axis: int) -> int:
    return min(orig_kval, input.size(axis))


def _box_loss(type, box_coder, anchors_per_image, matched_gt_boxes_per_image,
              bbox_regression_per_image, cnf=None):
    _assert(type in ["l1", "smooth_l1", "ciou", "diou", "giou"],
                   f"Unsupported loss: {type}")
    cnf = cnf or {}
    if type in ("l1", "smooth_l1"):
        target = box_coder.encode_single(matched_gt_boxes_per_image, anchors_per_image)
        if type == "l1":
            return F.l1_loss(bbox_regression_per_image, target, reduction="sum")
        return F.smooth_l1_loss(bbox_regression_per_image, target, reduction="sum",
                                beta=cnf.get("beta", 1.0))
    boxes = box_coder.decode_single(bbox_regression_per_image, anchors_per_image)
    loss = {"ciou": complete_box_iou_loss, "diou": distance_box_iou_loss,
            "giou": generalized_box_iou_loss}[type]
    return loss(boxes, matched_gt_boxes_per_image, reduction="sum", eps=cnf.get("eps", 1e-7))


# ------------------------------------------------------------------ the builders' plumbing
def _num_classes(weights, num_classes, default=91):
    """A builder's ``num_classes``: the weights' categories when weights are given (an
    explicit different value is torchvision's error), else ``default``."""
    if weights is not None:
        return _ovewrite_value_param("num_classes", num_classes, len(weights.meta["categories"]))
    return default if num_classes is None else num_classes


def _load(model, weights, progress, legacy_member=None):
    """``model`` with ``weights`` loaded (when given); the checkpoints of ``legacy_member``
    were trained with FrozenBatchNorm2d's eps 0."""
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
        if legacy_member is not None and weights == legacy_member:
            overwrite_eps(model, 0.0)
    return model
