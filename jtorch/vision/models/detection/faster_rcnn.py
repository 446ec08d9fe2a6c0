"""Faster R-CNN (torchvision's ``models/detection/faster_rcnn.py``): ``FasterRCNN``, its box
heads (``TwoMLPHead``, ``FastRCNNConvFCHead``) and predictor (``FastRCNNPredictor``), the COCO
weights enums and the four builders (ResNet-50-FPN v1 and v2, MobileNetV3-Large-FPN at full
and 320 resolution)."""

from __future__ import annotations

from typing import Any

from jtorch import nn
from jtorch.nn import functional as F

from ...._ops.typeinfo import _assert
from ...ops import MultiScaleRoIAlign, misc as misc_nn_ops
from .._api import register_model
from .._utils import _weights_enum, handle_legacy_interface
from ..mobilenetv3 import MobileNet_V3_Large_Weights, mobilenet_v3_large
from ..resnet import ResNet50_Weights
from ._utils import _load, _num_classes
from .anchor_utils import AnchorGenerator
from .backbone_utils import (
    _mobilenet_extractor,
    _resnet50_fpn_backbone,
    _validate_trainable_layers,
)
from .generalized_rcnn import GeneralizedRCNN
from .roi_heads import RoIHeads
from .rpn import RegionProposalNetwork, RPNHead
from .transform import GeneralizedRCNNTransform

__all__ = ["FasterRCNN", "FasterRCNN_ResNet50_FPN_Weights", "FasterRCNN_ResNet50_FPN_V2_Weights",
           "FasterRCNN_MobileNet_V3_Large_FPN_Weights",
           "FasterRCNN_MobileNet_V3_Large_320_FPN_Weights", "fasterrcnn_resnet50_fpn",
           "fasterrcnn_resnet50_fpn_v2", "fasterrcnn_mobilenet_v3_large_fpn",
           "fasterrcnn_mobilenet_v3_large_320_fpn"]


def _default_anchorgen():
    anchor_sizes = ((32,), (64,), (128,), (256,), (512,))
    return AnchorGenerator(anchor_sizes, ((0.5, 1.0, 2.0),) * len(anchor_sizes))


