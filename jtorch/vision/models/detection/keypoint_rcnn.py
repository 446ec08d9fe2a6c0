"""Keypoint R-CNN (torchvision's ``models/detection/keypoint_rcnn.py``): ``KeypointRCNN``
(Faster R-CNN with a keypoint branch), ``KeypointRCNNHeads``, ``KeypointRCNNPredictor``, the
COCO person-keypoint weights enum and ``keypointrcnn_resnet50_fpn``."""

from __future__ import annotations

from typing import Any

from jtorch import nn
from jtorch.nn import functional as F

from ...ops import MultiScaleRoIAlign
from .._api import register_model
from .._utils import _ovewrite_value_param, _weights_enum, handle_legacy_interface
from ..resnet import ResNet50_Weights
from ._utils import _load, _num_classes
from .backbone_utils import _resnet50_fpn_backbone
from .faster_rcnn import FasterRCNN

__all__ = ["KeypointRCNN", "KeypointRCNN_ResNet50_FPN_Weights", "keypointrcnn_resnet50_fpn"]


class KeypointRCNN(FasterRCNN):
    """Keypoint R-CNN: ``FasterRCNN`` (same arguments; ``min_size`` default
    ``(640, 672, 704, 736, 768, 800)``, one drawn per image in training) plus a keypoint branch:
    ``keypoint_roi_pool`` (default 14x14), ``keypoint_head`` (default eight 3x3 convolutions of
    512 channels), ``keypoint_predictor`` (default ``KeypointRCNNPredictor(512,
    num_keypoints)``), ``num_keypoints`` (default 17). Training targets also need
    ``keypoints`` ``(N, K, 3)`` float32 (x, y, visibility); eval adds ``keypoints`` and
    ``keypoints_scores``."""

    def __init__(self, backbone, num_classes=None, min_size=None, max_size=1333,
                 image_mean=None, image_std=None, rpn_anchor_generator=None, rpn_head=None,
                 rpn_pre_nms_top_n_train=2000, rpn_pre_nms_top_n_test=1000,
                 rpn_post_nms_top_n_train=2000, rpn_post_nms_top_n_test=1000,
                 rpn_nms_thresh=0.7, rpn_fg_iou_thresh=0.7, rpn_bg_iou_thresh=0.3,
                 rpn_batch_size_per_image=256, rpn_positive_fraction=0.5, rpn_score_thresh=0.0,
                 box_roi_pool=None, box_head=None, box_predictor=None, box_score_thresh=0.05,
                 box_nms_thresh=0.5, box_detections_per_img=100, box_fg_iou_thresh=0.5,
                 box_bg_iou_thresh=0.5, box_batch_size_per_image=512, box_positive_fraction=0.25,
                 bbox_reg_weights=None, keypoint_roi_pool=None, keypoint_head=None,
                 keypoint_predictor=None, num_keypoints=None, **kwargs):
        if not isinstance(keypoint_roi_pool, (MultiScaleRoIAlign, type(None))):
            # torchvision's message (its f-string prefix is missing: the braces stay)
            raise TypeError("keypoint_roi_pool should be of type MultiScaleRoIAlign or None "
                            "instead of {type(keypoint_roi_pool)}")
        if min_size is None:
            min_size = (640, 672, 704, 736, 768, 800)
        if num_keypoints is not None:
            if keypoint_predictor is not None:
                raise ValueError("num_keypoints should be None when keypoint_predictor is "
                                 "specified")
        else:
            num_keypoints = 17
        out_channels = backbone.out_channels
        if keypoint_roi_pool is None:
            keypoint_roi_pool = MultiScaleRoIAlign(featmap_names=["0", "1", "2", "3"],
                                                   output_size=14, sampling_ratio=2)
        if keypoint_head is None:
            keypoint_head = KeypointRCNNHeads(out_channels, tuple(512 for _ in range(8)))
        if keypoint_predictor is None:
            keypoint_predictor = KeypointRCNNPredictor(512, num_keypoints)
        super().__init__(
            backbone, num_classes, min_size, max_size, image_mean, image_std,
            rpn_anchor_generator, rpn_head, rpn_pre_nms_top_n_train, rpn_pre_nms_top_n_test,
            rpn_post_nms_top_n_train, rpn_post_nms_top_n_test, rpn_nms_thresh,
            rpn_fg_iou_thresh, rpn_bg_iou_thresh, rpn_batch_size_per_image,
            rpn_positive_fraction, rpn_score_thresh, box_roi_pool, box_head, box_predictor,
            box_score_thresh, box_nms_thresh, box_detections_per_img, box_fg_iou_thresh,
            box_bg_iou_thresh, box_batch_size_per_image, box_positive_fraction,
            bbox_reg_weights, **kwargs)
        self.roi_heads.keypoint_roi_pool = keypoint_roi_pool
        self.roi_heads.keypoint_head = keypoint_head
        self.roi_heads.keypoint_predictor = keypoint_predictor


