"""EfficientNet B0-B7 and EfficientNetV2 S/M/L (torchvision's ``models/efficientnet.py``: the
MBConv and FusedMBConv families, same modules, state_dict keys, initialization and weights)."""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from jtorch import nn

from ..._ops.shape import flatten
from ..ops.misc import Conv2dNormActivation, SqueezeExcitation
from ..ops.stochastic_depth import StochasticDepth
from ._api import WeightsEnum
from ._utils import (
    _build,
    _check_stage_settings,
    _init_conv_norm_linear,
    _make_divisible,
    _model_builder,
    _weights_enum,
)

__all__ = ["EfficientNet", "EfficientNet_B0_Weights", "EfficientNet_B1_Weights",
           "EfficientNet_B2_Weights", "EfficientNet_B3_Weights", "EfficientNet_B4_Weights",
           "EfficientNet_B5_Weights", "EfficientNet_B6_Weights", "EfficientNet_B7_Weights",
           "EfficientNet_V2_S_Weights", "EfficientNet_V2_M_Weights", "EfficientNet_V2_L_Weights",
           "efficientnet_b0", "efficientnet_b1", "efficientnet_b2", "efficientnet_b3",
           "efficientnet_b4", "efficientnet_b5", "efficientnet_b6", "efficientnet_b7",
           "efficientnet_v2_s", "efficientnet_v2_m", "efficientnet_v2_l"]


@dataclass
class _MBConvConfig:
    expand_ratio: float
    kernel: int
    stride: int
    input_channels: int
    out_channels: int
    num_layers: int
    block: Callable[..., nn.Module]

    @staticmethod
    def adjust_channels(channels: int, width_mult: float, min_value: int | None = None) -> int:
        return _make_divisible(channels * width_mult, 8, min_value)


class MBConvConfig(_MBConvConfig):
    """One MBConv stage: channels scaled by ``width_mult``, depth by ``depth_mult``."""

    def __init__(self, expand_ratio: float, kernel: int, stride: int, input_channels: int,
                 out_channels: int, num_layers: int, width_mult: float = 1.0,
                 depth_mult: float = 1.0, block: Callable[..., nn.Module] | None = None) -> None:
        input_channels = self.adjust_channels(input_channels, width_mult)
        out_channels = self.adjust_channels(out_channels, width_mult)
        num_layers = self.adjust_depth(num_layers, depth_mult)
        if block is None:
            block = MBConv
        super().__init__(expand_ratio, kernel, stride, input_channels, out_channels, num_layers,
                         block)

    @staticmethod
    def adjust_depth(num_layers: int, depth_mult: float):
        return int(math.ceil(num_layers * depth_mult))


class FusedMBConvConfig(_MBConvConfig):
    """One FusedMBConv stage (EfficientNetV2), channels and depth as given."""

    def __init__(self, expand_ratio: float, kernel: int, stride: int, input_channels: int,
                 out_channels: int, num_layers: int,
                 block: Callable[..., nn.Module] | None = None) -> None:
        if block is None:
            block = FusedMBConv
        super().__init__(expand_ratio, kernel, stride, input_channels, out_channels, num_layers,
                         block)


class _MBBlock(nn.Module):
    """What MBConv and FusedMBConv share: torchvision's stride check, ``block`` (the layers
    ``_layers`` builds around ``expanded_channels``) and stochastic depth on the residual, which
    is taken when the block keeps the input's shape."""

    def __init__(self, cnf: _MBConvConfig, stochastic_depth_prob: float,
                 norm_layer: Callable[..., nn.Module], **layer_kwargs: Any) -> None:
        super().__init__()
        if not (1 <= cnf.stride <= 2):
            raise ValueError("illegal stride value")
        self.use_res_connect = cnf.stride == 1 and cnf.input_channels == cnf.out_channels
        expanded_channels = cnf.adjust_channels(cnf.input_channels, cnf.expand_ratio)
        self.block = nn.Sequential(*self._layers(cnf, expanded_channels, norm_layer,
                                                 **layer_kwargs))
        self.stochastic_depth = StochasticDepth(stochastic_depth_prob, "row")
        self.out_channels = cnf.out_channels

    def forward(self, input):
        result = self.block(input)
        if self.use_res_connect:
            result = self.stochastic_depth(result)
            result += input
        return result


