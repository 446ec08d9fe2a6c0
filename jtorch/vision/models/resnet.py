"""ResNet-18/34/50/101/152, ResNeXt and wide ResNet (torchvision's ``models/resnet.py``: same
modules, state_dict keys, initialization scheme and weights)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from jtorch import nn

from ..._ops.shape import flatten
from ._api import WeightsEnum
from ._utils import (
    _build,
    _init_conv_norm_linear,
    _model_builder,
    _ovewrite_named_param,
    _weights_enum,
)

__all__ = ["ResNet", "ResNet18_Weights", "ResNet34_Weights", "ResNet50_Weights",
           "ResNet101_Weights", "ResNet152_Weights", "ResNeXt50_32X4D_Weights",
           "ResNeXt101_32X8D_Weights", "ResNeXt101_64X4D_Weights", "Wide_ResNet50_2_Weights",
           "Wide_ResNet101_2_Weights", "resnet18", "resnet34", "resnet50", "resnet101",
           "resnet152", "resnext50_32x4d", "resnext101_32x8d", "resnext101_64x4d",
           "wide_resnet50_2", "wide_resnet101_2"]


def conv3x3(in_planes: int, out_planes: int, stride: int = 1, groups: int = 1,
            dilation: int = 1) -> nn.Conv2d:
    """3x3 convolution with padding."""
    return nn.Conv2d(in_planes, out_planes, kernel_size=3, stride=stride, padding=dilation,
                     groups=groups, bias=False, dilation=dilation)


def conv1x1(in_planes: int, out_planes: int, stride: int = 1) -> nn.Conv2d:
    """1x1 convolution."""
    return nn.Conv2d(in_planes, out_planes, kernel_size=1, stride=stride, bias=False)


class _ResidualBlock(nn.Module):
    """What ``BasicBlock`` and ``Bottleneck`` share: torchvision's constructor signature (the
    layers come from ``_layers``, then ``downsample``) and the residual connection."""

    def __init__(self, inplanes: int, planes: int, stride: int = 1,
                 downsample: nn.Module | None = None, groups: int = 1, base_width: int = 64,
                 dilation: int = 1, norm_layer: Callable[..., nn.Module] | None = None) -> None:
        super().__init__()
        self._layers(inplanes, planes, stride, groups, base_width, dilation,
                     nn.BatchNorm2d if norm_layer is None else norm_layer)
        self.downsample = downsample
        self.stride = stride

    def _add_identity(self, x, out):
        identity = x if self.downsample is None else self.downsample(x)
        out += identity
        return self.relu(out)


class BasicBlock(_ResidualBlock):
    """Two 3x3 convolutions with a residual connection (ResNet-18/34)."""

    expansion: int = 1

    def _layers(self, inplanes, planes, stride, groups, base_width, dilation, norm_layer):
        if groups != 1 or base_width != 64:
            raise ValueError("BasicBlock only supports groups=1 and base_width=64")
        if dilation > 1:
            raise NotImplementedError("Dilation > 1 not supported in BasicBlock")
        self.conv1 = conv3x3(inplanes, planes, stride)
        self.bn1 = norm_layer(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(planes, planes)
        self.bn2 = norm_layer(planes)

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        return self._add_identity(x, self.bn2(self.conv2(out)))


class Bottleneck(_ResidualBlock):
    """1x1, 3x3 (with the stride: "ResNet V1.5"), 1x1 convolutions with a residual
    connection (ResNet-50/101)."""

    expansion: int = 4

    def _layers(self, inplanes, planes, stride, groups, base_width, dilation, norm_layer):
        width = int(planes * (base_width / 64.0)) * groups
        self.conv1 = conv1x1(inplanes, width)
        self.bn1 = norm_layer(width)
        self.conv2 = conv3x3(width, width, stride, groups, dilation)
        self.bn2 = norm_layer(width)
        self.conv3 = conv1x1(width, planes * self.expansion)
        self.bn3 = norm_layer(planes * self.expansion)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        return self._add_identity(x, self.bn3(self.conv3(out)))


class ResNet(nn.Module):
    """The ResNet trunk and classifier.

    Args:
        block: ``BasicBlock`` or ``Bottleneck``.
        layers (list[int]): blocks per stage.
        num_classes (int): classifier outputs. Default 1000
        zero_init_residual (bool): zero the last BN of each residual branch. Default False
        groups, width_per_group: ResNeXt / wide-ResNet widths. Default 1, 64
        replace_stride_with_dilation (list[bool], optional): dilate stages 2-4 instead of
            striding.
        norm_layer: default ``nn.BatchNorm2d``.

    Shape:
        - Input: ``(N, 3, H, W)``
        - Output: ``(N, num_classes)``
    """

    def __init__(self, block, layers: list[int], num_classes: int = 1000,
                 zero_init_residual: bool = False, groups: int = 1, width_per_group: int = 64,
                 replace_stride_with_dilation: list[bool] | None = None,
                 norm_layer: Callable[..., nn.Module] | None = None) -> None:
        super().__init__()
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        self._norm_layer = norm_layer
        self.inplanes = 64
        self.dilation = 1
        if replace_stride_with_dilation is None:
            replace_stride_with_dilation = [False, False, False]
        if len(replace_stride_with_dilation) != 3:
            raise ValueError("replace_stride_with_dilation should be None or a 3-element tuple, "
                             f"got {replace_stride_with_dilation}")
        self.groups = groups
        self.base_width = width_per_group
        self.conv1 = nn.Conv2d(3, self.inplanes, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = norm_layer(self.inplanes)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(block, 64, layers[0])
        self.layer2 = self._make_layer(block, 128, layers[1], stride=2,
                                       dilate=replace_stride_with_dilation[0])
        self.layer3 = self._make_layer(block, 256, layers[2], stride=2,
                                       dilate=replace_stride_with_dilation[1])
        self.layer4 = self._make_layer(block, 512, layers[3], stride=2,
                                       dilate=replace_stride_with_dilation[2])
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512 * block.expansion, num_classes)
        _init_conv_norm_linear(self, zero_conv_bias=False)
        if zero_init_residual:
            for m in self.modules():
                if isinstance(m, Bottleneck) and m.bn3.weight is not None:
                    nn.init.constant_(m.bn3.weight, 0)
                elif isinstance(m, BasicBlock) and m.bn2.weight is not None:
                    nn.init.constant_(m.bn2.weight, 0)

    def _make_layer(self, block, planes: int, blocks: int, stride: int = 1,
                    dilate: bool = False) -> nn.Sequential:
        norm_layer = self._norm_layer
        downsample = None
        previous_dilation = self.dilation
        if dilate:
            self.dilation *= stride
            stride = 1
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(conv1x1(self.inplanes, planes * block.expansion, stride),
                                       norm_layer(planes * block.expansion))
        layers = [block(self.inplanes, planes, stride, downsample, self.groups, self.base_width,
                        previous_dilation, norm_layer)]
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            layers.append(block(self.inplanes, planes, groups=self.groups,
                                base_width=self.base_width, dilation=self.dilation,
                                norm_layer=norm_layer))
        return nn.Sequential(*layers)

    def _forward_impl(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        x = flatten(self.avgpool(x), 1)
        return self.fc(x)

    def forward(self, x):
        return self._forward_impl(x)


def _resnet(block, layers: list[int], overrides: dict[str, int], weights: WeightsEnum | None,
            progress: bool, kwargs: dict[str, Any]) -> ResNet:
    for param, value in overrides.items():  # ResNeXt / wide ResNet widths
        _ovewrite_named_param(kwargs, param, value)
    return _build(partial(ResNet, block, layers), weights, progress, kwargs)


ResNet18_Weights = _weights_enum(__name__, "ResNet18_Weights")
ResNet34_Weights = _weights_enum(__name__, "ResNet34_Weights")
ResNet50_Weights = _weights_enum(__name__, "ResNet50_Weights")
ResNet101_Weights = _weights_enum(__name__, "ResNet101_Weights")
ResNet152_Weights = _weights_enum(__name__, "ResNet152_Weights")
ResNeXt50_32X4D_Weights = _weights_enum(__name__, "ResNeXt50_32X4D_Weights")
ResNeXt101_32X8D_Weights = _weights_enum(__name__, "ResNeXt101_32X8D_Weights")
ResNeXt101_64X4D_Weights = _weights_enum(__name__, "ResNeXt101_64X4D_Weights")
Wide_ResNet50_2_Weights = _weights_enum(__name__, "Wide_ResNet50_2_Weights")
Wide_ResNet101_2_Weights = _weights_enum(__name__, "Wide_ResNet101_2_Weights")


def _resnet_builder(name, weights_enum, block, layers, summary, **overrides):
    """``overrides``: ``groups``/``width_per_group`` that the builder fixes (as torchvision's
    ``_ovewrite_named_param``: a different value passed raises)."""
    return _model_builder(__name__, name, weights_enum, ResNet,
                          partial(_resnet, block, layers, overrides), summary)


_PAPER = "from `Deep Residual Learning for Image Recognition`."
resnet18 = _resnet_builder("resnet18", ResNet18_Weights, BasicBlock, [2, 2, 2, 2],
                           f"ResNet-18 {_PAPER}")
resnet34 = _resnet_builder("resnet34", ResNet34_Weights, BasicBlock, [3, 4, 6, 3], "ResNet-34.")
resnet50 = _resnet_builder("resnet50", ResNet50_Weights, Bottleneck, [3, 4, 6, 3], "ResNet-50.")
resnet101 = _resnet_builder("resnet101", ResNet101_Weights, Bottleneck, [3, 4, 23, 3],
                            "ResNet-101.")
resnet152 = _resnet_builder("resnet152", ResNet152_Weights, Bottleneck, [3, 8, 36, 3],
                            "ResNet-152.")
_RESNEXT = "from `Aggregated Residual Transformation for Deep Neural Networks`."
resnext50_32x4d = _resnet_builder("resnext50_32x4d", ResNeXt50_32X4D_Weights, Bottleneck,
                                  [3, 4, 6, 3], f"ResNeXt-50 32x4d {_RESNEXT}", groups=32,
                                  width_per_group=4)
resnext101_32x8d = _resnet_builder("resnext101_32x8d", ResNeXt101_32X8D_Weights, Bottleneck,
                                   [3, 4, 23, 3], f"ResNeXt-101 32x8d {_RESNEXT}", groups=32,
                                   width_per_group=8)
resnext101_64x4d = _resnet_builder("resnext101_64x4d", ResNeXt101_64X4D_Weights, Bottleneck,
                                   [3, 4, 23, 3], f"ResNeXt-101 64x4d {_RESNEXT}", groups=64,
                                   width_per_group=4)
_WIDE = ("from `Wide Residual Networks`: ResNet with twice the bottleneck channels in every "
         "block.")
wide_resnet50_2 = _resnet_builder("wide_resnet50_2", Wide_ResNet50_2_Weights, Bottleneck,
                                  [3, 4, 6, 3], f"Wide ResNet-50-2 {_WIDE}", width_per_group=128)
wide_resnet101_2 = _resnet_builder("wide_resnet101_2", Wide_ResNet101_2_Weights, Bottleneck,
                                   [3, 4, 23, 3], f"Wide ResNet-101-2 {_WIDE}",
                                   width_per_group=128)
