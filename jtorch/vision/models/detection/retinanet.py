"""RetinaNet (torchvision's ``models/detection/retinanet.py``): ``RetinaNet``, its head
(``RetinaNetHead`` = ``RetinaNetClassificationHead`` + ``RetinaNetRegressionHead``), the COCO
weights enums and the ResNet-50-FPN builders (v1, and v2 with GroupNorm heads and a GIoU box
loss). The one-stage detectors share ``_OneStage``: the target checks, the transform, the
backbone and the per-level split of the head outputs."""

from __future__ import annotations

import math
from collections import OrderedDict
from functools import partial
from typing import Any

from jtorch import nn

from ...._core.dtypes import int64
from ...._ops.compare import where
from ...._ops.creation import full, zeros_like
from ...._ops.pointwise_math import sigmoid
from ...._ops.shape_copy import cat
from ...._ops.typeinfo import _assert
from ...._tensor import Tensor
from ...ops import boxes as box_ops, misc as misc_nn_ops, sigmoid_focal_loss
from ...ops.feature_pyramid_network import LastLevelP6P7
from .._api import register_model
from .._utils import _weights_enum, handle_legacy_interface
from ..resnet import ResNet50_Weights
from . import _utils as det_utils
from ._utils import _box_loss, _load, _num_classes
from .anchor_utils import AnchorGenerator
from .backbone_utils import _resnet50_fpn_backbone
from .transform import GeneralizedRCNNTransform

__all__ = ["RetinaNet", "RetinaNet_ResNet50_FPN_Weights", "RetinaNet_ResNet50_FPN_V2_Weights",
           "retinanet_resnet50_fpn", "retinanet_resnet50_fpn_v2"]


def _sum(x):
    res = x[0]
    for i in x[1:]:
        res = res + i
    return res


def _v1_to_v2_weights(state_dict, prefix):
    """Checkpoints before torchvision 0.13 name the head convolutions ``conv.{2i}``."""
    for i in range(4):
        for kind in ("weight", "bias"):
            old_key = f"{prefix}conv.{2 * i}.{kind}"
            if old_key in state_dict:
                state_dict[f"{prefix}conv.{i}.0.{kind}"] = state_dict.pop(old_key)


def _default_anchorgen():
    anchor_sizes = tuple((x, int(x * 2 ** (1.0 / 3)), int(x * 2 ** (2.0 / 3)))
                         for x in [32, 64, 128, 256, 512])
    return AnchorGenerator(anchor_sizes, ((0.5, 1.0, 2.0),) * len(anchor_sizes))


def _conv_tower(in_channels, norm_layer):
    """Four 3x3 ``Conv2dNormActivation`` blocks, weights N(0, 0.01), zero biases."""
    conv = nn.Sequential(*[misc_nn_ops.Conv2dNormActivation(in_channels, in_channels,
                                                            norm_layer=norm_layer)
                           for _ in range(4)])
    for layer in conv.modules():
        if isinstance(layer, nn.Conv2d):
            nn.init.normal_(layer.weight, std=0.01)
            if layer.bias is not None:
                nn.init.constant_(layer.bias, 0)
    return conv


def _flatten_levels(layer, x, k):
    """Each ``(N, A * k, H, W)`` map of ``layer(x_level)`` as ``(N, H * W * A, k)``, the levels
    concatenated."""
    out = []
    for features in x:
        t = layer(features)
        N, _, H, W = t.shape
        out.append(t.view(N, -1, k, H, W).permute(0, 3, 4, 1, 2).reshape(N, -1, k))
    return cat(out, dim=1)


class _V2Checkpoint:
    """Renames the pre-0.13 head convolution keys on load."""

    _version = 2

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        version = local_metadata.get("version", None)
        if version is None or version < 2:
            _v1_to_v2_weights(state_dict, prefix)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)


