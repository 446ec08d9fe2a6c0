"""ShuffleNet V2 x0.5/x1.0/x1.5/x2.0 (torchvision's ``models/shufflenetv2.py``: same modules,
state_dict keys, initialization and weights)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from jtorch import nn

from ..._ops.shape_copy import cat
from ._api import WeightsEnum
from ._utils import _build, _model_builder, _weights_enum

__all__ = ["ShuffleNetV2", "ShuffleNet_V2_X0_5_Weights", "ShuffleNet_V2_X1_0_Weights",
           "ShuffleNet_V2_X1_5_Weights", "ShuffleNet_V2_X2_0_Weights", "shufflenet_v2_x0_5",
           "shufflenet_v2_x1_0", "shufflenet_v2_x1_5", "shufflenet_v2_x2_0"]


def channel_shuffle(x, groups: int):
    """Interleaves the channels of ``groups`` groups: ``(N, g*c, H, W)`` viewed as
    ``(N, g, c, H, W)``, transposed to ``(N, c, g, H, W)`` and flattened back."""
    batchsize, num_channels, height, width = x.size()
    channels_per_group = num_channels // groups
    x = x.view(batchsize, groups, channels_per_group, height, width)
    x = x.transpose(1, 2).contiguous()
    return x.view(batchsize, num_channels, height, width)


class InvertedResidual(nn.Module):
    """The ShuffleNet V2 unit: stride 1 splits the channels in two and transforms one half
    (1x1, depthwise 3x3, 1x1); stride > 1 transforms the whole input in two branches; the
    halves are concatenated and channel-shuffled."""

    def __init__(self, inp: int, oup: int, stride: int) -> None:
        super().__init__()
        if not (1 <= stride <= 3):
            raise ValueError("illegal stride value")
        self.stride = stride
        branch_features = oup // 2
        if (self.stride == 1) and (inp != branch_features << 1):
            raise ValueError(
                f"Invalid combination of stride {stride}, inp {inp} and oup {oup} values. If "
                "stride == 1 then inp should be equal to oup // 2 << 1.")
        if self.stride > 1:
            self.branch1 = nn.Sequential(
                self.depthwise_conv(inp, inp, kernel_size=3, stride=self.stride, padding=1),
                nn.BatchNorm2d(inp),
                nn.Conv2d(inp, branch_features, kernel_size=1, stride=1, padding=0, bias=False),
                nn.BatchNorm2d(branch_features),
                nn.ReLU(inplace=True))
        else:
            self.branch1 = nn.Sequential()
        self.branch2 = nn.Sequential(
            nn.Conv2d(inp if (self.stride > 1) else branch_features, branch_features,
                      kernel_size=1, stride=1, padding=0, bias=False),
            nn.BatchNorm2d(branch_features),
            nn.ReLU(inplace=True),
            self.depthwise_conv(branch_features, branch_features, kernel_size=3,
                                stride=self.stride, padding=1),
            nn.BatchNorm2d(branch_features),
            nn.Conv2d(branch_features, branch_features, kernel_size=1, stride=1, padding=0,
                      bias=False),
            nn.BatchNorm2d(branch_features),
            nn.ReLU(inplace=True))

    @staticmethod
    def depthwise_conv(i: int, o: int, kernel_size: int, stride: int = 1, padding: int = 0,
                       bias: bool = False) -> nn.Conv2d:
        return nn.Conv2d(i, o, kernel_size, stride, padding, bias=bias, groups=i)

    def forward(self, x):
        if self.stride == 1:
            x1, x2 = x.chunk(2, dim=1)
            out = cat((x1, self.branch2(x2)), dim=1)
        else:
            out = cat((self.branch1(x), self.branch2(x)), dim=1)
        return channel_shuffle(out, 2)


class ShuffleNetV2(nn.Module):
    """ShuffleNet V2 from `ShuffleNet V2: Practical Guidelines for Efficient CNN Architecture
    Design`.

    Args:
        stages_repeats (list of 3 ints): units in stages 2-4.
        stages_out_channels (list of 5 ints): channels of conv1, stages 2-4 and conv5.
        num_classes (int): classifier outputs. Default 1000
        inverted_residual: the unit class. Default ``InvertedResidual``

    Shape:
        - Input: ``(N, 3, H, W)``
        - Output: ``(N, num_classes)``
    """

    def __init__(self, stages_repeats: list[int], stages_out_channels: list[int],
                 num_classes: int = 1000,
                 inverted_residual: Callable[..., nn.Module] = InvertedResidual) -> None:
        super().__init__()
        if len(stages_repeats) != 3:
            raise ValueError("expected stages_repeats as list of 3 positive ints")
        if len(stages_out_channels) != 5:
            raise ValueError("expected stages_out_channels as list of 5 positive ints")
        self._stage_out_channels = stages_out_channels
        input_channels = 3
        output_channels = self._stage_out_channels[0]
        self.conv1 = nn.Sequential(
            nn.Conv2d(input_channels, output_channels, 3, 2, 1, bias=False),
            nn.BatchNorm2d(output_channels), nn.ReLU(inplace=True))
        input_channels = output_channels
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        for name, repeats, output_channels in zip(("stage2", "stage3", "stage4"),
                                                  stages_repeats, self._stage_out_channels[1:]):
            seq = [inverted_residual(input_channels, output_channels, 2)]
            seq += [inverted_residual(output_channels, output_channels, 1)
                    for _ in range(repeats - 1)]
            setattr(self, name, nn.Sequential(*seq))
            input_channels = output_channels
        output_channels = self._stage_out_channels[-1]
        self.conv5 = nn.Sequential(
            nn.Conv2d(input_channels, output_channels, 1, 1, 0, bias=False),
            nn.BatchNorm2d(output_channels), nn.ReLU(inplace=True))
        self.fc = nn.Linear(output_channels, num_classes)

    def _forward_impl(self, x):
        x = self.maxpool(self.conv1(x))
        x = self.conv5(self.stage4(self.stage3(self.stage2(x))))
        return self.fc(x.mean([2, 3]))  # global average pool

    def forward(self, x):
        return self._forward_impl(x)


def _shufflenetv2(stages_repeats, stages_out_channels, weights: WeightsEnum | None,
                  progress: bool, kwargs: dict[str, Any]) -> ShuffleNetV2:
    return _build(partial(ShuffleNetV2, stages_repeats, stages_out_channels), weights, progress,
                  kwargs)


ShuffleNet_V2_X0_5_Weights = _weights_enum(__name__, "ShuffleNet_V2_X0_5_Weights")
ShuffleNet_V2_X1_0_Weights = _weights_enum(__name__, "ShuffleNet_V2_X1_0_Weights")
ShuffleNet_V2_X1_5_Weights = _weights_enum(__name__, "ShuffleNet_V2_X1_5_Weights")
ShuffleNet_V2_X2_0_Weights = _weights_enum(__name__, "ShuffleNet_V2_X2_0_Weights")


def _shufflenet_builder(name, weights_enum, stages_out_channels, width):
    return _model_builder(
        __name__, name, weights_enum, ShuffleNetV2,
        partial(_shufflenetv2, [4, 8, 4], stages_out_channels),
        f"ShuffleNet V2 with {width}x output channels, from `ShuffleNet V2: Practical Guidelines "
        "for Efficient CNN Architecture Design`.")


shufflenet_v2_x0_5 = _shufflenet_builder("shufflenet_v2_x0_5", ShuffleNet_V2_X0_5_Weights,
                                         [24, 48, 96, 192, 1024], "0.5")
shufflenet_v2_x1_0 = _shufflenet_builder("shufflenet_v2_x1_0", ShuffleNet_V2_X1_0_Weights,
                                         [24, 116, 232, 464, 1024], "1.0")
shufflenet_v2_x1_5 = _shufflenet_builder("shufflenet_v2_x1_5", ShuffleNet_V2_X1_5_Weights,
                                         [24, 176, 352, 704, 1024], "1.5")
shufflenet_v2_x2_0 = _shufflenet_builder("shufflenet_v2_x2_0", ShuffleNet_V2_X2_0_Weights,
                                         [24, 244, 488, 976, 2048], "2.0")
