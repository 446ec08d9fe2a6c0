"""DeepLabV3 with a dilated ResNet-50/101 or MobileNetV3-Large backbone (torchvision's
``models/segmentation/deeplabv3.py``: same modules, state_dict keys and weights)."""

from __future__ import annotations

from collections.abc import Sequence

from jtorch import nn

from ...._ops.shape_copy import cat
from ....nn.functional import interpolate
from .._utils import IntermediateLayerGetter, _weights_enum
from ..mobilenetv3 import MobileNet_V3_Large_Weights, MobileNetV3, mobilenet_v3_large
from ._utils import _mobilenet_stages, _segmentation_builder, _SimpleSegmentationModel
from .fcn import FCNHead, _resnet_builders

__all__ = ["DeepLabV3", "DeepLabV3_ResNet50_Weights", "DeepLabV3_ResNet101_Weights",
           "DeepLabV3_MobileNet_V3_Large_Weights", "deeplabv3_mobilenet_v3_large",
           "deeplabv3_resnet50", "deeplabv3_resnet101"]


class DeepLabV3(_SimpleSegmentationModel):
    """The DeepLabV3 model from `Rethinking Atrous Convolution for Semantic Image
    Segmentation`. Arguments and output as ``_SimpleSegmentationModel``'s."""


class DeepLabHead(nn.Sequential):
    """``ASPP`` (256 channels), a 3x3 convolution, batch norm, ReLU and a 1x1 convolution to
    ``num_classes``."""

    def __init__(self, in_channels: int, num_classes: int,
                 atrous_rates: Sequence[int] = (12, 24, 36)) -> None:
        super().__init__(
            ASPP(in_channels, atrous_rates),
            nn.Conv2d(256, 256, 3, padding=1, bias=False),
            nn.BatchNorm2d(256),
            nn.ReLU(),
            nn.Conv2d(256, num_classes, 1))


class ASPPConv(nn.Sequential):
    """A 3x3 convolution of dilation ``dilation`` (same size out), batch norm and ReLU."""

    def __init__(self, in_channels: int, out_channels: int, dilation: int) -> None:
        super().__init__(
            nn.Conv2d(in_channels, out_channels, 3, padding=dilation, dilation=dilation,
                      bias=False),
            nn.BatchNorm2d(out_channels),
            nn.ReLU())


class ASPPPooling(nn.Sequential):
    """Global average pooling, 1x1 convolution, batch norm and ReLU, resized back to the
    input's height and width (bilinear, a constant per channel)."""

    def __init__(self, in_channels: int, out_channels: int) -> None:
        super().__init__(
            nn.AdaptiveAvgPool2d(1),
            nn.Conv2d(in_channels, out_channels, 1, bias=False),
            nn.BatchNorm2d(out_channels),
            nn.ReLU())

    def forward(self, x):
        size = x.shape[-2:]
        for mod in self:
            x = mod(x)
        return interpolate(x, size=size, mode="bilinear", align_corners=False)


class ASPP(nn.Module):
    """Atrous spatial pyramid pooling: a 1x1 branch, one ``ASPPConv`` per rate and
    ``ASPPPooling`` (``convs``), concatenated and projected to ``out_channels`` (1x1
    convolution, batch norm, ReLU, dropout 0.5: ``project``)."""

    def __init__(self, in_channels: int, atrous_rates: Sequence[int],
                 out_channels: int = 256) -> None:
        super().__init__()
        modules = [nn.Sequential(nn.Conv2d(in_channels, out_channels, 1, bias=False),
                                 nn.BatchNorm2d(out_channels), nn.ReLU())]
        modules += [ASPPConv(in_channels, out_channels, rate) for rate in tuple(atrous_rates)]
        modules.append(ASPPPooling(in_channels, out_channels))
        self.convs = nn.ModuleList(modules)
        self.project = nn.Sequential(
            nn.Conv2d(len(self.convs) * out_channels, out_channels, 1, bias=False),
            nn.BatchNorm2d(out_channels),
            nn.ReLU(),
            nn.Dropout(0.5))

    def forward(self, x):
        return self.project(cat([conv(x) for conv in self.convs], dim=1))


DeepLabV3_ResNet50_Weights = _weights_enum(__name__, "DeepLabV3_ResNet50_Weights")
DeepLabV3_ResNet101_Weights = _weights_enum(__name__, "DeepLabV3_ResNet101_Weights")
DeepLabV3_MobileNet_V3_Large_Weights = _weights_enum(__name__,
                                                     "DeepLabV3_MobileNet_V3_Large_Weights")


def _deeplabv3_mobilenetv3(backbone: MobileNetV3, num_classes: int,
                           aux: bool | None) -> DeepLabV3:
    features = backbone.features
    aux_pos, out_pos = _mobilenet_stages(features)  # C2 (stride 8), C5 (stride 16)
    return_layers = {str(out_pos): "out"}
    if aux:
        return_layers[str(aux_pos)] = "aux"
    aux_classifier = FCNHead(features[aux_pos].out_channels, num_classes) if aux else None
    classifier = DeepLabHead(features[out_pos].out_channels, num_classes)
    return DeepLabV3(IntermediateLayerGetter(features, return_layers=return_layers),
                     classifier, aux_classifier)



def _build_mobilenet(weights_backbone, num_classes, aux_loss):
    backbone = mobilenet_v3_large(weights=weights_backbone, dilated=True)
    return _deeplabv3_mobilenetv3(backbone, num_classes, aux_loss)


_PAPER = "(`Rethinking Atrous Convolution for Semantic Image Segmentation`)."
deeplabv3_resnet50, deeplabv3_resnet101 = _resnet_builders(
    __name__, "deeplabv3", (DeepLabV3_ResNet50_Weights, DeepLabV3_ResNet101_Weights), DeepLabV3,
    DeepLabHead, "DeepLabV3 with a ResNet-{depth} backbone " + _PAPER)
deeplabv3_mobilenet_v3_large = _segmentation_builder(
    __name__, "deeplabv3_mobilenet_v3_large", DeepLabV3_MobileNet_V3_Large_Weights,
    MobileNet_V3_Large_Weights, _build_mobilenet, DeepLabV3,
    f"DeepLabV3 with a MobileNetV3-Large backbone {_PAPER}")