class MBConv(_MBBlock):
    """Expand, depthwise, squeeze-excitation, project; stochastic depth on the residual."""

    def __init__(self, cnf: MBConvConfig, stochastic_depth_prob: float,
                 norm_layer: Callable[..., nn.Module],
                 se_layer: Callable[..., nn.Module] = SqueezeExcitation) -> None:
        super().__init__(cnf, stochastic_depth_prob, norm_layer, se_layer=se_layer)

    @staticmethod
    def _layers(cnf, expanded_channels, norm_layer, se_layer):
        layers: list[nn.Module] = []
        act = nn.SiLU
        if expanded_channels != cnf.input_channels:
            layers.append(Conv2dNormActivation(cnf.input_channels, expanded_channels,
                                               kernel_size=1, norm_layer=norm_layer,
                                               activation_layer=act))
        layers.append(Conv2dNormActivation(expanded_channels, expanded_channels,
                                           kernel_size=cnf.kernel, stride=cnf.stride,
                                           groups=expanded_channels, norm_layer=norm_layer,
                                           activation_layer=act))
        squeeze_channels = max(1, cnf.input_channels // 4)
        layers.append(se_layer(expanded_channels, squeeze_channels,
                               activation=partial(nn.SiLU, inplace=True)))
        layers.append(Conv2dNormActivation(expanded_channels, cnf.out_channels, kernel_size=1,
                                           norm_layer=norm_layer, activation_layer=None))
        return layers


class FusedMBConv(_MBBlock):
    """A full (not depthwise) ``kernel`` convolution that expands, then a 1x1 projection (one
    convolution when nothing expands); stochastic depth on the residual."""

    def __init__(self, cnf: FusedMBConvConfig, stochastic_depth_prob: float,
                 norm_layer: Callable[..., nn.Module]) -> None:
        super().__init__(cnf, stochastic_depth_prob, norm_layer)

    @staticmethod
    def _layers(cnf, expanded_channels, norm_layer):
        act = nn.SiLU
        if expanded_channels == cnf.input_channels:
            return [Conv2dNormActivation(cnf.input_channels, cnf.out_channels,
                                         kernel_size=cnf.kernel, stride=cnf.stride,
                                         norm_layer=norm_layer, activation_layer=act)]
        return [Conv2dNormActivation(cnf.input_channels, expanded_channels,
                                     kernel_size=cnf.kernel, stride=cnf.stride,
                                     norm_layer=norm_layer, activation_layer=act),
                Conv2dNormActivation(expanded_channels, cnf.out_channels, kernel_size=1,
                                     norm_layer=norm_layer, activation_layer=None)]


class EfficientNet(nn.Module):
    """EfficientNet (V1 and V2).

    Args:
        inverted_residual_setting (Sequence[MBConvConfig]): the stages.
        dropout (float): the classifier's dropout.
        stochastic_depth_prob (float): the last block's drop probability (linear ramp).
            Default 0.2
        num_classes (int): classifier outputs. Default 1000
        norm_layer: default ``nn.BatchNorm2d``.
        last_channel (int, optional): the penultimate width (default 4x the last stage's).

    Shape:
        - Input: ``(N, 3, H, W)``
        - Output: ``(N, num_classes)``
    """

    def __init__(self, inverted_residual_setting: Sequence[_MBConvConfig], dropout: float,
                 stochastic_depth_prob: float = 0.2, num_classes: int = 1000,
                 norm_layer: Callable[..., nn.Module] | None = None,
                 last_channel: int | None = None) -> None:
        super().__init__()
        _check_stage_settings(inverted_residual_setting, "inverted_residual_setting",
                              _MBConvConfig)
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        first = inverted_residual_setting[0].input_channels
        layers: list[nn.Module] = [Conv2dNormActivation(
            3, first, kernel_size=3, stride=2, norm_layer=norm_layer, activation_layer=nn.SiLU)]
        total_stage_blocks = sum(cnf.num_layers for cnf in inverted_residual_setting)
        stage_block_id = 0
        for cnf in inverted_residual_setting:
            stage: list[nn.Module] = []
            for _ in range(cnf.num_layers):
                block_cnf = copy.copy(cnf)
                if stage:
                    block_cnf.input_channels = block_cnf.out_channels
                    block_cnf.stride = 1
                sd_prob = stochastic_depth_prob * float(stage_block_id) / total_stage_blocks
                stage.append(block_cnf.block(block_cnf, sd_prob, norm_layer))
                stage_block_id += 1
            layers.append(nn.Sequential(*stage))
        lastconv_input_channels = inverted_residual_setting[-1].out_channels
        lastconv_output_channels = (last_channel if last_channel is not None
                                    else 4 * lastconv_input_channels)
        layers.append(Conv2dNormActivation(lastconv_input_channels, lastconv_output_channels,
                                           kernel_size=1, norm_layer=norm_layer,
                                           activation_layer=nn.SiLU))
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(nn.Dropout(p=dropout, inplace=True),
                                        nn.Linear(lastconv_output_channels, num_classes))
        r = 1.0 / math.sqrt(num_classes)  # the only Linear: uniform in +-1/sqrt(out_features)
        _init_conv_norm_linear(self, lambda w: nn.init.uniform_(w, -r, r))

    def _forward_impl(self, x):
        x = flatten(self.avgpool(self.features(x)), 1)
        return self.classifier(x)

    def forward(self, x):
        return self._forward_impl(x)


def _efficientnet_conf(arch: str, **kwargs: Any):
    """The stages and ``last_channel`` of ``arch`` (``efficientnet_b*`` with ``width_mult`` and
    ``depth_mult``, or ``efficientnet_v2_s/m/l``)."""
    if arch.startswith("efficientnet_b"):
        c = partial(MBConvConfig, width_mult=kwargs.pop("width_mult"),
                    depth_mult=kwargs.pop("depth_mult"))
        setting = [c(1, 3, 1, 32, 16, 1), c(6, 3, 2, 16, 24, 2), c(6, 5, 2, 24, 40, 2),
                   c(6, 3, 2, 40, 80, 3), c(6, 5, 1, 80, 112, 3), c(6, 5, 2, 112, 192, 4),
                   c(6, 3, 1, 192, 320, 1)]
        return setting, None
    f, m = FusedMBConvConfig, MBConvConfig
    if arch.startswith("efficientnet_v2_s"):
        setting = [f(1, 3, 1, 24, 24, 2), f(4, 3, 2, 24, 48, 4), f(4, 3, 2, 48, 64, 4),
                   m(4, 3, 2, 64, 128, 6), m(6, 3, 1, 128, 160, 9), m(6, 3, 2, 160, 256, 15)]
    elif arch.startswith("efficientnet_v2_m"):
        setting = [f(1, 3, 1, 24, 24, 3), f(4, 3, 2, 24, 48, 5), f(4, 3, 2, 48, 80, 5),
                   m(4, 3, 2, 80, 160, 7), m(6, 3, 1, 160, 176, 14), m(6, 3, 2, 176, 304, 18),
                   m(6, 3, 1, 304, 512, 5)]
    elif arch.startswith("efficientnet_v2_l"):
        setting = [f(1, 3, 1, 32, 32, 4), f(4, 3, 2, 32, 64, 7), f(4, 3, 2, 64, 96, 7),
                   m(4, 3, 2, 96, 192, 10), m(6, 3, 1, 192, 224, 19), m(6, 3, 2, 224, 384, 25),
                   m(6, 3, 1, 384, 640, 7)]
    else:
        raise ValueError(f"Unsupported model type {arch}")
    return setting, 1280


EfficientNet_B0_Weights = _weights_enum(__name__, "EfficientNet_B0_Weights")
EfficientNet_B1_Weights = _weights_enum(__name__, "EfficientNet_B1_Weights")
EfficientNet_B2_Weights = _weights_enum(__name__, "EfficientNet_B2_Weights")
EfficientNet_B3_Weights = _weights_enum(__name__, "EfficientNet_B3_Weights")
EfficientNet_B4_Weights = _weights_enum(__name__, "EfficientNet_B4_Weights")
EfficientNet_B5_Weights = _weights_enum(__name__, "EfficientNet_B5_Weights")
EfficientNet_B6_Weights = _weights_enum(__name__, "EfficientNet_B6_Weights")
EfficientNet_B7_Weights = _weights_enum(__name__, "EfficientNet_B7_Weights")
EfficientNet_V2_S_Weights = _weights_enum(__name__, "EfficientNet_V2_S_Weights")
EfficientNet_V2_M_Weights = _weights_enum(__name__, "EfficientNet_V2_M_Weights")
EfficientNet_V2_L_Weights = _weights_enum(__name__, "EfficientNet_V2_L_Weights")


def _efficientnet(arch: str, conf: dict[str, Any], dropout: float, norm_layer,
                  weights: WeightsEnum | None, progress: bool,
                  kwargs: dict[str, Any]) -> EfficientNet:
    setting, last_channel = _efficientnet_conf(arch, **conf)
    extra = {} if norm_layer is None else {"norm_layer": norm_layer}
    make = partial(EfficientNet, setting, kwargs.pop("dropout", dropout),
                   last_channel=last_channel, **extra)
    return _build(make, weights, progress, kwargs)


def _builder(arch, weights_enum, dropout, norm_layer=None, **conf):
    v2 = arch.startswith("efficientnet_v2")
    label = f"EfficientNetV2-{arch[-1].upper()}" if v2 else f"EfficientNet-{arch[-2:].upper()}"
    paper = ("EfficientNetV2: Smaller Models and Faster Training" if v2 else
             "EfficientNet: Rethinking Model Scaling for Convolutional Neural\n    Networks")
    return _model_builder(
        __name__, arch, weights_enum, EfficientNet,
        partial(_efficientnet, arch, conf, dropout, norm_layer), f"{label} from `{paper}`.",
        f" (``dropout`` defaults to {dropout})")


_BN_V1_LARGE = partial(nn.BatchNorm2d, eps=0.001, momentum=0.01)
_BN_V2 = partial(nn.BatchNorm2d, eps=1e-03)

efficientnet_b0 = _builder("efficientnet_b0", EfficientNet_B0_Weights, 0.2, width_mult=1.0,
                           depth_mult=1.0)
efficientnet_b1 = _builder("efficientnet_b1", EfficientNet_B1_Weights, 0.2, width_mult=1.0,
                           depth_mult=1.1)
efficientnet_b2 = _builder("efficientnet_b2", EfficientNet_B2_Weights, 0.3, width_mult=1.1,
                           depth_mult=1.2)
efficientnet_b3 = _builder("efficientnet_b3", EfficientNet_B3_Weights, 0.3, width_mult=1.2,
                           depth_mult=1.4)
efficientnet_b4 = _builder("efficientnet_b4", EfficientNet_B4_Weights, 0.4, width_mult=1.4,
                           depth_mult=1.8)
efficientnet_b5 = _builder("efficientnet_b5", EfficientNet_B5_Weights, 0.4, _BN_V1_LARGE,
                           width_mult=1.6, depth_mult=2.2)
efficientnet_b6 = _builder("efficientnet_b6", EfficientNet_B6_Weights, 0.5, _BN_V1_LARGE,
                           width_mult=1.8, depth_mult=2.6)
efficientnet_b7 = _builder("efficientnet_b7", EfficientNet_B7_Weights, 0.5, _BN_V1_LARGE,
                           width_mult=2.0, depth_mult=3.1)
efficientnet_v2_s = _builder("efficientnet_v2_s", EfficientNet_V2_S_Weights, 0.2, _BN_V2)
efficientnet_v2_m = _builder("efficientnet_v2_m", EfficientNet_V2_M_Weights, 0.3, _BN_V2)
efficientnet_v2_l = _builder("efficientnet_v2_l", EfficientNet_V2_L_Weights, 0.4, _BN_V2)
