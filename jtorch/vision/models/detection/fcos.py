"""FCOS (torchvision's ``models/detection/fcos.py``): the anchor-free ``FCOS``, its head
(``FCOSHead`` = ``FCOSClassificationHead`` + ``FCOSRegressionHead`` with center-ness), the
COCO weights enum and the ResNet-50-FPN builder."""

from __future__ import annotations

import math
from functools import partial
from typing import Any

from jtorch import nn
from jtorch.nn import functional as F

from ...._core.dtypes import float32, int64
from ...._ops.compare import where
from ...._ops.creation import full, zeros_like
from ...._ops.pointwise_math import sigmoid, sqrt
from ...._ops.shape_copy import cat, stack
from ...ops import (
    boxes as box_ops,
    generalized_box_iou_loss,
    sigmoid_focal_loss,
)
from ...ops.feature_pyramid_network import LastLevelP6P7
from .._api import register_model
from .._utils import _weights_enum, handle_legacy_interface
from ..resnet import ResNet50_Weights
from . import _utils as det_utils
from ._utils import _load, _num_classes
from .anchor_utils import AnchorGenerator
from .backbone_utils import _resnet50_fpn_backbone
from .retinanet import _flatten_levels, _OneStage
from .transform import GeneralizedRCNNTransform

__all__ = ["FCOS", "FCOS_ResNet50_FPN_Weights", "fcos_resnet50_fpn"]


def _conv_tower(in_channels, num_convs, norm_layer):
    """``num_convs`` x (3x3 conv, norm, ReLU); conv weights N(0, 0.01), zero biases."""
    if norm_layer is None:
        norm_layer = partial(nn.GroupNorm, 32)
    layers = []
    for _ in range(num_convs):
        layers += [nn.Conv2d(in_channels, in_channels, kernel_size=3, stride=1, padding=1),
                   norm_layer(in_channels), nn.ReLU()]
    conv = nn.Sequential(*layers)
    for layer in conv.children():
        if isinstance(layer, nn.Conv2d):
            nn.init.normal_(layer.weight, std=0.01)
            nn.init.constant_(layer.bias, 0)
    return conv


class FCOSHead(nn.Module):
    """The classification and regression (with center-ness) heads of FCOS, and its losses:
    focal loss, GIoU box loss and center-ness BCE, each divided by the foreground locations.

    Args:
        in_channels, num_anchors, num_classes (int), num_convs (int, default 4)
    """

    def __init__(self, in_channels, num_anchors, num_classes, num_convs=4):
        super().__init__()
        self.box_coder = det_utils.BoxLinearCoder(normalize_by_size=True)
        self.classification_head = FCOSClassificationHead(in_channels, num_anchors, num_classes,
                                                          num_convs)
        self.regression_head = FCOSRegressionHead(in_channels, num_anchors, num_convs)

    def compute_loss(self, targets, head_outputs, anchors, matched_idxs):
        cls_logits = head_outputs["cls_logits"]
        gt_classes, gt_boxes = [], []
        for targets_per_image, matched in zip(targets, matched_idxs):
            if len(targets_per_image["labels"]) == 0:
                classes = targets_per_image["labels"].new_zeros((len(matched),))
                boxes = targets_per_image["boxes"].new_zeros((len(matched), 4))
            else:
                classes = targets_per_image["labels"][matched.clip(min=0)]
                boxes = targets_per_image["boxes"][matched.clip(min=0)]
            classes[matched < 0] = -1
            gt_classes.append(classes)
            gt_boxes.append(boxes)
        gt_boxes, gt_classes, anchors = stack(gt_boxes), stack(gt_classes), stack(anchors)
        img, loc = where(gt_classes >= 0)  # the foreground, in boolean-mask order
        num_foreground = max(1, img.numel())
        gt_classes_targets = zeros_like(cls_logits)
        gt_classes_targets[img, loc, gt_classes[img, loc]] = 1.0
        loss_cls = sigmoid_focal_loss(cls_logits, gt_classes_targets, reduction="sum")
        pred_boxes = self.box_coder.decode(head_outputs["bbox_regression"], anchors)
        loss_bbox_reg = generalized_box_iou_loss(pred_boxes[img, loc], gt_boxes[img, loc],
                                                 reduction="sum")
        reg_targets = self.box_coder.encode(anchors, gt_boxes)
        if len(reg_targets) == 0:
            gt_ctrness = reg_targets.new_zeros(reg_targets.size()[:-1])
        else:
            left_right, top_bottom = reg_targets[..., 0::2], reg_targets[..., 1::2]
            gt_ctrness = sqrt((left_right.min(dim=-1)[0] / left_right.max(dim=-1)[0])
                              * (top_bottom.min(dim=-1)[0] / top_bottom.max(dim=-1)[0]))
        pred_ctrness = head_outputs["bbox_ctrness"].squeeze(dim=2)
        loss_ctrness = F.binary_cross_entropy_with_logits(pred_ctrness[img, loc],
                                                          gt_ctrness[img, loc], reduction="sum")
        return {"classification": loss_cls / num_foreground,
                "bbox_regression": loss_bbox_reg / num_foreground,
                "bbox_ctrness": loss_ctrness / num_foreground}

    def forward(self, x):
        bbox_regression, bbox_ctrness = self.regression_head(x)
        return {"cls_logits": self.classification_head(x), "bbox_regression": bbox_regression,
                "bbox_ctrness": bbox_ctrness}


