"""VGG-11/16 with and without batch norm (torchvision's ``models/vgg.py``)."""

from __future__ import annotations

from typing import Any

from jtorch import nn

from ..._ops.shape import flatten
from ._api import WeightsEnum, register_model
from ._utils import _imagenet1k, _load_weights, _ovewrite_named_param, handle_legacy_interface

__all__ = ["VGG", "VGG11_Weights", "VGG11_BN_Weights", "VGG16_Weights", "VGG16_BN_Weights",
           "vgg11", "vgg11_bn", "vgg16", "vgg16_bn"]


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
            for m in self.modules():
                if isinstance(m, nn.Conv2d):
                    nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                    if m.bias is not None:
                        nn.init.constant_(m.bias, 0)
                elif isinstance(m, nn.BatchNorm2d):
                    nn.init.constant_(m.weight, 1)
                    nn.init.constant_(m.bias, 0)
                elif isinstance(m, nn.Linear):
                    nn.init.normal_(m.weight, 0, 0.01)
                    nn.init.constant_(m.bias, 0)

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
         **kwargs: Any) -> VGG:
    if weights is not None:
        kwargs["init_weights"] = False
        if weights.meta["categories"] is not None:
            _ovewrite_named_param(kwargs, "num_classes", len(weights.meta["categories"]))
    return _load_weights(VGG(make_layers(cfgs[cfg], batch_norm=batch_norm), **kwargs), weights,
                         progress)


_RECIPE = "https://github.com/pytorch/vision/tree/main/references/classification#alexnet-and-vgg"


def _vgg_weights(url, num_params, acc1, acc5, ops, file_size, **kw):
    return _imagenet1k(url, num_params=num_params, min_size=(32, 32), recipe=_RECIPE, acc1=acc1,
                       acc5=acc5, ops=ops, file_size=file_size, **kw)


class VGG11_Weights(WeightsEnum):
    IMAGENET1K_V1 = _vgg_weights("https://download.pytorch.org/models/vgg11-8a719046.pth",
                                 132863336, 69.020, 88.628, 7.609, 506.84)
    DEFAULT = IMAGENET1K_V1


class VGG11_BN_Weights(WeightsEnum):
    IMAGENET1K_V1 = _vgg_weights("https://download.pytorch.org/models/vgg11_bn-6002323d.pth",
                                 132868840, 70.370, 89.810, 7.609, 506.881)
    DEFAULT = IMAGENET1K_V1


class VGG16_Weights(WeightsEnum):
    IMAGENET1K_V1 = _vgg_weights("https://download.pytorch.org/models/vgg16-397923af.pth",
                                 138357544, 71.592, 90.382, 15.47, 527.796)
    # the features of amdegroot's SSD port: the classifier holds no trained values
    IMAGENET1K_FEATURES = _vgg_weights(
        "https://download.pytorch.org/models/vgg16_features-amdegroot-88682ab5.pth", 138357544,
        float("nan"), float("nan"), 15.47, 527.802,
        transforms={"crop_size": 224, "mean": (0.48235, 0.45882, 0.40784),
                    "std": (1.0 / 255.0, 1.0 / 255.0, 1.0 / 255.0)})
    DEFAULT = IMAGENET1K_V1


VGG16_Weights.IMAGENET1K_FEATURES.meta.update(
    categories=None, recipe="https://github.com/amdegroot/ssd.pytorch#training-ssd")


class VGG16_BN_Weights(WeightsEnum):
    IMAGENET1K_V1 = _vgg_weights("https://download.pytorch.org/models/vgg16_bn-6c64b313.pth",
                                 138365992, 73.360, 91.516, 15.47, 527.866)
    DEFAULT = IMAGENET1K_V1


@register_model()
@handle_legacy_interface(weights=("pretrained", VGG11_Weights.IMAGENET1K_V1))
def vgg11(*, weights: VGG11_Weights | None = None, progress: bool = True, **kwargs: Any) -> VGG:
    """VGG-11 from `Very Deep Convolutional Networks for Large-Scale Image Recognition`.

    Args:
        weights (VGG11_Weights, optional): pre-trained weights (None: random init).
        progress (bool): show a download progress bar. Default True
        **kwargs: passed to ``VGG``.
    """
    weights = VGG11_Weights.verify(weights)
    return _vgg("A", False, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", VGG11_BN_Weights.IMAGENET1K_V1))
def vgg11_bn(*, weights: VGG11_BN_Weights | None = None, progress: bool = True,
             **kwargs: Any) -> VGG:
    """VGG-11 with batch normalization.

    Args:
        weights (VGG11_BN_Weights, optional): pre-trained weights (None: random init).
        progress (bool): show a download progress bar. Default True
        **kwargs: passed to ``VGG``.
    """
    weights = VGG11_BN_Weights.verify(weights)
    return _vgg("A", True, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", VGG16_Weights.IMAGENET1K_V1))
def vgg16(*, weights: VGG16_Weights | None = None, progress: bool = True, **kwargs: Any) -> VGG:
    """VGG-16.

    Args:
        weights (VGG16_Weights, optional): pre-trained weights (None: random init).
        progress (bool): show a download progress bar. Default True
        **kwargs: passed to ``VGG``.
    """
    weights = VGG16_Weights.verify(weights)
    return _vgg("D", False, weights, progress, **kwargs)


@register_model()
@handle_legacy_interface(weights=("pretrained", VGG16_BN_Weights.IMAGENET1K_V1))
def vgg16_bn(*, weights: VGG16_BN_Weights | None = None, progress: bool = True,
             **kwargs: Any) -> VGG:
    """VGG-16 with batch normalization.

    Args:
        weights (VGG16_BN_Weights, optional): pre-trained weights (None: random init).
        progress (bool): show a download progress bar. Default True
        **kwargs: passed to ``VGG``.
    """
    weights = VGG16_BN_Weights.verify(weights)
    return _vgg("D", True, weights, progress, **kwargs)