class FasterRCNN(GeneralizedRCNN):
    """Faster R-CNN: a backbone (with an ``out_channels`` attribute), an RPN and a box branch.

    Args: ``backbone``, ``num_classes`` (background included; None when ``box_predictor`` is
    given), and torchvision's keywords with its defaults: the transform (``min_size=800``,
    ``max_size=1333``, ``image_mean``, ``image_std``, ``**kwargs`` such as ``fixed_size``), the
    RPN (``rpn_anchor_generator``, ``rpn_head``, ``rpn_pre_nms_top_n_train/test``
    2000/1000, ``rpn_post_nms_top_n_train/test`` 2000/1000, ``rpn_nms_thresh=0.7``,
    ``rpn_fg_iou_thresh=0.7``, ``rpn_bg_iou_thresh=0.3``, ``rpn_batch_size_per_image=256``,
    ``rpn_positive_fraction=0.5``, ``rpn_score_thresh=0.0``) and the box branch
    (``box_roi_pool``, ``box_head``, ``box_predictor``, ``box_score_thresh=0.05``,
    ``box_nms_thresh=0.5``, ``box_detections_per_img=100``, ``box_fg_iou_thresh=0.5``,
    ``box_bg_iou_thresh=0.5``, ``box_batch_size_per_image=512``,
    ``box_positive_fraction=0.25``, ``bbox_reg_weights``).

    Input: a list of ``(C, H, W)`` float images in [0, 1]; in training also a list of targets
    (``boxes`` ``(N, 4)`` xyxy float, ``labels`` ``(N,)`` int64). Output: the loss dict in
    training, the detections (``boxes``, ``labels``, ``scores``) per image in eval.

    Differences from PyTorch: the RPN and RoI samplers draw with jtorch's generator.
    """

    def __init__(self, backbone, num_classes=None, min_size=800, max_size=1333, image_mean=None,
                 image_std=None, rpn_anchor_generator=None, rpn_head=None,
                 rpn_pre_nms_top_n_train=2000, rpn_pre_nms_top_n_test=1000,
                 rpn_post_nms_top_n_train=2000, rpn_post_nms_top_n_test=1000,
                 rpn_nms_thresh=0.7, rpn_fg_iou_thresh=0.7, rpn_bg_iou_thresh=0.3,
                 rpn_batch_size_per_image=256, rpn_positive_fraction=0.5, rpn_score_thresh=0.0,
                 box_roi_pool=None, box_head=None, box_predictor=None, box_score_thresh=0.05,
                 box_nms_thresh=0.5, box_detections_per_img=100, box_fg_iou_thresh=0.5,
                 box_bg_iou_thresh=0.5, box_batch_size_per_image=512, box_positive_fraction=0.25,
                 bbox_reg_weights=None, **kwargs):
        if not hasattr(backbone, "out_channels"):
            raise ValueError("backbone should contain an attribute out_channels specifying the "
                             "number of output channels (assumed to be the same for all the "
                             "levels)")
        if not isinstance(rpn_anchor_generator, (AnchorGenerator, type(None))):
            raise TypeError("rpn_anchor_generator should be of type AnchorGenerator or None "
                            f"instead of {type(rpn_anchor_generator)}")
        if not isinstance(box_roi_pool, (MultiScaleRoIAlign, type(None))):
            raise TypeError("box_roi_pool should be of type MultiScaleRoIAlign or None instead "
                            f"of {type(box_roi_pool)}")
        if num_classes is not None:
            if box_predictor is not None:
                raise ValueError("num_classes should be None when box_predictor is specified")
        elif box_predictor is None:
            raise ValueError("num_classes should not be None when box_predictor is not "
                             "specified")
        out_channels = backbone.out_channels
        if rpn_anchor_generator is None:
            rpn_anchor_generator = _default_anchorgen()
        if rpn_head is None:
            rpn_head = RPNHead(out_channels, rpn_anchor_generator.num_anchors_per_location()[0])
        rpn = RegionProposalNetwork(
            rpn_anchor_generator, rpn_head, rpn_fg_iou_thresh, rpn_bg_iou_thresh,
            rpn_batch_size_per_image, rpn_positive_fraction,
            {"training": rpn_pre_nms_top_n_train, "testing": rpn_pre_nms_top_n_test},
            {"training": rpn_post_nms_top_n_train, "testing": rpn_post_nms_top_n_test},
            rpn_nms_thresh, score_thresh=rpn_score_thresh)
        if box_roi_pool is None:
            box_roi_pool = MultiScaleRoIAlign(featmap_names=["0", "1", "2", "3"], output_size=7,
                                              sampling_ratio=2)
        if box_head is None:
            resolution = box_roi_pool.output_size[0]
            box_head = TwoMLPHead(out_channels * resolution**2, 1024)
        if box_predictor is None:
            box_predictor = FastRCNNPredictor(1024, num_classes)
        roi_heads = RoIHeads(box_roi_pool, box_head, box_predictor, box_fg_iou_thresh,
                             box_bg_iou_thresh, box_batch_size_per_image, box_positive_fraction,
                             bbox_reg_weights, box_score_thresh, box_nms_thresh,
                             box_detections_per_img)
        if image_mean is None:
            image_mean = [0.485, 0.456, 0.406]
        if image_std is None:
            image_std = [0.229, 0.224, 0.225]
        transform = GeneralizedRCNNTransform(min_size, max_size, image_mean, image_std, **kwargs)
        super().__init__(backbone, rpn, roi_heads, transform)


class TwoMLPHead(nn.Module):
    """Flatten, then two linear layers with ReLU (``fc6``, ``fc7``): the FPN box head."""

    def __init__(self, in_channels, representation_size):
        super().__init__()
        self.fc6 = nn.Linear(in_channels, representation_size)
        self.fc7 = nn.Linear(representation_size, representation_size)

    def forward(self, x):
        return F.relu(self.fc7(F.relu(self.fc6(x.flatten(start_dim=1)))))


class FastRCNNConvFCHead(nn.Sequential):
    """``Conv2dNormActivation`` blocks (``conv_layers`` channels), flatten, then linear
    layers with ReLU (``fc_layers``): the v2 box head.

    Args:
        input_size (tuple[int, int, int]): the pooled features' ``(C, H, W)``.
        conv_layers, fc_layers (list[int]), norm_layer (callable, optional)
    """

    def __init__(self, input_size, conv_layers, fc_layers, norm_layer=None):
        in_channels, in_height, in_width = input_size
        blocks = []
        previous = in_channels
        for channels in conv_layers:
            blocks.append(misc_nn_ops.Conv2dNormActivation(previous, channels,
                                                           norm_layer=norm_layer))
            previous = channels
        blocks.append(nn.Flatten())
        previous = previous * in_height * in_width
        for channels in fc_layers:
            blocks += [nn.Linear(previous, channels), nn.ReLU(inplace=True)]
            previous = channels
        super().__init__(*blocks)
        for layer in self.modules():
            if isinstance(layer, nn.Conv2d):
                nn.init.kaiming_normal_(layer.weight, mode="fan_out", nonlinearity="relu")
                if layer.bias is not None:
                    nn.init.zeros_(layer.bias)


