"""The Region Proposal Network (torchvision's ``models/detection/rpn.py``): ``RPNHead``
scores and regresses the anchors of each feature map; ``RegionProposalNetwork`` decodes them
into proposals (top-n per level, clipped, small and low-score boxes dropped, NMS per level) and,
in training, returns the objectness and box-regression losses."""

from __future__ import annotations

from jtorch import nn
from jtorch.nn import functional as F

from ...._core.dtypes import float32, int64
from ...._ops.compare import where
from ...._ops.creation import full, zeros
from ...._ops.creation_math import arange
from ...._ops.pointwise_math import sigmoid
from ...._ops.shape_copy import cat
from ...ops import Conv2dNormActivation, boxes as box_ops
from . import _utils as det_utils
from .anchor_utils import AnchorGenerator as AnchorGenerator


class RPNHead(nn.Module):
    """``conv_depth`` 3x3 convolutions with ReLU, then a 1x1 convolution for the objectness
    of each of the ``num_anchors`` anchors (``cls_logits``) and one for their 4 box deltas
    (``bbox_pred``); weights N(0, 0.01), zero biases.

    Args:
        in_channels (int): the channels of the feature maps.
        num_anchors (int): the anchors per position.
        conv_depth (int): the number of 3x3 convolutions. Default 1
    """

    _version = 2

    def __init__(self, in_channels: int, num_anchors: int, conv_depth=1) -> None:
        super().__init__()
        self.conv = nn.Sequential(*[Conv2dNormActivation(in_channels, in_channels,
                                                         kernel_size=3, norm_layer=None)
                                    for _ in range(conv_depth)])
        self.cls_logits = nn.Conv2d(in_channels, num_anchors, kernel_size=1, stride=1)
        self.bbox_pred = nn.Conv2d(in_channels, num_anchors * 4, kernel_size=1, stride=1)
        for layer in self.modules():
            if isinstance(layer, nn.Conv2d):
                nn.init.normal_(layer.weight, std=0.01)
                if layer.bias is not None:
                    nn.init.constant_(layer.bias, 0)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        version = local_metadata.get("version", None)
        if version is None or version < 2:  # before 0.12: one convolution named "conv"
            for kind in ("weight", "bias"):
                if f"{prefix}conv.{kind}" in state_dict:
                    state_dict[f"{prefix}conv.0.0.{kind}"] = state_dict.pop(f"{prefix}conv.{kind}")
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)

    def forward(self, x):
        logits, bbox_reg = [], []
        for feature in x:
            t = self.conv(feature)
            logits.append(self.cls_logits(t))
            bbox_reg.append(self.bbox_pred(t))
        return logits, bbox_reg


def permute_and_flatten(layer, N: int, A: int, C: int, H: int, W: int):
    """``(N, A * C, H, W)`` to ``(N, H * W * A, C)``."""
    return layer.view(N, -1, C, H, W).permute(0, 3, 4, 1, 2).reshape(N, -1, C)


def concat_box_prediction_layers(box_cls, box_regression):
    """The per-level class scores and box deltas flattened and concatenated over the levels:
    ``(sum N * H * W * A, C)`` and ``(sum N * H * W * A, 4)``."""
    cls_flat, reg_flat = [], []
    for cls_level, reg_level in zip(box_cls, box_regression):
        N, AxC, H, W = cls_level.shape
        A = reg_level.shape[1] // 4
        C = AxC // A
        cls_flat.append(permute_and_flatten(cls_level, N, A, C, H, W))
        reg_flat.append(permute_and_flatten(reg_level, N, A, 4, H, W))
    return (cat(cls_flat, dim=1).flatten(0, -2),
            cat(reg_flat, dim=1).reshape(-1, 4))


