"""R3D-18, MC3-18 and R(2+1)D-18 (torchvision's ``models/video/resnet.py``: same modules,
state_dict keys, initialization scheme and Kinetics-400 weights)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from jtorch import nn

from ...._ops.shape import flatten
from .._api import WeightsEnum
from .._utils import _build, _model_builder, _weights_enum

__all__ = ["VideoResNet", "R3D_18_Weights", "MC3_18_Weights", "R2Plus1D_18_Weights", "r3d_18",
           "mc3_18", "r2plus1d_18"]


class Conv3DSimple(nn.Conv3d):
    """A 3x3x3 convolution (no bias); ``midplanes`` is unused (the builders' common
    signature)."""

    def __init__(self, in_planes: int, out_planes: int, midplanes: int | None = None,
                 stride: int = 1, padding: int = 1) -> None:
        super().__init__(in_channels=in_planes, out_channels=out_planes, kernel_size=(3, 3, 3),
                         stride=stride, padding=padding, bias=False)

    @staticmethod
    def get_downsample_stride(stride: int) -> tuple[int, int, int]:
        return stride, stride, stride


class Conv2Plus1D(nn.Sequential):
    """A (2+1)D convolution: 1x3x3 spatial to ``midplanes``, batch norm, ReLU, then 3x1x1
    temporal (no biases)."""

    def __init__(self, in_planes: int, out_planes: int, midplanes: int, stride: int = 1,
                 padding: int = 1) -> None:
        super().__init__(
            nn.Conv3d(in_planes, midplanes, kernel_size=(1, 3, 3), stride=(1, stride, stride),
                      padding=(0, padding, padding), bias=False),
            nn.BatchNorm3d(midplanes),
            nn.ReLU(inplace=True),
            nn.Conv3d(midplanes, out_planes, kernel_size=(3, 1, 1), stride=(stride, 1, 1),
                      padding=(padding, 0, 0), bias=False))

    @staticmethod
    def get_downsample_stride(stride: int) -> tuple[int, int, int]:
        return stride, stride, stride


class Conv3DNoTemporal(nn.Conv3d):
    """A 1x3x3 convolution (no bias; strided in space only)."""

    def __init__(self, in_planes: int, out_planes: int, midplanes: int | None = None,
                 stride: int = 1, padding: int = 1) -> None:
        super().__init__(in_channels=in_planes, out_channels=out_planes, kernel_size=(1, 3, 3),
                         stride=(1, stride, stride), padding=(0, padding, padding), bias=False)

    @staticmethod
    def get_downsample_stride(stride: int) -> tuple[int, int, int]:
        return 1, stride, stride


def _midplanes(inplanes: int, planes: int) -> int:
    # R(2+1)D's width: as many parameters as the 3x3x3 convolution it replaces
    return (inplanes * planes * 3 * 3 * 3) // (inplanes * 3 * 3 + 3 * planes)


class _Block(nn.Module):
    """The residual connection both blocks share."""

    def _add_residual(self, x, out):
        out += x if self.downsample is None else self.downsample(x)
        return self.relu(out)


class BasicBlock(_Block):
    """Two ``conv_builder`` convolutions (each with a batch norm) and a residual connection.

    Args: inplanes, planes, conv_builder (``Conv3DSimple``, ``Conv3DNoTemporal`` or
    ``Conv2Plus1D``), stride (default 1), downsample (the shortcut's module, optional)
    """

    expansion = 1

    def __init__(self, inplanes: int, planes: int, conv_builder: Callable[..., nn.Module],
                 stride: int = 1, downsample: nn.Module | None = None) -> None:
        midplanes = _midplanes(inplanes, planes)
        super().__init__()
        self.conv1 = nn.Sequential(conv_builder(inplanes, planes, midplanes, stride),
                                   nn.BatchNorm3d(planes), nn.ReLU(inplace=True))
        self.conv2 = nn.Sequential(conv_builder(planes, planes, midplanes),
                                   nn.BatchNorm3d(planes))
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        return self._add_residual(x, self.conv2(self.conv1(x)))


class Bottleneck(_Block):
    """1x1x1, ``conv_builder`` (with the stride), 1x1x1 to ``4 * planes``, each with a batch
    norm, and a residual connection (arguments as ``BasicBlock``)."""

    expansion = 4

    def __init__(self, inplanes: int, planes: int, conv_builder: Callable[..., nn.Module],
                 stride: int = 1, downsample: nn.Module | None = None) -> None:
        super().__init__()
        midplanes = _midplanes(inplanes, planes)
        self.conv1 = nn.Sequential(nn.Conv3d(inplanes, planes, kernel_size=1, bias=False),
                                   nn.BatchNorm3d(planes), nn.ReLU(inplace=True))
        self.conv2 = nn.Sequential(conv_builder(planes, planes, midplanes, stride),
                                   nn.BatchNorm3d(planes), nn.ReLU(inplace=True))
        self.conv3 = nn.Sequential(
            nn.Conv3d(planes, planes * self.expansion, kernel_size=1, bias=False),
            nn.BatchNorm3d(planes * self.expansion))
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        return self._add_residual(x, self.conv3(self.conv2(self.conv1(x))))


class BasicStem(nn.Sequential):
    """The default stem: a 3x7x7 convolution (stride 1x2x2) to 64 channels, batch norm, ReLU."""

    def __init__(self) -> None:
        super().__init__(
            nn.Conv3d(3, 64, kernel_size=(3, 7, 7), stride=(1, 2, 2), padding=(1, 3, 3),
                      bias=False),
            nn.BatchNorm3d(64),
            nn.ReLU(inplace=True))


class R2Plus1dStem(nn.Sequential):
    """R(2+1)D's stem: a 1x7x7 (stride 1x2x2) convolution to 45 channels, then a 3x1x1 one to
    64, each with batch norm and ReLU."""

    def __init__(self) -> None:
        super().__init__(
            nn.Conv3d(3, 45, kernel_size=(1, 7, 7), stride=(1, 2, 2), padding=(0, 3, 3),
                      bias=False),
            nn.BatchNorm3d(45),
            nn.ReLU(inplace=True),
            nn.Conv3d(45, 64, kernel_size=(3, 1, 1), stride=(1, 1, 1), padding=(1, 0, 0),
                      bias=False),
            nn.BatchNorm3d(64),
            nn.ReLU(inplace=True))


class VideoResNet(nn.Module):
    """The 3D ResNet trunk and classifier.

    Args:
        block: ``BasicBlock`` or ``Bottleneck``.
        conv_makers (list): the convolution class of each of the four stages.
        layers (list[int]): blocks per stage.
        stem (callable): makes the stem (``BasicStem`` or ``R2Plus1dStem``).
        num_classes (int): classifier outputs. Default 400
        zero_init_residual (bool): as torchvision's (which then reads ``Bottleneck.bn3``, a
            module it does not have: an AttributeError with Bottleneck blocks). Default False

    Shape:
        - Input: ``(N, 3, T, H, W)``
        - Output: ``(N, num_classes)``
    """

    def __init__(self, block: type[BasicBlock | Bottleneck], conv_makers: Sequence[type],
                 layers: list[int], stem: Callable[..., nn.Module], num_classes: int = 400,
                 zero_init_residual: bool = False) -> None:
        super().__init__()
        self.inplanes = 64
        self.stem = stem()
        self.layer1 = self._make_layer(block, conv_makers[0], 64, layers[0], stride=1)
        self.layer2 = self._make_layer(block, conv_makers[1], 128, layers[1], stride=2)
        self.layer3 = self._make_layer(block, conv_makers[2], 256, layers[2], stride=2)
        self.layer4 = self._make_layer(block, conv_makers[3], 512, layers[3], stride=2)
        self.avgpool = nn.AdaptiveAvgPool3d((1, 1, 1))
        self.fc = nn.Linear(512 * block.expansion, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv3d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                if m.bias is not None:
                    nn.init.constant_(m.bias, 0)
            elif isinstance(m, nn.BatchNorm3d):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)
            elif isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, 0, 0.01)
                nn.init.constant_(m.bias, 0)
        if zero_init_residual:
            for m in self.modules():
                if isinstance(m, Bottleneck):
                    nn.init.constant_(m.bn3.weight, 0)

    def forward(self, x):
        x = self.stem(x)
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(flatten(self.avgpool(x), 1))

    def _make_layer(self, block, conv_builder, planes: int, blocks: int,
                    stride: int = 1) -> nn.Sequential:
        downsample = None
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(
                nn.Conv3d(self.inplanes, planes * block.expansion, kernel_size=1,
                          stride=conv_builder.get_downsample_stride(stride), bias=False),
                nn.BatchNorm3d(planes * block.expansion))
        layers = [block(self.inplanes, planes, conv_builder, stride, downsample)]
        self.inplanes = planes * block.expansion
        layers += [block(self.inplanes, planes, conv_builder) for _ in range(1, blocks)]
        return nn.Sequential(*layers)


R3D_18_Weights = _weights_enum(__name__, "R3D_18_Weights")
MC3_18_Weights = _weights_enum(__name__, "MC3_18_Weights")
R2Plus1D_18_Weights = _weights_enum(__name__, "R2Plus1D_18_Weights")


def _video_resnet(conv_makers, stem):
    def build(weights: WeightsEnum | None, progress: bool, kwargs: dict[str, Any]):
        model = partial(VideoResNet, BasicBlock, conv_makers, [2, 2, 2, 2], stem)
        return _build(model, weights, progress, kwargs)
    return build


_REF = ("Reference: `A Closer Look at Spatiotemporal Convolutions for Action Recognition "
        "<https://arxiv.org/abs/1711.11248>`__.")
r3d_18 = _model_builder(
    __name__, "r3d_18", R3D_18_Weights, VideoResNet,
    _video_resnet([Conv3DSimple] * 4, BasicStem),
    f"Construct 18 layer Resnet3D model.\n\n    {_REF}", legacy_weights="KINETICS400_V1")
mc3_18 = _model_builder(
    __name__, "mc3_18", MC3_18_Weights, VideoResNet,
    _video_resnet([Conv3DSimple] + [Conv3DNoTemporal] * 3, BasicStem),
    f"Construct 18 layer Mixed Convolution network (MC3).\n\n    {_REF}",
    legacy_weights="KINETICS400_V1")
r2plus1d_18 = _model_builder(
    __name__, "r2plus1d_18", R2Plus1D_18_Weights, VideoResNet,
    _video_resnet([Conv2Plus1D] * 4, R2Plus1dStem),
    f"Construct 18 layer deep R(2+1)D network.\n\n    {_REF}", legacy_weights="KINETICS400_V1")