class FastRCNNPredictor(nn.Module):
    """The class scores (``cls_score``) and per-class box deltas (``bbox_pred``) of each
    pooled feature vector.

    Args:
        in_channels (int): the features' size.
        num_classes (int): the classes, background included.
    """

    def __init__(self, in_channels, num_classes):
        super().__init__()
        self.cls_score = nn.Linear(in_channels, num_classes)
        self.bbox_pred = nn.Linear(in_channels, num_classes * 4)

    def forward(self, x):
        if x.dim() == 4:
            _assert(list(x.shape[2:]) == [1, 1], "x has the wrong shape, expecting the "
                           f"last two dimensions to be [1,1] instead of {list(x.shape[2:])}")
        x = x.flatten(start_dim=1)
        return self.cls_score(x), self.bbox_pred(x)


FasterRCNN_ResNet50_FPN_Weights = _weights_enum(__name__, "FasterRCNN_ResNet50_FPN_Weights")
FasterRCNN_ResNet50_FPN_V2_Weights = _weights_enum(__name__,
                                                   "FasterRCNN_ResNet50_FPN_V2_Weights")
FasterRCNN_MobileNet_V3_Large_FPN_Weights = _weights_enum(
    __name__, "FasterRCNN_MobileNet_V3_Large_FPN_Weights")
FasterRCNN_MobileNet_V3_Large_320_FPN_Weights = _weights_enum(
    __name__, "FasterRCNN_MobileNet_V3_Large_320_FPN_Weights")


def _v2_heads(backbone):
    """The v2 models' RPN head (two convolutions) and box head (four conv + one FC)."""
    anchor_generator = _default_anchorgen()
    rpn_head = RPNHead(backbone.out_channels, anchor_generator.num_anchors_per_location()[0],
                       conv_depth=2)
    box_head = FastRCNNConvFCHead((backbone.out_channels, 7, 7), [256, 256, 256, 256], [1024],
                                  norm_layer=nn.BatchNorm2d)
    return {"rpn_anchor_generator": anchor_generator, "rpn_head": rpn_head, "box_head": box_head}


@register_model()
@handle_legacy_interface(weights=("pretrained", FasterRCNN_ResNet50_FPN_Weights.COCO_V1),
                         weights_backbone=("pretrained_backbone",
                                           ResNet50_Weights.IMAGENET1K_V1))
def fasterrcnn_resnet50_fpn(*, weights: FasterRCNN_ResNet50_FPN_Weights | None = None,
                            progress: bool = True, num_classes: int | None = None,
                            weights_backbone: ResNet50_Weights | None = (
                                ResNet50_Weights.IMAGENET1K_V1),
                            trainable_backbone_layers: int | None = None,
                            **kwargs: Any) -> FasterRCNN:
    """Faster R-CNN with a ResNet-50-FPN backbone (`Faster R-CNN: Towards Real-Time Object
    Detection with Region Proposal Networks`).

    Args:
        weights (FasterRCNN_ResNet50_FPN_Weights, optional): COCO weights (None: random).
        progress (bool): show a download progress bar. Default True
        num_classes (int, optional): the classes, background included (default 91).
        weights_backbone (ResNet50_Weights, optional): the backbone's ImageNet weights.
            Default ``ResNet50_Weights.IMAGENET1K_V1``
        trainable_backbone_layers (int, optional): the trainable ResNet layers from the last
            (0-5; default 3 with weights, else 5).
        **kwargs: passed to ``FasterRCNN``.
    """
    weights = FasterRCNN_ResNet50_FPN_Weights.verify(weights)
    weights_backbone = ResNet50_Weights.verify(weights_backbone)
    if weights is not None:
        weights_backbone = None
    num_classes = _num_classes(weights, num_classes)
    backbone = _resnet50_fpn_backbone(weights, weights_backbone, progress,
                                      trainable_backbone_layers, v2=False)
    model = FasterRCNN(backbone, num_classes=num_classes, **kwargs)
    return _load(model, weights, progress, FasterRCNN_ResNet50_FPN_Weights.COCO_V1)


@register_model()
@handle_legacy_interface(weights=("pretrained", FasterRCNN_ResNet50_FPN_V2_Weights.COCO_V1),
                         weights_backbone=("pretrained_backbone",
                                           ResNet50_Weights.IMAGENET1K_V1))
def fasterrcnn_resnet50_fpn_v2(*, weights: FasterRCNN_ResNet50_FPN_V2_Weights | None = None,
                               progress: bool = True, num_classes: int | None = None,
                               weights_backbone: ResNet50_Weights | None = None,
                               trainable_backbone_layers: int | None = None,
                               **kwargs: Any) -> FasterRCNN:
    """Faster R-CNN v2 (`Benchmarking Detection Transfer Learning with Vision Transformers`):
    batch norm in the FPN and heads, a two-convolution RPN head and a conv-FC box head.
    Arguments as ``fasterrcnn_resnet50_fpn`` (``weights_backbone`` default None)."""
    weights = FasterRCNN_ResNet50_FPN_V2_Weights.verify(weights)
    weights_backbone = ResNet50_Weights.verify(weights_backbone)
    if weights is not None:
        weights_backbone = None
    num_classes = _num_classes(weights, num_classes)
    backbone = _resnet50_fpn_backbone(weights, weights_backbone, progress,
                                      trainable_backbone_layers, v2=True,
                                      norm_layer=nn.BatchNorm2d)
    model = FasterRCNN(backbone, num_classes=num_classes, **_v2_heads(backbone), **kwargs)
    return _load(model, weights, progress)


