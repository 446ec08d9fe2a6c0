"""VGG-11/13/16/19 with and without batch norm (torchvision's ``models/vgg.py``)."""

from __future__ import annotations

from functools import partial
from typing import Any

from jtorch import nn

from ..._ops.shape import flatten
from ._api import WeightsEnum
from ._utils import _build, _init_conv_norm_linear, _model_builder, _weights_enum

__all__ = ["VGG", "VGG11_Weights", "VGG11_BN_Weights", "VGG13_Weights", "VGG13_BN_Weights",
           "VGG16_Weights", "VGG16_BN_Weights", "VGG19_Weights", "VGG19_BN_Weights", "vgg11",
           "vgg11_bn", "vgg13", "vgg13_bn", "vgg16", "vgg16_bn", "vgg19", "vgg19_bn"]


class VGG(nn.Module):
    """The VGG classifier on a ``features`` trunk.

    Args:
        features (nn.Module): the convolutional trunk (``make_layers``).
        num_classes (int): classifier outputs. Default 1000
        init_weights (bool): torchvision's initialization. Default True
        dropout (float): the classifier's dropout. Default 0.5

    Shape:
        - Input: ``(N, 3, H, W)`` with H, W >= 32
        - Output: ``(N, num_classes)``
    """

    def __init__(self, features: nn.Module, num_classes: int = 1000, init_weights: bool = True,
                 dropout: float = 0.5) -> None:
        super().__init__()
        self.features = features
        self.avgpool = nn.AdaptiveAvgPool2d((7, 7))
        self.classifier = nn.Sequential(
            nn.Linear(512 * 7 * 7, 4096), nn.ReLU(True), nn.Dropout(p=dropout),
            nn.Linear(4096, 4096), nn.ReLU(True), nn.Dropout(p=dropout),
            nn.Linear(4096, num_classes))
        if init_weights:
            _init_conv_norm_linear(self, lambda w: nn.init.normal_(w, 0, 0.01),
                                   norms=nn.BatchNorm2d)

    def forward(self, x):
        x = flatten(self.avgpool(self.features(x)), 1)
        return self.classifier(x)


def make_layers(cfg: list, batch_norm: bool = False) -> nn.Sequential:
    """The convolutional trunk: ints are 3x3 conv widths, ``"M"`` a 2x2 max pool."""
    layers: list[nn.Module] = []
    in_channels = 3
    for v in cfg:
        if v == "M":
            layers += [nn.MaxPool2d(kernel_size=2, stride=2)]
        else:
            conv2d = nn.Conv2d(in_channels, v, kernel_size=3, padding=1)
            if batch_norm:
                layers += [conv2d, nn.BatchNorm2d(v), nn.ReLU(inplace=True)]
            else:
                layers += [conv2d, nn.ReLU(inplace=True)]
            in_channels = v
    return nn.Sequential(*layers)


cfgs: dict[str, list] = {
    "A": [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "B": [64, 64, "M", 128, 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "D": [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512,
          "M"],
    "E": [64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M", 512, 512, 512, 512, "M", 512,
          512, 512, 512, "M"],
}


def _vgg(cfg: str, batch_norm: bool, weights: WeightsEnum | None, progress: bool,
         kwargs: dict[str, Any]) -> VGG:
    if weights is not None:
        kwargs["init_weights"] = False
    return _build(partial(VGG, make_layers(cfgs[cfg], batch_norm=batch_norm)), weights, progress,
                  kwargs)


VGG11_Weights = _weights_enum(__name__, "VGG11_Weights")
VGG11_BN_Weights = _weights_enum(__name__, "VGG11_BN_Weights")
VGG13_Weights = _weights_enum(__name__, "VGG13_Weights")
VGG13_BN_Weights = _weights_enum(__name__, "VGG13_BN_Weights")
VGG16_Weights = _weights_enum(__name__, "VGG16_Weights")
VGG16_BN_Weights = _weights_enum(__name__, "VGG16_BN_Weights")
VGG19_Weights = _weights_enum(__name__, "VGG19_Weights")
VGG19_BN_Weights = _weights_enum(__name__, "VGG19_BN_Weights")


def _vgg_builder(name, weights_enum, cfg, batch_norm, summary):
    return _model_builder(__name__, name, weights_enum, VGG, partial(_vgg, cfg, batch_norm),
                          summary)


_PAPER = "from `Very Deep Convolutional Networks for Large-Scale Image Recognition`."
vgg11 = _vgg_builder("vgg11", VGG11_Weights, "A", False, f"VGG-11 {_PAPER}")
vgg11_bn = _vgg_builder("vgg11_bn", VGG11_BN_Weights, "A", True, "VGG-11 with batch normalization.")
vgg13 = _vgg_builder("vgg13", VGG13_Weights, "B", False, "VGG-13.")
vgg13_bn = _vgg_builder("vgg13_bn", VGG13_BN_Weights, "B", True, "VGG-13 with batch normalization.")
vgg16 = _vgg_builder("vgg16", VGG16_Weights, "D", False, "VGG-16.")
vgg16_bn = _vgg_builder("vgg16_bn", VGG16_BN_Weights, "D", True, "VGG-16 with batch normalization.")
vgg19 = _vgg_builder("vgg19", VGG19_Weights, "E", False, "VGG-19.")
vgg19_bn = _vgg_builder("vgg19_bn", VGG19_BN_Weights, "E", True, "VGG-19 with batch normalization.")
