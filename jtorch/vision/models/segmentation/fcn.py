"""FCN with a dilated ResNet-50/101 backbone (torchvision's ``models/segmentation/fcn.py``:
same modules, state_dict keys and weights)."""

from __future__ import annotations

from collections.abc import Callable

from jtorch import nn

from .._utils import IntermediateLayerGetter, _weights_enum
from ..resnet import ResNet, ResNet50_Weights, ResNet101_Weights, resnet50, resnet101
from ._utils import _dilated_resnet, _segmentation_builder, _SimpleSegmentationModel

__all__ = ["FCN", "FCN_ResNet50_Weights", "FCN_ResNet101_Weights", "fcn_resnet50",
           "fcn_resnet101"]


class FCN(_SimpleSegmentationModel):
    """The FCN model from `Fully Convolutional Networks for Semantic Segmentation`. Arguments
    and output as ``_SimpleSegmentationModel``'s."""


class FCNHead(nn.Sequential):
    """3x3 convolution to ``in_channels // 4``, batch norm, ReLU, dropout 0.1, then a 1x1
    convolution to ``channels``."""

    def __init__(self, in_channels: int, channels: int) -> None:
        inter_channels = in_channels // 4
        super().__init__(
            nn.Conv2d(in_channels, inter_channels, 3, padding=1, bias=False),
            nn.BatchNorm2d(inter_channels),
            nn.ReLU(),
            nn.Dropout(0.1),
            nn.Conv2d(inter_channels, channels, 1))


FCN_ResNet50_Weights = _weights_enum(__name__, "FCN_ResNet50_Weights")
FCN_ResNet101_Weights = _weights_enum(__name__, "FCN_ResNet101_Weights")


def _on_resnet(model_cls: type, head: Callable[[int, int], nn.Module]) -> Callable:
    """The ``make_model(backbone, num_classes, aux)`` of ``model_cls`` on a ResNet: ``head`` on
    layer4 (2048 channels, ``"out"``) and, with ``aux``, an ``FCNHead`` on layer3 (1024,
    ``"aux"``)."""
    def make_model(backbone: ResNet, num_classes: int, aux: bool | None):
        return_layers = {"layer4": "out"}
        if aux:
            return_layers["layer3"] = "aux"
        backbone = IntermediateLayerGetter(backbone, return_layers=return_layers)
        aux_classifier = FCNHead(1024, num_classes) if aux else None
        return model_cls(backbone, head(2048, num_classes), aux_classifier)

    return make_model


def _resnet_builders(module: str, prefix: str, weights: tuple[type, type], model_cls: type,
                     head: Callable[[int, int], nn.Module], summary: str) -> tuple:
    """The registered builders ``<prefix>_resnet50`` and ``<prefix>_resnet101`` of
    ``model_cls`` with ``head`` on a dilated ResNet-50 / ResNet-101, whose weights enums are
    ``weights``; ``summary`` opens their docstrings (``{depth}``: 50 or 101)."""
    make_model = _on_resnet(model_cls, head)
    backbones = ((50, ResNet50_Weights, resnet50), (101, ResNet101_Weights, resnet101))
    return tuple(
        _segmentation_builder(module, f"{prefix}_resnet{depth}", enum, backbone_enum,
                              _dilated_resnet(resnet, make_model), model_cls,
                              summary.format(depth=depth))
        for enum, (depth, backbone_enum, resnet) in zip(weights, backbones, strict=True))


fcn_resnet50, fcn_resnet101 = _resnet_builders(
    __name__, "fcn", (FCN_ResNet50_Weights, FCN_ResNet101_Weights), FCN, FCNHead,
    "Fully-Convolutional Network with a ResNet-{depth} backbone from `Fully Convolutional "
    "Networks for Semantic Segmentation`.")
