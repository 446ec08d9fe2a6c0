"""MobileNetV3 large and small (torchvision's ``models/mobilenetv3.py``)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from jtorch import nn

from ..._ops.shape import flatten
from ..ops.misc import Conv2dNormActivation, SqueezeExcitation as SElayer
from ._api import WeightsEnum
from ._utils import (
    _build,
    _check_stage_settings,
    _init_conv_norm_linear,
    _make_divisible,
    _model_builder,
    _weights_enum,
)

__all__ = ["MobileNetV3", "MobileNet_V3_Large_Weights", "MobileNet_V3_Small_Weights",
           "mobilenet_v3_large", "mobilenet_v3_small"]


class InvertedResidualConfig:
    """One block's configuration (channels scaled by ``width_mult``, rounded to 8)."""

    def __init__(self, input_channels: int, kernel: int, expanded_channels: int,
                 out_channels: int, use_se: bool, activation: str, stride: int, dilation: int,
                 width_mult: float):
        self.input_channels = self.adjust_channels(input_channels, width_mult)
        self.kernel = kernel
        self.expanded_channels = self.adjust_channels(expanded_channels, width_mult)
        self.out_channels = self.adjust_channels(out_channels, width_mult)
        self.use_se = use_se
        self.use_hs = activation == "HS"
        self.stride = stride
        self.dilation = dilation

    @staticmethod
    def adjust_channels(channels: int, width_mult: float):
        return _make_divisible(channels * width_mult, 8)