class RetinaNetHead(nn.Module):
    """The classification and regression heads of RetinaNet.

    Args:
        in_channels (int): the channels of the feature maps.
        num_anchors (int): the anchors per position.
        num_classes (int): the classes.
        norm_layer (callable, optional): the normalization of the conv towers. Default None
    """

    def __init__(self, in_channels, num_anchors, num_classes, norm_layer=None):
        super().__init__()
        self.classification_head = RetinaNetClassificationHead(in_channels, num_anchors,
                                                               num_classes, norm_layer=norm_layer)
        self.regression_head = RetinaNetRegressionHead(in_channels, num_anchors,
                                                       norm_layer=norm_layer)

    def compute_loss(self, targets, head_outputs, anchors, matched_idxs):
        return {"classification": self.classification_head.compute_loss(targets, head_outputs,
                                                                         matched_idxs),
                "bbox_regression": self.regression_head.compute_loss(targets, head_outputs,
                                                                     anchors, matched_idxs)}

    def forward(self, x):
        return {"cls_logits": self.classification_head(x),
                "bbox_regression": self.regression_head(x)}


class RetinaNetClassificationHead(_V2Checkpoint, nn.Module):
    """Four 3x3 conv blocks and a 3x3 convolution to ``num_anchors * num_classes`` logits
    (``cls_logits``, bias ``-log((1 - prior_probability) / prior_probability)``); the focal
    loss over the anchors not between the matcher's thresholds, per image divided by its
    foreground anchors.

    Args:
        in_channels, num_anchors, num_classes (int), prior_probability (float, default 0.01),
        norm_layer (callable, optional)
    """

    def __init__(self, in_channels, num_anchors, num_classes, prior_probability=0.01,
                 norm_layer=None):
        super().__init__()
        self.conv = _conv_tower(in_channels, norm_layer)
        self.cls_logits = nn.Conv2d(in_channels, num_anchors * num_classes, kernel_size=3,
                                    stride=1, padding=1)
        nn.init.normal_(self.cls_logits.weight, std=0.01)
        nn.init.constant_(self.cls_logits.bias,
                          -math.log((1 - prior_probability) / prior_probability))
        self.num_classes = num_classes
        self.num_anchors = num_anchors
        self.BETWEEN_THRESHOLDS = det_utils.Matcher.BETWEEN_THRESHOLDS

    def compute_loss(self, targets, head_outputs, matched_idxs):
        losses = []
        for targets_per_image, cls_logits, matched in zip(targets, head_outputs["cls_logits"],
                                                          matched_idxs):
            foreground = where(matched >= 0)[0]
            gt_classes_target = zeros_like(cls_logits)
            gt_classes_target[foreground, targets_per_image["labels"][matched[foreground]]] = 1.0
            valid = matched != self.BETWEEN_THRESHOLDS
            losses.append(sigmoid_focal_loss(cls_logits[valid], gt_classes_target[valid],
                                             reduction="sum") / max(1, foreground.numel()))
        return _sum(losses) / len(targets)

    def forward(self, x):
        return _flatten_levels(lambda f: self.cls_logits(self.conv(f)), x, self.num_classes)


class RetinaNetRegressionHead(_V2Checkpoint, nn.Module):
    """Four 3x3 conv blocks and a 3x3 convolution to ``num_anchors * 4`` box deltas
    (``bbox_reg``); the box loss (``_loss_type``: ``"l1"``, or ``"giou"`` in v2) over the
    foreground anchors, per image divided by their number.

    Args:
        in_channels, num_anchors (int), norm_layer (callable, optional)
    """

    def __init__(self, in_channels, num_anchors, norm_layer=None):
        super().__init__()
        self.conv = _conv_tower(in_channels, norm_layer)
        self.bbox_reg = nn.Conv2d(in_channels, num_anchors * 4, kernel_size=3, stride=1,
                                  padding=1)
        nn.init.normal_(self.bbox_reg.weight, std=0.01)
        nn.init.zeros_(self.bbox_reg.bias)
        self.box_coder = det_utils.BoxCoder(weights=(1.0, 1.0, 1.0, 1.0))
        self._loss_type = "l1"

    def compute_loss(self, targets, head_outputs, anchors, matched_idxs):
        losses = []
        for targets_per_image, bbox_regression, anchors_per_image, matched in zip(
                targets, head_outputs["bbox_regression"], anchors, matched_idxs):
            foreground = where(matched >= 0)[0]
            matched_gt_boxes = targets_per_image["boxes"][matched[foreground]]
            losses.append(_box_loss(self._loss_type, self.box_coder,
                                    anchors_per_image[foreground, :], matched_gt_boxes,
                                    bbox_regression[foreground, :])
                          / max(1, foreground.numel()))
        return _sum(losses) / max(1, len(targets))

    def forward(self, x):
        return _flatten_levels(lambda f: self.bbox_reg(self.conv(f)), x, 4)