class FCOSClassificationHead(nn.Module):
    """``num_convs`` x (3x3 conv, ``norm_layer`` (default GroupNorm(32)), ReLU) and a 3x3
    convolution to ``num_anchors * num_classes`` logits (``cls_logits``)."""

    def __init__(self, in_channels, num_anchors, num_classes, num_convs=4,
                 prior_probability=0.01, norm_layer=None):
        super().__init__()
        self.num_classes = num_classes
        self.num_anchors = num_anchors
        self.conv = _conv_tower(in_channels, num_convs, norm_layer)
        self.cls_logits = nn.Conv2d(in_channels, num_anchors * num_classes, kernel_size=3,
                                    stride=1, padding=1)
        nn.init.normal_(self.cls_logits.weight, std=0.01)
        nn.init.constant_(self.cls_logits.bias,
                          -math.log((1 - prior_probability) / prior_probability))

    def forward(self, x):
        return _flatten_levels(lambda f: self.cls_logits(self.conv(f)), x, self.num_classes)


class FCOSRegressionHead(nn.Module):
    """``num_convs`` x (3x3 conv, norm, ReLU), then the box distances (``bbox_reg``, ReLU)
    and the center-ness logit (``bbox_ctrness``) of each location."""

    def __init__(self, in_channels, num_anchors, num_convs=4, norm_layer=None):
        super().__init__()
        self.conv = _conv_tower(in_channels, num_convs, norm_layer)
        self.bbox_reg = nn.Conv2d(in_channels, num_anchors * 4, kernel_size=3, stride=1,
                                  padding=1)
        self.bbox_ctrness = nn.Conv2d(in_channels, num_anchors * 1, kernel_size=3, stride=1,
                                      padding=1)
        for layer in (self.bbox_reg, self.bbox_ctrness):
            nn.init.normal_(layer.weight, std=0.01)
            nn.init.zeros_(layer.bias)

    def forward(self, x):
        features = [self.conv(f) for f in x]
        return (_flatten_levels(lambda f: F.relu(self.bbox_reg(f)), features, 4),
                _flatten_levels(self.bbox_ctrness, features, 1))


