"""Mask R-CNN (torchvision's ``models/detection/mask_rcnn.py``): ``MaskRCNN`` (Faster R-CNN
with a mask branch), ``MaskRCNNHeads``, ``MaskRCNNPredictor``, the COCO weights enums and the
two ResNet-50-FPN builders."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from jtorch import nn

from ...ops import MultiScaleRoIAlign, misc as misc_nn_ops
from .._api import register_model
from .._utils import _weights_enum, handle_legacy_interface
from ..resnet import ResNet50_Weights
from ._utils import _load, _num_classes
from .backbone_utils import _resnet50_fpn_backbone
from .faster_rcnn import FasterRCNN, _v2_heads

__all__ = ["MaskRCNN", "MaskRCNN_ResNet50_FPN_Weights", "MaskRCNN_ResNet50_FPN_V2_Weights",
           "maskrcnn_resnet50_fpn", "maskrcnn_resnet50_fpn_v2"]


class MaskRCNN(FasterRCNN):
    """Mask R-CNN: ``FasterRCNN`` (same arguments) plus a mask branch: ``mask_roi_pool``
    (default 14x14 ``MultiScaleRoIAlign``), ``mask_head`` (default four 3x3 convolutions of 256
    channels) and ``mask_predictor`` (default ``MaskRCNNPredictor(256, 256, num_classes)``).
    Training targets also need ``masks`` ``(N, H, W)``; eval adds ``masks`` ``(n, 1, H, W)``
    (probabilities, pasted into the input images) to each detection dict."""

    def __init__(self, backbone, num_classes=None, min_size=800, max_size=1333, image_mean=None,
                 image_std=None, rpn_anchor_generator=None, rpn_head=None,
                 rpn_pre_nms_top_n_train=2000, rpn_pre_nms_top_n_test=1000,
                 rpn_post_nms_top_n_train=2000, rpn_post_nms_top_n_test=1000,
                 rpn_nms_thresh=0.7, rpn_fg_iou_thresh=0.7, rpn_bg_iou_thresh=0.3,
                 rpn_batch_size_per_image=256, rpn_positive_fraction=0.5, rpn_score_thresh=0.0,
                 box_roi_pool=None, box_head=None, box_predictor=None, box_score_thresh=0.05,
                 box_nms_thresh=0.5, box_detections_per_img=100, box_fg_iou_thresh=0.5,
                 box_bg_iou_thresh=0.5, box_batch_size_per_image=512, box_positive_fraction=0.25,
                 bbox_reg_weights=None, mask_roi_pool=None, mask_head=None, mask_predictor=None,
                 **kwargs):
        if not isinstance(mask_roi_pool, (MultiScaleRoIAlign, type(None))):
            raise TypeError("mask_roi_pool should be of type MultiScaleRoIAlign or None instead "
                            f"of {type(mask_roi_pool)}")
        if num_classes is not None and mask_predictor is not None:
            raise ValueError("num_classes should be None when mask_predictor is specified")
        out_channels = backbone.out_channels
        if mask_roi_pool is None:
            mask_roi_pool = MultiScaleRoIAlign(featmap_names=["0", "1", "2", "3"],
                                               output_size=14, sampling_ratio=2)
        if mask_head is None:
            mask_head = MaskRCNNHeads(out_channels, (256, 256, 256, 256), 1)
        if mask_predictor is None:
            mask_predictor = MaskRCNNPredictor(256, 256, num_classes)
        super().__init__(
            backbone, num_classes, min_size, max_size, image_mean, image_std,
            rpn_anchor_generator, rpn_head, rpn_pre_nms_top_n_train, rpn_pre_nms_top_n_test,
            rpn_post_nms_top_n_train, rpn_post_nms_top_n_test, rpn_nms_thresh,
            rpn_fg_iou_thresh, rpn_bg_iou_thresh, rpn_batch_size_per_image,
            rpn_positive_fraction, rpn_score_thresh, box_roi_pool, box_head, box_predictor,
            box_score_thresh, box_nms_thresh, box_detections_per_img, box_fg_iou_thresh,
            box_bg_iou_thresh, box_batch_size_per_image, box_positive_fraction,
            bbox_reg_weights, **kwargs)
        self.roi_heads.mask_roi_pool = mask_roi_pool
        self.roi_heads.mask_head = mask_head
        self.roi_heads.mask_predictor = mask_predictor


class MaskRCNNHeads(nn.Sequential):
    """3x3 ``Conv2dNormActivation`` blocks (``layers`` channels, ``dilation``), kaiming-normal
    weights and zero biases.

    Args:
        in_channels (int), layers (list[int]), dilation (int), norm_layer (callable, optional)
    """

    _version = 2

    def __init__(self, in_channels, layers, dilation, norm_layer=None):
        blocks = []
        previous = in_channels
        for channels in layers:
            blocks.append(misc_nn_ops.Conv2dNormActivation(
                previous, channels, kernel_size=3, stride=1, padding=dilation,
                dilation=dilation, norm_layer=norm_layer))
            previous = channels
        super().__init__(*blocks)
        for layer in self.modules():
            if isinstance(layer, nn.Conv2d):
                nn.init.kaiming_normal_(layer.weight, mode="fan_out", nonlinearity="relu")
                if layer.bias is not None:
                    nn.init.zeros_(layer.bias)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        version = local_metadata.get("version", None)
        if version is None or version < 2:  # before 0.13: convolutions named mask_fcn<i>
            for i in range(len(self)):
                for kind in ("weight", "bias"):
                    old_key = f"{prefix}mask_fcn{i + 1}.{kind}"
                    if old_key in state_dict:
                        state_dict[f"{prefix}{i}.0.{kind}"] = state_dict.pop(old_key)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)


class MaskRCNNPredictor(nn.Sequential):
    """A 2x2 stride-2 transposed convolution (``conv5_mask``), ReLU, and a 1x1 convolution to
    one mask logit map per class (``mask_fcn_logits``)."""

    def __init__(self, in_channels, dim_reduced, num_classes):
        super().__init__(OrderedDict([
            ("conv5_mask", nn.ConvTranspose2d(in_channels, dim_reduced, 2, 2, 0)),
            ("relu", nn.ReLU(inplace=True)),
            ("mask_fcn_logits", nn.Conv2d(dim_reduced, num_classes, 1, 1, 0))]))
        for name, param in self.named_parameters():
            if "weight" in name:
                nn.init.kaiming_normal_(param, mode="fan_out", nonlinearity="relu")


MaskRCNN_ResNet50_FPN_Weights = _weights_enum(__name__, "MaskRCNN_ResNet50_FPN_Weights")
MaskRCNN_ResNet50_FPN_V2_Weights = _weights_enum(__name__, "MaskRCNN_ResNet50_FPN_V2_Weights")


@register_model()
@handle_legacy_interface(weights=("pretrained", MaskRCNN_ResNet50_FPN_Weights.COCO_V1),
                         weights_backbone=("pretrained_backbone",
                                           ResNet50_Weights.IMAGENET1K_V1))
def maskrcnn_resnet50_fpn(*, weights: MaskRCNN_ResNet50_FPN_Weights | None = None,
                          progress: bool = True, num_classes: int | None = None,
                          weights_backbone: ResNet50_Weights | None = (
                              ResNet50_Weights.IMAGENET1K_V1),
                          trainable_backbone_layers: int | None = None,
                          **kwargs: Any) -> MaskRCNN:
    """Mask R-CNN with a ResNet-50-FPN backbone (`Mask R-CNN`). Arguments as
    ``fasterrcnn_resnet50_fpn``; ``**kwargs`` go to ``MaskRCNN``."""
    weights = MaskRCNN_ResNet50_FPN_Weights.verify(weights)
    weights_backbone = ResNet50_Weights.verify(weights_backbone)
    if weights is not None:
        weights_backbone = None
    num_classes = _num_classes(weights, num_classes)
    backbone = _resnet50_fpn_backbone(weights, weights_backbone, progress,
                                      trainable_backbone_layers, v2=False)
    model = MaskRCNN(backbone, num_classes=num_classes, **kwargs)
    return _load(model, weights, progress, MaskRCNN_ResNet50_FPN_Weights.COCO_V1)


@register_model()
@handle_legacy_interface(weights=("pretrained", MaskRCNN_ResNet50_FPN_V2_Weights.COCO_V1),
                         weights_backbone=("pretrained_backbone",
                                           ResNet50_Weights.IMAGENET1K_V1))
def maskrcnn_resnet50_fpn_v2(*, weights: MaskRCNN_ResNet50_FPN_V2_Weights | None = None,
                             progress: bool = True, num_classes: int | None = None,
                             weights_backbone: ResNet50_Weights | None = None,
                             trainable_backbone_layers: int | None = None,
                             **kwargs: Any) -> MaskRCNN:
    """Mask R-CNN v2 (`An Improved Baseline for Vision Transformer Based Object Detection`):
    the v2 Faster R-CNN heads plus a batch-normed mask head. Arguments as
    ``maskrcnn_resnet50_fpn`` (``weights_backbone`` default None)."""
    weights = MaskRCNN_ResNet50_FPN_V2_Weights.verify(weights)
    weights_backbone = ResNet50_Weights.verify(weights_backbone)
    if weights is not None:
        weights_backbone = None
    num_classes = _num_classes(weights, num_classes)
    backbone = _resnet50_fpn_backbone(weights, weights_backbone, progress,
                                      trainable_backbone_layers, v2=True,
                                      norm_layer=nn.BatchNorm2d)
    mask_head = MaskRCNNHeads(backbone.out_channels, [256, 256, 256, 256], 1,
                              norm_layer=nn.BatchNorm2d)
    model = MaskRCNN(backbone, num_classes=num_classes, mask_head=mask_head,
                     **_v2_heads(backbone), **kwargs)
    return _load(model, weights, progress)