class KeypointRCNNHeads(nn.Sequential):
    """3x3 convolutions (``layers`` channels) each followed by ReLU; kaiming-normal weights,
    zero biases."""

    def __init__(self, in_channels, layers):
        blocks = []
        previous = in_channels
        for channels in layers:
            blocks += [nn.Conv2d(previous, channels, 3, stride=1, padding=1),
                       nn.ReLU(inplace=True)]
            previous = channels
        super().__init__(*blocks)
        for m in self.children():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                nn.init.constant_(m.bias, 0)


class KeypointRCNNPredictor(nn.Module):
    """A 4x4 stride-2 transposed convolution to one heatmap per keypoint
    (``kps_score_lowres``), then a 2x bilinear upsampling."""

    def __init__(self, in_channels, num_keypoints):
        super().__init__()
        self.kps_score_lowres = nn.ConvTranspose2d(in_channels, num_keypoints, 4, stride=2,
                                                   padding=4 // 2 - 1)
        nn.init.kaiming_normal_(self.kps_score_lowres.weight, mode="fan_out",
                                nonlinearity="relu")
        nn.init.constant_(self.kps_score_lowres.bias, 0)
        self.up_scale = 2
        self.out_channels = num_keypoints

    def forward(self, x):
        return F.interpolate(self.kps_score_lowres(x), scale_factor=float(self.up_scale),
                             mode="bilinear", align_corners=False, recompute_scale_factor=False)


KeypointRCNN_ResNet50_FPN_Weights = _weights_enum(__name__, "KeypointRCNN_ResNet50_FPN_Weights")


@register_model()
@handle_legacy_interface(
    weights=("pretrained", lambda kwargs: KeypointRCNN_ResNet50_FPN_Weights.COCO_LEGACY
             if kwargs["pretrained"] == "legacy" else KeypointRCNN_ResNet50_FPN_Weights.COCO_V1),
    weights_backbone=("pretrained_backbone", ResNet50_Weights.IMAGENET1K_V1))
def keypointrcnn_resnet50_fpn(*, weights: KeypointRCNN_ResNet50_FPN_Weights | None = None,
                              progress: bool = True, num_classes: int | None = None,
                              num_keypoints: int | None = None,
                              weights_backbone: ResNet50_Weights | None = (
                                  ResNet50_Weights.IMAGENET1K_V1),
                              trainable_backbone_layers: int | None = None,
                              **kwargs: Any) -> KeypointRCNN:
    """Keypoint R-CNN with a ResNet-50-FPN backbone (`Mask R-CNN`): person boxes and their 17
    COCO keypoints. ``num_classes`` default 2, ``num_keypoints`` default 17; other arguments
    as ``fasterrcnn_resnet50_fpn``; ``**kwargs`` go to ``KeypointRCNN``."""
    weights = KeypointRCNN_ResNet50_FPN_Weights.verify(weights)
    weights_backbone = ResNet50_Weights.verify(weights_backbone)
    num_classes = _num_classes(weights, num_classes, default=2)
    if weights is not None:
        weights_backbone = None
        num_keypoints = _ovewrite_value_param("num_keypoints", num_keypoints,
                                              len(weights.meta["keypoint_names"]))
    elif num_keypoints is None:
        num_keypoints = 17
    backbone = _resnet50_fpn_backbone(weights, weights_backbone, progress,
                                      trainable_backbone_layers, v2=False)
    model = KeypointRCNN(backbone, num_classes, num_keypoints=num_keypoints, **kwargs)
    return _load(model, weights, progress, KeypointRCNN_ResNet50_FPN_Weights.COCO_V1)