class FCOS(_OneStage):
    """FCOS (`FCOS: Fully Convolutional One-Stage Object Detection`): one "anchor" (a point
    with the level's stride as size) per location; locations inside a box's center region and
    in the level's size range are its positives.

    Args: ``backbone`` (with ``out_channels``), ``num_classes``, and torchvision's keywords and
    defaults: ``min_size=800``, ``max_size=1333``, ``image_mean``, ``image_std``,
    ``anchor_generator`` (sizes 8-128, one per location), ``head``,
    ``center_sampling_radius=1.5``, ``score_thresh=0.2``, ``nms_thresh=0.6``,
    ``detections_per_img=100``, ``topk_candidates=1000``, ``**kwargs`` for the transform.

    Output: the losses ``classification``, ``bbox_regression``, ``bbox_ctrness`` in training,
    ``boxes``/``scores``/``labels`` per image in eval.
    """

    _show_shape = True

    def __init__(self, backbone, num_classes, min_size=800, max_size=1333, image_mean=None,
                 image_std=None, anchor_generator=None, head=None, center_sampling_radius=1.5,
                 score_thresh=0.2, nms_thresh=0.6, detections_per_img=100, topk_candidates=1000,
                 **kwargs):
        super().__init__()
        if not hasattr(backbone, "out_channels"):
            raise ValueError("backbone should contain an attribute out_channels specifying the "
                             "number of output channels (assumed to be the same for all the "
                             "levels)")
        self.backbone = backbone
        if not isinstance(anchor_generator, (AnchorGenerator, type(None))):
            raise TypeError("anchor_generator should be of type AnchorGenerator or None, "
                            f"instead  got {type(anchor_generator)}")
        if anchor_generator is None:
            anchor_sizes = ((8,), (16,), (32,), (64,), (128,))
            anchor_generator = AnchorGenerator(anchor_sizes, ((1.0,),) * len(anchor_sizes))
        self.anchor_generator = anchor_generator
        if self.anchor_generator.num_anchors_per_location()[0] != 1:
            raise ValueError("anchor_generator.num_anchors_per_location()[0] should be 1 "
                             f"instead of {anchor_generator.num_anchors_per_location()[0]}")
        if head is None:
            head = FCOSHead(backbone.out_channels, anchor_generator.num_anchors_per_location()[0],
                            num_classes)
        self.head = head
        self.box_coder = det_utils.BoxLinearCoder(normalize_by_size=True)
        if image_mean is None:
            image_mean = [0.485, 0.456, 0.406]
        if image_std is None:
            image_std = [0.229, 0.224, 0.225]
        self.transform = GeneralizedRCNNTransform(min_size, max_size, image_mean, image_std,
                                                  **kwargs)
        self.center_sampling_radius = center_sampling_radius
        self.score_thresh = score_thresh
        self.nms_thresh = nms_thresh
        self.detections_per_img = detections_per_img
        self.topk_candidates = topk_candidates
        self._has_warned = False

    def compute_loss(self, targets, head_outputs, anchors, num_anchors_per_level):
        matched_idxs = []
        for anchors_per_image, targets_per_image in zip(anchors, targets):
            if targets_per_image["boxes"].numel() == 0:
                matched_idxs.append(full((anchors_per_image.size(0),), -1, dtype=int64,
                                         device=anchors_per_image.device))
                continue
            gt_boxes = targets_per_image["boxes"]
            gt_centers = (gt_boxes[:, :2] + gt_boxes[:, 2:]) / 2
            anchor_centers = (anchors_per_image[:, :2] + anchors_per_image[:, 2:]) / 2
            anchor_sizes = anchors_per_image[:, 2] - anchors_per_image[:, 0]
            match = ((anchor_centers[:, None, :] - gt_centers[None, :, :]).abs().max(dim=2).values
                     < self.center_sampling_radius * anchor_sizes[:, None])
            x, y = anchor_centers.unsqueeze(dim=2).unbind(dim=1)
            x0, y0, x1, y1 = gt_boxes.unsqueeze(dim=0).unbind(dim=2)
            dist = stack([x - x0, y - y0, x1 - x, y1 - y], dim=2)
            match = match & (dist.min(dim=2).values > 0)
            lower_bound = anchor_sizes * 4
            lower_bound[: num_anchors_per_level[0]] = 0
            upper_bound = anchor_sizes * 8
            upper_bound[-num_anchors_per_level[-1]:] = float("inf")
            dist = dist.max(dim=2).values
            match = match & (dist > lower_bound[:, None]) & (dist < upper_bound[:, None])
            gt_areas = (gt_boxes[:, 2] - gt_boxes[:, 0]) * (gt_boxes[:, 3] - gt_boxes[:, 1])
            match = match.to(float32) * (1e8 - gt_areas[None, :])
            min_values, matched_idx = match.max(dim=1)
            matched_idx[min_values < 1e-5] = -1
            matched_idxs.append(matched_idx)
        return self.head.compute_loss(targets, head_outputs, anchors, matched_idxs)

    def postprocess_detections(self, head_outputs, anchors, image_shapes):
        """Per image and level: the ``topk_candidates`` best scores ``sqrt(sigmoid(class) *
        sigmoid(center-ness))`` above ``score_thresh``, decoded and clipped; then NMS per
        class over the levels and the ``detections_per_img`` best."""
        detections = []
        for index, image_shape in enumerate(image_shapes):
            image_boxes, image_scores, image_labels = [], [], []
            for box_regression, logits, ctrness, anchors_per_level in zip(
                    [br[index] for br in head_outputs["bbox_regression"]],
                    [cl[index] for cl in head_outputs["cls_logits"]],
                    [bc[index] for bc in head_outputs["bbox_ctrness"]], anchors[index]):
                num_classes = logits.shape[-1]
                scores = sqrt(sigmoid(logits) * sigmoid(ctrness)).flatten()
                keep = scores > self.score_thresh
                scores = scores[keep]
                topk_idxs = where(keep)[0]
                scores, idxs = scores.topk(det_utils._topk_min(topk_idxs, self.topk_candidates,
                                                               0))
                topk_idxs = topk_idxs[idxs]
                anchor_idxs = topk_idxs // num_classes
                boxes = self.box_coder.decode(box_regression[anchor_idxs],
                                              anchors_per_level[anchor_idxs])
                image_boxes.append(box_ops.clip_boxes_to_image(boxes, image_shape))
                image_scores.append(scores)
                image_labels.append(topk_idxs % num_classes)
            image_boxes = cat(image_boxes, dim=0)
            image_scores = cat(image_scores, dim=0)
            image_labels = cat(image_labels, dim=0)
            keep = box_ops.batched_nms(image_boxes, image_scores, image_labels, self.nms_thresh)
            keep = keep[: self.detections_per_img]
            detections.append({"boxes": image_boxes[keep], "scores": image_scores[keep],
                               "labels": image_labels[keep]})
        return detections

    def forward(self, images, targets=None):
        """The losses in training (targets required), the detections per image in eval."""
        images, targets, features, original_image_sizes = self._features(images, targets)
        head_outputs = self.head(features)
        anchors = self.anchor_generator(images, features)
        num_anchors_per_level = [x.size(2) * x.size(3) for x in features]
        losses, detections = {}, []
        if self.training:
            losses = self.compute_loss(targets, head_outputs, anchors, num_anchors_per_level)
        else:
            split_outputs = {k: list(v.split(num_anchors_per_level, dim=1))
                             for k, v in head_outputs.items()}
            split_anchors = [list(a.split(num_anchors_per_level)) for a in anchors]
            detections = self.postprocess_detections(split_outputs, split_anchors,
                                                      images.image_sizes)
            detections = self.transform.postprocess(detections, images.image_sizes,
                                                    original_image_sizes)
        return self.eager_outputs(losses, detections)