class RegionProposalNetwork(nn.Module):
    """Proposes boxes from the anchors of ``anchor_generator`` scored and regressed by
    ``head``.

    Args:
        anchor_generator (AnchorGenerator), head (nn.Module)
        fg_iou_thresh, bg_iou_thresh (float): anchors with an IoU of at least ``fg`` with a
            ground-truth box are positives, below ``bg`` negatives (training).
        batch_size_per_image (int), positive_fraction (float): the anchors sampled for the loss.
        pre_nms_top_n, post_nms_top_n (dict[str, int]): ``"training"``/``"testing"``: the
            proposals kept per level before NMS, and per image after it.
        nms_thresh (float): the NMS IoU threshold.
        score_thresh (float): the least objectness probability kept. Default 0.0
    """

    def __init__(self, anchor_generator, head, fg_iou_thresh, bg_iou_thresh,
                 batch_size_per_image, positive_fraction, pre_nms_top_n, post_nms_top_n,
                 nms_thresh, score_thresh=0.0) -> None:
        super().__init__()
        self.anchor_generator = anchor_generator
        self.head = head
        self.box_coder = det_utils.BoxCoder(weights=(1.0, 1.0, 1.0, 1.0))
        self.box_similarity = box_ops.box_iou
        self.proposal_matcher = det_utils.Matcher(fg_iou_thresh, bg_iou_thresh,
                                                  allow_low_quality_matches=True)
        self.fg_bg_sampler = det_utils.BalancedPositiveNegativeSampler(batch_size_per_image,
                                                                       positive_fraction)
        self._pre_nms_top_n = pre_nms_top_n
        self._post_nms_top_n = post_nms_top_n
        self.nms_thresh = nms_thresh
        self.score_thresh = score_thresh
        self.min_size = 1e-3

    def pre_nms_top_n(self) -> int:
        return self._pre_nms_top_n["training" if self.training else "testing"]

    def post_nms_top_n(self) -> int:
        return self._post_nms_top_n["training" if self.training else "testing"]

    def assign_targets_to_anchors(self, anchors, targets):
        """Per image: the anchors' labels (1 positive, 0 negative, -1 ignored) and matched
        ground-truth boxes."""
        labels, matched_gt_boxes = [], []
        for anchors_per_image, targets_per_image in zip(anchors, targets):
            gt_boxes = targets_per_image["boxes"]
            if gt_boxes.numel() == 0:
                device = anchors_per_image.device
                matched = zeros(anchors_per_image.shape, dtype=float32,
                                       device=device)
                labels_per_image = zeros((anchors_per_image.shape[0],),
                                                dtype=float32, device=device)
            else:
                matched_idxs = self.proposal_matcher(self.box_similarity(gt_boxes,
                                                                         anchors_per_image))
                matched = gt_boxes[matched_idxs.clamp(min=0)]
                labels_per_image = (matched_idxs >= 0).to(dtype=float32)
                labels_per_image[matched_idxs == self.proposal_matcher.BELOW_LOW_THRESHOLD] = 0.0
                labels_per_image[matched_idxs == self.proposal_matcher.BETWEEN_THRESHOLDS] = -1.0
            labels.append(labels_per_image)
            matched_gt_boxes.append(matched)
        return labels, matched_gt_boxes

    def _get_top_n_idx(self, objectness, num_anchors_per_level):
        r, offset = [], 0
        for ob in objectness.split(num_anchors_per_level, 1):
            num_anchors = ob.shape[1]
            _, top_n_idx = ob.topk(det_utils._topk_min(ob, self.pre_nms_top_n(), 1), dim=1)
            r.append(top_n_idx + offset)
            offset += num_anchors
        return cat(r, dim=1)

    def filter_proposals(self, proposals, objectness, image_shapes, num_anchors_per_level):
        """Per image: the proposals kept (top-n per level, clipped, small and low-score ones
        dropped, NMS per level, ``post_nms_top_n``) and their objectness probabilities."""
        num_images = proposals.shape[0]
        device = proposals.device
        objectness = objectness.detach().reshape(num_images, -1)
        levels = cat([full((n,), idx, dtype=int64, device=device)
                             for idx, n in enumerate(num_anchors_per_level)], 0)
        levels = levels.reshape(1, -1).expand_as(objectness)
        top_n_idx = self._get_top_n_idx(objectness, num_anchors_per_level)
        batch_idx = arange(num_images, device=device)[:, None]
        objectness = objectness[batch_idx, top_n_idx]
        levels = levels[batch_idx, top_n_idx]
        proposals = proposals[batch_idx, top_n_idx]
        objectness_prob = sigmoid(objectness)
        final_boxes, final_scores = [], []
        for boxes, scores, lvl, img_shape in zip(proposals, objectness_prob, levels,
                                                 image_shapes):
            boxes = box_ops.clip_boxes_to_image(boxes, img_shape)
            keep = box_ops.remove_small_boxes(boxes, self.min_size)
            boxes, scores, lvl = boxes[keep], scores[keep], lvl[keep]
            keep = where(scores >= self.score_thresh)[0]
            boxes, scores, lvl = boxes[keep], scores[keep], lvl[keep]
            keep = box_ops.batched_nms(boxes, scores, lvl, self.nms_thresh)
            keep = keep[: self.post_nms_top_n()]
            final_boxes.append(boxes[keep])
            final_scores.append(scores[keep])
        return final_boxes, final_scores

    def compute_loss(self, objectness, pred_bbox_deltas, labels, regression_targets):
        """The objectness loss (binary cross-entropy over the sampled anchors) and the box
        loss (smooth L1, beta 1/9, over the sampled positives, divided by the samples)."""
        sampled_pos, sampled_neg = self.fg_bg_sampler(labels)
        sampled_pos = where(cat(sampled_pos, dim=0))[0]
        sampled_neg = where(cat(sampled_neg, dim=0))[0]
        sampled = cat([sampled_pos, sampled_neg], dim=0)
        objectness = objectness.flatten()
        labels = cat(labels, dim=0)
        regression_targets = cat(regression_targets, dim=0)
        box_loss = F.smooth_l1_loss(pred_bbox_deltas[sampled_pos],
                                    regression_targets[sampled_pos], beta=1 / 9,
                                    reduction="sum") / sampled.numel()
        objectness_loss = F.binary_cross_entropy_with_logits(objectness[sampled],
                                                             labels[sampled])
        return objectness_loss, box_loss

    def forward(self, images, features, targets=None):
        """Returns the proposals of each image and the losses (empty in eval mode)."""
        features = list(features.values())
        objectness, pred_bbox_deltas = self.head(features)
        anchors = self.anchor_generator(images, features)
        num_images = len(anchors)
        num_anchors_per_level = [o[0].shape[0] * o[0].shape[1] * o[0].shape[2]
                                 for o in objectness]
        objectness, pred_bbox_deltas = concat_box_prediction_layers(objectness,
                                                                    pred_bbox_deltas)
        proposals = self.box_coder.decode(pred_bbox_deltas.detach(), anchors)
        proposals = proposals.view(num_images, -1, 4)
        boxes, _ = self.filter_proposals(proposals, objectness, images.image_sizes,
                                         num_anchors_per_level)
        losses = {}
        if self.training:
            if targets is None:
                raise ValueError("targets should not be None")
            labels, matched_gt_boxes = self.assign_targets_to_anchors(anchors, targets)
            regression_targets = self.box_coder.encode(matched_gt_boxes, anchors)
            loss_objectness, loss_rpn_box_reg = self.compute_loss(
                objectness, pred_bbox_deltas, labels, regression_targets)
            losses = {"loss_objectness": loss_objectness, "loss_rpn_box_reg": loss_rpn_box_reg}
        return boxes, losses