class _OneStage(nn.Module):
    """What RetinaNet and FCOS share: the target checks, the transform and backbone, and the
    per-level split of the head outputs and anchors for ``postprocess_detections``."""

    def eager_outputs(self, losses, detections):
        return losses if self.training else detections

    _show_shape = False  # FCOS's shape error names the shape, RetinaNet's does not

    def _features(self, images, targets):
        if self.training:
            if targets is None:
                _assert(False, "targets should not be none when in training mode")
            for target in targets:
                boxes = target["boxes"]
                _assert(isinstance(boxes, Tensor), "Expected target boxes to be of type Tensor.")
                _assert(len(boxes.shape) == 2 and boxes.shape[-1] == 4,
                        "Expected target boxes to be a tensor of shape [N, 4]"
                        + (f", got {boxes.shape}." if self._show_shape else "."))
        original_image_sizes = []
        for img in images:
            val = img.shape[-2:]
            _assert(len(val) == 2, "expecting the last two dimensions of the Tensor to be H and "
                                   f"W instead got {img.shape[-2:]}")
            original_image_sizes.append((val[0], val[1]))
        images, targets = self.transform(images, targets)
        if targets is not None:
            for target_idx, target in enumerate(targets):
                boxes = target["boxes"]
                degenerate = boxes[:, 2:] <= boxes[:, :2]
                if degenerate.any():
                    bb_idx = where(degenerate.any(dim=1))[0][0]
                    _assert(False, "All bounding boxes should have positive height and width. "
                                   f"Found invalid box {boxes[bb_idx].tolist()} for target at "
                                   f"index {target_idx}.")
        features = self.backbone(images.tensors)
        if isinstance(features, Tensor):
            features = OrderedDict([("0", features)])
        return images, targets, list(features.values()), original_image_sizes

    @staticmethod
    def _split_levels(features, head_outputs, anchors, key):
        """The head outputs and anchors split per level (``key``: an output with the anchors
        on dim 1)."""
        num_per_level = [x.size(2) * x.size(3) for x in features]
        A = head_outputs[key].size(1) // sum(num_per_level)
        num_per_level = [hw * A for hw in num_per_level]
        split_outputs = {k: list(v.split(num_per_level, dim=1)) for k, v in head_outputs.items()}
        return split_outputs, [list(a.split(num_per_level)) for a in anchors]


