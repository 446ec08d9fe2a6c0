"""SqueezeNet 1.0 and 1.1 (torchvision's ``models/squeezenet.py``)."""

from __future__ import annotations

from functools import partial

from jtorch import nn
from jtorch.nn import init

from ..._ops.shape import flatten
from ..._ops.shape_copy import cat
from ._api import WeightsEnum
from ._utils import _build, _model_builder, _weights_enum

__all__ = ["SqueezeNet", "SqueezeNet1_0_Weights", "SqueezeNet1_1_Weights", "squeezenet1_0",
           "squeezenet1_1"]


class Fire(nn.Module):
    """A 1x1 squeeze convolution, then 1x1 and 3x3 expand convolutions concatenated."""

    def __init__(self, inplanes: int, squeeze_planes: int, expand1x1_planes: int,
                 expand3x3_planes: int) -> None:
        super().__init__()
        self.inplanes = inplanes
        self.squeeze = nn.Conv2d(inplanes, squeeze_planes, kernel_size=1)
        self.squeeze_activation = nn.ReLU(inplace=True)
        self.expand1x1 = nn.Conv2d(squeeze_planes, expand1x1_planes, kernel_size=1)
        self.expand1x1_activation = nn.ReLU(inplace=True)
        self.expand3x3 = nn.Conv2d(squeeze_planes, expand3x3_planes, kernel_size=3, padding=1)
        self.expand3x3_activation = nn.ReLU(inplace=True)

    def forward(self, x):
        x = self.squeeze_activation(self.squeeze(x))
        return cat([self.expand1x1_activation(self.expand1x1(x)),
                           self.expand3x3_activation(self.expand3x3(x))], 1)


class SqueezeNet(nn.Module):
    """SqueezeNet.

    Args:
        version (str): ``"1_0"`` or ``"1_1"``.
        num_classes (int): classifier outputs. Default 1000
        dropout (float): the classifier's dropout. Default 0.5

    Shape:
        - Input: ``(N, 3, H, W)``
        - Output: ``(N, num_classes)``
    """

    def __init__(self, version: str = "1_0", num_classes: int = 1000,
                 dropout: float = 0.5) -> None:
        super().__init__()
        self.num_classes = num_classes
        pool = {"kernel_size": 3, "stride": 2, "ceil_mode": True}
        if version == "1_0":
            self.features = nn.Sequential(
                nn.Conv2d(3, 96, kernel_size=7, stride=2), nn.ReLU(inplace=True),
                nn.MaxPool2d(**pool), Fire(96, 16, 64, 64), Fire(128, 16, 64, 64),
                Fire(128, 32, 128, 128), nn.MaxPool2d(**pool), Fire(256, 32, 128, 128),
                Fire(256, 48, 192, 192), Fire(384, 48, 192, 192), Fire(384, 64, 256, 256),
                nn.MaxPool2d(**pool), Fire(512, 64, 256, 256))
        elif version == "1_1":
            self.features = nn.Sequential(
                nn.Conv2d(3, 64, kernel_size=3, stride=2), nn.ReLU(inplace=True),
                nn.MaxPool2d(**pool), Fire(64, 16, 64, 64), Fire(128, 16, 64, 64),
                nn.MaxPool2d(**pool), Fire(128, 32, 128, 128), Fire(256, 32, 128, 128),
                nn.MaxPool2d(**pool), Fire(256, 48, 192, 192), Fire(384, 48, 192, 192),
                Fire(384, 64, 256, 256), Fire(512, 64, 256, 256))
        else:
            raise ValueError(f"Unsupported SqueezeNet version {version}: 1_0 or 1_1 expected")
        final_conv = nn.Conv2d(512, self.num_classes, kernel_size=1)
        self.classifier = nn.Sequential(nn.Dropout(p=dropout), final_conv, nn.ReLU(inplace=True),
                                        nn.AdaptiveAvgPool2d((1, 1)))
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                if m is final_conv:
                    init.normal_(m.weight, mean=0.0, std=0.01)
                else:
                    init.kaiming_uniform_(m.weight)
                if m.bias is not None:
                    init.constant_(m.bias, 0)

    def forward(self, x):
        return flatten(self.classifier(self.features(x)), 1)


SqueezeNet1_0_Weights = _weights_enum(__name__, "SqueezeNet1_0_Weights")
SqueezeNet1_1_Weights = _weights_enum(__name__, "SqueezeNet1_1_Weights")


def _squeezenet(version: str, weights: WeightsEnum | None, progress: bool,
                kwargs: dict) -> SqueezeNet:
    return _build(partial(SqueezeNet, version), weights, progress, kwargs)


squeezenet1_0 = _model_builder(
    __name__, "squeezenet1_0", SqueezeNet1_0_Weights, SqueezeNet, partial(_squeezenet, "1_0"),
    "SqueezeNet 1.0 from `SqueezeNet: AlexNet-level accuracy with 50x fewer parameters`.")
squeezenet1_1 = _model_builder(
    __name__, "squeezenet1_1", SqueezeNet1_1_Weights, SqueezeNet, partial(_squeezenet, "1_1"),
    "SqueezeNet 1.1 (2.4x less computation than 1.0).")