FCOS_ResNet50_FPN_Weights = _weights_enum(__name__, "FCOS_ResNet50_FPN_Weights")


@register_model()
@handle_legacy_interface(weights=("pretrained", FCOS_ResNet50_FPN_Weights.COCO_V1),
                         weights_backbone=("pretrained_backbone",
                                           ResNet50_Weights.IMAGENET1K_V1))
def fcos_resnet50_fpn(*, weights: FCOS_ResNet50_FPN_Weights | None = None,
                      progress: bool = True, num_classes: int | None = None,
                      weights_backbone: ResNet50_Weights | None = ResNet50_Weights.IMAGENET1K_V1,
                      trainable_backbone_layers: int | None = None,
                      **kwargs: Any) -> FCOS:
    """FCOS with a ResNet-50-FPN backbone (P3-P7: ``LastLevelP6P7`` on P5).

    Args:
        weights (FCOS_ResNet50_FPN_Weights, optional): COCO weights (None: random).
        progress (bool): show a download progress bar. Default True
        num_classes (int, optional): the classes, background included (default 91).
        weights_backbone (ResNet50_Weights, optional): the backbone's ImageNet weights.
            Default ``ResNet50_Weights.IMAGENET1K_V1``
        trainable_backbone_layers (int, optional): the trainable ResNet layers from the last
            (0-5; default 3 with weights, else 5).
        **kwargs: passed to ``FCOS``.
    """
    weights = FCOS_ResNet50_FPN_Weights.verify(weights)
    weights_backbone = ResNet50_Weights.verify(weights_backbone)
    if weights is not None:
        weights_backbone = None
    num_classes = _num_classes(weights, num_classes)
    backbone = _resnet50_fpn_backbone(weights, weights_backbone, progress,
                                      trainable_backbone_layers, v2=False,
                                      returned_layers=[2, 3, 4],
                                      extra_blocks=LastLevelP6P7(256, 256))
    model = FCOS(backbone, num_classes, **kwargs)
    return _load(model, weights, progress)