def _fasterrcnn_mobilenet_v3_large_fpn(*, weights, progress, num_classes, weights_backbone,
                                       trainable_backbone_layers, **kwargs):
    if weights is not None:
        weights_backbone = None
    num_classes = _num_classes(weights, num_classes)
    is_trained = weights is not None or weights_backbone is not None
    trainable = _validate_trainable_layers(is_trained, trainable_backbone_layers, 6, 3)
    norm_layer = misc_nn_ops.FrozenBatchNorm2d if is_trained else nn.BatchNorm2d
    backbone = mobilenet_v3_large(weights=weights_backbone, progress=progress,
                                  norm_layer=norm_layer)
    backbone = _mobilenet_extractor(backbone, True, trainable)
    anchor_sizes = ((32, 64, 128, 256, 512),) * 3
    anchor_generator = AnchorGenerator(anchor_sizes, ((0.5, 1.0, 2.0),) * len(anchor_sizes))
    model = FasterRCNN(backbone, num_classes, rpn_anchor_generator=anchor_generator, **kwargs)
    return _load(model, weights, progress)


@register_model()
@handle_legacy_interface(
    weights=("pretrained", FasterRCNN_MobileNet_V3_Large_320_FPN_Weights.COCO_V1),
    weights_backbone=("pretrained_backbone", MobileNet_V3_Large_Weights.IMAGENET1K_V1))
def fasterrcnn_mobilenet_v3_large_320_fpn(
        *, weights: FasterRCNN_MobileNet_V3_Large_320_FPN_Weights | None = None,
        progress: bool = True, num_classes: int | None = None,
        weights_backbone: MobileNet_V3_Large_Weights | None = (
            MobileNet_V3_Large_Weights.IMAGENET1K_V1),
        trainable_backbone_layers: int | None = None, **kwargs: Any) -> FasterRCNN:
    """Faster R-CNN with a MobileNetV3-Large-FPN backbone tuned for 320-pixel images
    (``min_size=320``, ``max_size=640``, 150 proposals at test time, ``rpn_score_thresh``
    0.05). ``trainable_backbone_layers``: 0-6 (default 3 with weights); other arguments as
    ``fasterrcnn_resnet50_fpn``."""
    weights = FasterRCNN_MobileNet_V3_Large_320_FPN_Weights.verify(weights)
    weights_backbone = MobileNet_V3_Large_Weights.verify(weights_backbone)
    defaults = {"min_size": 320, "max_size": 640, "rpn_pre_nms_top_n_test": 150,
                "rpn_post_nms_top_n_test": 150, "rpn_score_thresh": 0.05}
    return _fasterrcnn_mobilenet_v3_large_fpn(
        weights=weights, progress=progress, num_classes=num_classes,
        weights_backbone=weights_backbone, trainable_backbone_layers=trainable_backbone_layers,
        **{**defaults, **kwargs})


@register_model()
@handle_legacy_interface(
    weights=("pretrained", FasterRCNN_MobileNet_V3_Large_FPN_Weights.COCO_V1),
    weights_backbone=("pretrained_backbone", MobileNet_V3_Large_Weights.IMAGENET1K_V1))
def fasterrcnn_mobilenet_v3_large_fpn(
        *, weights: FasterRCNN_MobileNet_V3_Large_FPN_Weights | None = None,
        progress: bool = True, num_classes: int | None = None,
        weights_backbone: MobileNet_V3_Large_Weights | None = (
            MobileNet_V3_Large_Weights.IMAGENET1K_V1),
        trainable_backbone_layers: int | None = None, **kwargs: Any) -> FasterRCNN:
    """Faster R-CNN with a MobileNetV3-Large-FPN backbone (``rpn_score_thresh`` 0.05).
    ``trainable_backbone_layers``: 0-6 (default 3 with weights); other arguments as
    ``fasterrcnn_resnet50_fpn``."""
    weights = FasterRCNN_MobileNet_V3_Large_FPN_Weights.verify(weights)
    weights_backbone = MobileNet_V3_Large_Weights.verify(weights_backbone)
    return _fasterrcnn_mobilenet_v3_large_fpn(
        weights=weights, progress=progress, num_classes=num_classes,
        weights_backbone=weights_backbone, trainable_backbone_layers=trainable_backbone_layers,
        **{"rpn_score_thresh": 0.05, **kwargs})