class RetinaNet(_OneStage):
    """RetinaNet (`Focal Loss for Dense Object Detection`): a feature-pyramid backbone and a
    head that classifies (sigmoid, focal loss) and regresses every anchor.

    Args: ``backbone`` (with ``out_channels``), ``num_classes``, and torchvision's keywords and
    defaults: ``min_size=800``, ``max_size=1333``, ``image_mean``, ``image_std``,
    ``anchor_generator`` (3 sizes x 3 ratios per level), ``head``, ``proposal_matcher``,
    ``score_thresh=0.05``, ``nms_thresh=0.5``, ``detections_per_img=300``,
    ``fg_iou_thresh=0.5``, ``bg_iou_thresh=0.4``, ``topk_candidates=1000``, ``**kwargs`` for
    the transform.

    Input and output as ``FasterRCNN``: the losses ``classification`` and ``bbox_regression``
    in training, ``boxes``/``scores``/``labels`` per image in eval.
    """

    def __init__(self, backbone, num_classes, min_size=800, max_size=1333, image_mean=None,
                 image_std=None, anchor_generator=None, head=None, proposal_matcher=None,
                 score_thresh=0.05, nms_thresh=0.5, detections_per_img=300, fg_iou_thresh=0.5,
                 bg_iou_thresh=0.4, topk_candidates=1000, **kwargs):
        super().__init__()
        if not hasattr(backbone, "out_channels"):
            raise ValueError("backbone should contain an attribute out_channels specifying the "
                             "number of output channels (assumed to be the same for all the "
                             "levels)")
        self.backbone = backbone
        if not isinstance(anchor_generator, (AnchorGenerator, type(None))):
            raise TypeError("anchor_generator should be of type AnchorGenerator or None instead "
                            f"of {type(anchor_generator)}")
        if anchor_generator is None:
            anchor_generator = _default_anchorgen()
        self.anchor_generator = anchor_generator
        if head is None:
            head = RetinaNetHead(backbone.out_channels,
                                 anchor_generator.num_anchors_per_location()[0], num_classes)
        self.head = head
        if proposal_matcher is None:
            proposal_matcher = det_utils.Matcher(fg_iou_thresh, bg_iou_thresh,
                                                 allow_low_quality_matches=True)
        self.proposal_matcher = proposal_matcher
        self.box_coder = det_utils.BoxCoder(weights=(1.0, 1.0, 1.0, 1.0))
        if image_mean is None:
            image_mean = [0.485, 0.456, 0.406]
        if image_std is None:
            image_std = [0.229, 0.224, 0.225]
        self.transform = GeneralizedRCNNTransform(min_size, max_size, image_mean, image_std,
                                                  **kwargs)
        self.score_thresh = score_thresh
        self.nms_thresh = nms_thresh
        self.detections_per_img = detections_per_img
        self.topk_candidates = topk_candidates
        self._has_warned = False

    def compute_loss(self, targets, head_outputs, anchors):
        matched_idxs = []
        for anchors_per_image, targets_per_image in zip(anchors, targets):
            if targets_per_image["boxes"].numel() == 0:
                matched_idxs.append(full((anchors_per_image.size(0),), -1, dtype=int64,
                                         device=anchors_per_image.device))
                continue
            iou = box_ops.box_iou(targets_per_image["boxes"], anchors_per_image)
            matched_idxs.append(self.proposal_matcher(iou))
        return self.head.compute_loss(targets, head_outputs, anchors, matched_idxs)

    def postprocess_detections(self, head_outputs, anchors, image_shapes):
        """Per image and level: the ``topk_candidates`` best (anchor, class) scores above
        ``score_thresh``, decoded and clipped; then NMS per class over the levels and the
        ``detections_per_img`` best."""
        detections = []
        for index, image_shape in enumerate(image_shapes):
            image_boxes, image_scores, image_labels = [], [], []
            for box_regression, logits, anchors_per_level in zip(
                    [br[index] for br in head_outputs["bbox_regression"]],
                    [cl[index] for cl in head_outputs["cls_logits"]], anchors[index]):
                num_classes = logits.shape[-1]
                scores = sigmoid(logits).flatten()
                keep = scores > self.score_thresh
                scores = scores[keep]
                topk_idxs = where(keep)[0]
                scores, idxs = scores.topk(det_utils._topk_min(topk_idxs, self.topk_candidates,
                                                               0))
                topk_idxs = topk_idxs[idxs]
                anchor_idxs = topk_idxs // num_classes
                boxes = self.box_coder.decode_single(box_regression[anchor_idxs],
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
        losses, detections = {}, []
        if self.training:
            losses = self.compute_loss(targets, head_outputs, anchors)
        else:
            split_outputs, split_anchors = self._split_levels(features, head_outputs, anchors,
                                                              "cls_logits")
            detections = self.postprocess_detections(split_outputs, split_anchors,
                                                      images.image_sizes)
            detections = self.transform.postprocess(detections, images.image_sizes,
                                                    original_image_sizes)
        return self.eager_outputs(losses, detections)


RetinaNet_ResNet50_FPN_Weights = _weights_enum(__name__, "RetinaNet_ResNet50_FPN_Weights")
RetinaNet_ResNet50_FPN_V2_Weights = _weights_enum(__name__, "RetinaNet_ResNet50_FPN_V2_Weights")


@register_model()
@handle_legacy_interface(weights=("pretrained", RetinaNet_ResNet50_FPN_Weights.COCO_V1),
                         weights_backbone=("pretrained_backbone",
                                           ResNet50_Weights.IMAGENET1K_V1))
def retinanet_resnet50_fpn(*, weights: RetinaNet_ResNet50_FPN_Weights | None = None,
                           progress: bool = True, num_classes: int | None = None,
                           weights_backbone: ResNet50_Weights | None = (
                               ResNet50_Weights.IMAGENET1K_V1),
                           trainable_backbone_layers: int | None = None,
                           **kwargs: Any) -> RetinaNet:
    """RetinaNet with a ResNet-50-FPN backbone (P3-P7: ``LastLevelP6P7`` on P5).

    Args:
        weights (RetinaNet_ResNet50_FPN_Weights, optional): COCO weights (None: random).
        progress (bool): show a download progress bar. Default True
        num_classes (int, optional): the classes, background included (default 91).
        weights_backbone (ResNet50_Weights, optional): the backbone's ImageNet weights.
            Default ``ResNet50_Weights.IMAGENET1K_V1``
        trainable_backbone_layers (int, optional): the trainable ResNet layers from the last
            (0-5; default 3 with weights, else 5).
        **kwargs: passed to ``RetinaNet``.
    """
    weights = RetinaNet_ResNet50_FPN_Weights.verify(weights)
    weights_backbone = ResNet50_Weights.verify(weights_backbone)
    if weights is not None:
        weights_backbone = None
    num_classes = _num_classes(weights, num_classes)
    backbone = _resnet50_fpn_backbone(weights, weights_backbone, progress,
                                      trainable_backbone_layers, v2=False,
                                      returned_layers=[2, 3, 4],
                                      extra_blocks=LastLevelP6P7(256, 256))
    model = RetinaNet(backbone, num_classes, **kwargs)
    return _load(model, weights, progress, RetinaNet_ResNet50_FPN_Weights.COCO_V1)


@register_model()
@handle_legacy_interface(weights=("pretrained", RetinaNet_ResNet50_FPN_V2_Weights.COCO_V1),
                         weights_backbone=("pretrained_backbone",
                                           ResNet50_Weights.IMAGENET1K_V1))
def retinanet_resnet50_fpn_v2(*, weights: RetinaNet_ResNet50_FPN_V2_Weights | None = None,
                              progress: bool = True, num_classes: int | None = None,
                              weights_backbone: ResNet50_Weights | None = None,
                              trainable_backbone_layers: int | None = None,
                              **kwargs: Any) -> RetinaNet:
    """RetinaNet v2 (`Bridging the Gap Between Anchor-based and Anchor-free Detection via
    Adaptive Training Sample Selection`): P6 from C5, GroupNorm(32) in the head and a GIoU box
    loss; batch norm in the backbone. Arguments as ``retinanet_resnet50_fpn``
    (``weights_backbone`` default None)."""
    weights = RetinaNet_ResNet50_FPN_V2_Weights.verify(weights)
    weights_backbone = ResNet50_Weights.verify(weights_backbone)
    if weights is not None:
        weights_backbone = None
    num_classes = _num_classes(weights, num_classes)
    backbone = _resnet50_fpn_backbone(weights, weights_backbone, progress,
                                      trainable_backbone_layers, v2=True,
                                      returned_layers=[2, 3, 4],
                                      extra_blocks=LastLevelP6P7(2048, 256))
    anchor_generator = _default_anchorgen()
    head = RetinaNetHead(backbone.out_channels, anchor_generator.num_anchors_per_location()[0],
                         num_classes, norm_layer=partial(nn.GroupNorm, 32))
    head.regression_head._loss_type = "giou"
    model = RetinaNet(backbone, num_classes, anchor_generator=anchor_generator, head=head,
                      **kwargs)
    return _load(model, weights, progress)
