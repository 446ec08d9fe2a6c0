"""Lite R-ASPP with a MobileNetV3-Large backbone (torchvision's
``models/segmentation/lraspp.py``: same modules, state_dict keys and weights)."""

from __future__ import annotations

from collections import OrderedDict

from jtorch import nn

from ....nn.functional import interpolate
from .._utils import IntermediateLayerGetter, _weights_enum
from ..mobilenetv3 import MobileNet_V3_Large_Weights, MobileNetV3, mobilenet_v3_large
from ._utils import _load, _mobilenet_stages, _register, _resolve_weights

__all__ = ["LRASPP", "LRASPP_MobileNet_V3_Large_Weights", "lraspp_mobilenet_v3_large"]


class LRASPP(nn.Module):
    """The Lite R-ASPP network from `Searching for MobileNetV3`.

    Args:
        backbone (nn.Module): returns an ``OrderedDict`` with the high-level feature map under
            ``"high"`` and the low-level one under ``"low"``.
        low_channels (int): channels of the low-level features.
        high_channels (int): channels of the high-level features.
        num_classes (int): output classes (the background included).
        inter_channels (int): channels of the intermediate computations. Default 128

    Shape:
        - Input: ``(N, 3, H, W)``
        - Output: ``OrderedDict`` with ``"out"``: ``(N, num_classes, H, W)``
    """

    def __init__(self, backbone: nn.Module, low_channels: int, high_channels: int,
                 num_classes: int, inter_channels: int = 128) -> None:
        super().__init__()
        self.backbone = backbone
        self.classifier = LRASPPHead(low_channels, high_channels, num_classes, inter_channels)

    def forward(self, input):
        out = self.classifier(self.backbone(input))
        result = OrderedDict()
        result["out"] = interpolate(out, size=input.shape[-2:], mode="bilinear",
                                    align_corners=False)
        return result


class LRASPPHead(nn.Module):
    """The high-level features through a 1x1 convolution, batch norm and ReLU (``cbr``),
    scaled by a sigmoid gate of their global average (``scale``), upsampled to the low-level
    features' size; each side then through its own 1x1 classifier, summed."""

    def __init__(self, low_channels: int, high_channels: int, num_classes: int,
                 inter_channels: int) -> None:
        super().__init__()
        self.cbr = nn.Sequential(
            nn.Conv2d(high_channels, inter_channels, 1, bias=False),
            nn.BatchNorm2d(inter_channels),
            nn.ReLU(inplace=True))
        self.scale = nn.Sequential(
            nn.AdaptiveAvgPool2d(1),
            nn.Conv2d(high_channels, inter_channels, 1, bias=False),
            nn.Sigmoid())
        self.low_classifier = nn.Conv2d(low_channels, num_classes, 1)
        self.high_classifier = nn.Conv2d(inter_channels, num_classes, 1)

    def forward(self, input):
        low, high = input["low"], input["high"]
        x = self.cbr(high) * self.scale(high)
        x = interpolate(x, size=low.shape[-2:], mode="bilinear", align_corners=False)
        return self.low_classifier(low) + self.high_classifier(x)


def _lraspp_mobilenetv3(backbone: MobileNetV3, num_classes: int) -> LRASPP:
    features = backbone.features
    low_pos, high_pos = _mobilenet_stages(features)  # C2 (stride 8), C5 (stride 16)
    getter = IntermediateLayerGetter(
        features, return_layers={str(low_pos): "low", str(high_pos): "high"})
    return LRASPP(getter, features[low_pos].out_channels, features[high_pos].out_channels,
                  num_classes)


LRASPP_MobileNet_V3_Large_Weights = _weights_enum(__name__, "LRASPP_MobileNet_V3_Large_Weights")


def lraspp_mobilenet_v3_large(*, weights=None, progress=True, num_classes=None,
                              weights_backbone=MobileNet_V3_Large_Weights.IMAGENET1K_V1,
                              **kwargs):
    if kwargs.pop("aux_loss", False):
        raise NotImplementedError("This model does not use auxiliary loss")
    weights, weights_backbone, num_classes, _ = _resolve_weights(
        weights, LRASPP_MobileNet_V3_Large_Weights, weights_backbone,
        MobileNet_V3_Large_Weights, num_classes, None)
    backbone = mobilenet_v3_large(weights=weights_backbone, dilated=True)
    return _load(_lraspp_mobilenetv3(backbone, num_classes), weights, progress)


lraspp_mobilenet_v3_large = _register(
    __name__, "lraspp_mobilenet_v3_large", lraspp_mobilenet_v3_large,
    LRASPP_MobileNet_V3_Large_Weights, MobileNet_V3_Large_Weights, LRASPP,
    """Lite R-ASPP with a MobileNetV3-Large backbone from `Searching for MobileNetV3`.

    Args:
        weights (LRASPP_MobileNet_V3_Large_Weights, optional): pre-trained weights (COCO, the
            20 Pascal VOC categories and the background; None: random init).
        progress (bool): show a download progress bar. Default True
        num_classes (int, optional): output classes, the background included (default 21;
            with ``weights`` it must be 21).
        weights_backbone (MobileNet_V3_Large_Weights, optional): the backbone's pre-trained
            weights, used only without ``weights``. Default ``IMAGENET1K_V1``
        **kwargs: unused; ``aux_loss=True`` raises NotImplementedError (no auxiliary
            classifier).
    """)