class InvertedResidual(nn.Module):
    """Expand, depthwise, optional squeeze-excitation, project; residual when shapes allow."""

    def __init__(self, cnf: InvertedResidualConfig, norm_layer: Callable[..., nn.Module],
                 se_layer: Callable[..., nn.Module] = partial(
                     SElayer, scale_activation=nn.Hardsigmoid)):
        super().__init__()
        if not (1 <= cnf.stride <= 2):
            raise ValueError("illegal stride value")
        self.use_res_connect = cnf.stride == 1 and cnf.input_channels == cnf.out_channels
        layers: list[nn.Module] = []
        activation_layer = nn.Hardswish if cnf.use_hs else nn.ReLU
        if cnf.expanded_channels != cnf.input_channels:
            layers.append(Conv2dNormActivation(cnf.input_channels, cnf.expanded_channels,
                                               kernel_size=1, norm_layer=norm_layer,
                                               activation_layer=activation_layer))
        stride = 1 if cnf.dilation > 1 else cnf.stride
        layers.append(Conv2dNormActivation(
            cnf.expanded_channels, cnf.expanded_channels, kernel_size=cnf.kernel, stride=stride,
            dilation=cnf.dilation, groups=cnf.expanded_channels, norm_layer=norm_layer,
            activation_layer=activation_layer))
        if cnf.use_se:
            squeeze_channels = _make_divisible(cnf.expanded_channels // 4, 8)
            layers.append(se_layer(cnf.expanded_channels, squeeze_channels))
        layers.append(Conv2dNormActivation(cnf.expanded_channels, cnf.out_channels,
                                           kernel_size=1, norm_layer=norm_layer,
                                           activation_layer=None))
        self.block = nn.Sequential(*layers)
        self.out_channels = cnf.out_channels
        self._is_cn = cnf.stride > 1

    def forward(self, input):
        result = self.block(input)
        if self.use_res_connect:
            result += input
        return result


class MobileNetV3(nn.Module):
    """MobileNet V3.

    Args:
        inverted_residual_setting (list[InvertedResidualConfig]): the blocks.
        last_channel (int): the penultimate layer's width.
        num_classes (int): classifier outputs. Default 1000
        block: default ``InvertedResidual``.
        norm_layer: default ``BatchNorm2d(eps=0.001, momentum=0.01)``.
        dropout (float): the classifier's dropout. Default 0.2

    Shape:
        - Input: ``(N, 3, H, W)``
        - Output: ``(N, num_classes)``
    """

    def __init__(self, inverted_residual_setting: list[InvertedResidualConfig],
                 last_channel: int, num_classes: int = 1000,
                 block: Callable[..., nn.Module] | None = None,
                 norm_layer: Callable[..., nn.Module] | None = None, dropout: float = 0.2,
                 **kwargs: Any) -> None:
        super().__init__()
        _check_stage_settings(inverted_residual_setting, "inverted_residual_setting",
                              InvertedResidualConfig)
        if block is None:
            block = InvertedResidual
        if norm_layer is None:
            norm_layer = partial(nn.BatchNorm2d, eps=0.001, momentum=0.01)
        first = inverted_residual_setting[0].input_channels
        layers: list[nn.Module] = [Conv2dNormActivation(
            3, first, kernel_size=3, stride=2, norm_layer=norm_layer,
            activation_layer=nn.Hardswish)]
        for cnf in inverted_residual_setting:
            layers.append(block(cnf, norm_layer))
        lastconv_input_channels = inverted_residual_setting[-1].out_channels
        lastconv_output_channels = 6 * lastconv_input_channels
        layers.append(Conv2dNormActivation(lastconv_input_channels, lastconv_output_channels,
                                           kernel_size=1, norm_layer=norm_layer,
                                           activation_layer=nn.Hardswish))
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(
            nn.Linear(lastconv_output_channels, last_channel), nn.Hardswish(inplace=True),
            nn.Dropout(p=dropout, inplace=True), nn.Linear(last_channel, num_classes))
        _init_conv_norm_linear(self, lambda w: nn.init.normal_(w, 0, 0.01))

    def _forward_impl(self, x):
        x = flatten(self.avgpool(self.features(x)), 1)
        return self.classifier(x)

    def forward(self, x):
        return self._forward_impl(x)


# Each architecture's blocks before its last stage, as (input_channels, kernel,
# expanded_channels, out_channels, use_se, activation, stride); its last stage, three 5x5
# blocks with squeeze-excitation and hardswish (the first of stride 2), given by
# (input_channels, the first block's expanded_channels, out_channels, expanded_channels); and
# the channels of the last layer. reduced_tail halves the last stage's channels (past its
# input) and the last layer's; dilated dilates the last stage.
_ARCHS = {
    "mobilenet_v3_large": (
        [(16, 3, 16, 16, False, "RE", 1), (16, 3, 64, 24, False, "RE", 2),
         (24, 3, 72, 24, False, "RE", 1), (24, 5, 72, 40, True, "RE", 2),
         (40, 5, 120, 40, True, "RE", 1), (40, 5, 120, 40, True, "RE", 1),
         (40, 3, 240, 80, False, "HS", 2), (80, 3, 200, 80, False, "HS", 1),
         (80, 3, 184, 80, False, "HS", 1), (80, 3, 184, 80, False, "HS", 1),
         (80, 3, 480, 112, True, "HS", 1), (112, 3, 672, 112, True, "HS", 1)],
        (112, 672, 160, 960), 1280),
    "mobilenet_v3_small": (
        [(16, 3, 16, 16, True, "RE", 2), (16, 3, 72, 24, False, "RE", 2),
         (24, 3, 88, 24, False, "RE", 1), (24, 5, 96, 40, True, "HS", 2),
         (40, 5, 240, 40, True, "HS", 1), (40, 5, 240, 40, True, "HS", 1),
         (40, 5, 120, 48, True, "HS", 1), (48, 5, 144, 48, True, "HS", 1)],
        (48, 288, 96, 576), 1024),
}


def _mobilenet_v3_conf(arch: str, width_mult: float = 1.0, reduced_tail: bool = False,
                       dilated: bool = False, **kwargs: Any):
    if arch not in _ARCHS:
        raise ValueError(f"Unsupported model type {arch}")
    blocks, (tail_input, first_expanded, tail_out, tail_expanded), last_channels = _ARCHS[arch]
    rd = 2 if reduced_tail else 1
    dil = 2 if dilated else 1
    c = partial(InvertedResidualConfig, width_mult=width_mult)
    setting = [c(*block, dilation=1) for block in blocks]
    setting.append(c(tail_input, 5, first_expanded, tail_out // rd, True, "HS", 2, dil))
    setting += [c(tail_out // rd, 5, tail_expanded // rd, tail_out // rd, True, "HS", 1, dil)
                for _ in range(2)]
    last_channel = InvertedResidualConfig.adjust_channels(last_channels // rd, width_mult)
    return setting, last_channel


def _mobilenet_v3(arch: str, weights: WeightsEnum | None, progress: bool,
                  kwargs: dict[str, Any]) -> MobileNetV3:
    setting, last_channel = _mobilenet_v3_conf(arch, **kwargs)
    return _build(partial(MobileNetV3, setting, last_channel), weights, progress, kwargs)


MobileNet_V3_Large_Weights = _weights_enum(__name__, "MobileNet_V3_Large_Weights")
MobileNet_V3_Small_Weights = _weights_enum(__name__, "MobileNet_V3_Small_Weights")


_CONF_KWARGS = " (and ``width_mult``, ``reduced_tail``, ``dilated`` to the configuration)"
mobilenet_v3_large = _model_builder(
    __name__, "mobilenet_v3_large", MobileNet_V3_Large_Weights, MobileNetV3,
    partial(_mobilenet_v3, "mobilenet_v3_large"),
    "MobileNetV3-Large from `Searching for MobileNetV3`.", _CONF_KWARGS)
mobilenet_v3_small = _model_builder(
    __name__, "mobilenet_v3_small", MobileNet_V3_Small_Weights, MobileNetV3,
    partial(_mobilenet_v3, "mobilenet_v3_small"), "MobileNetV3-Small.", _CONF_KWARGS)
