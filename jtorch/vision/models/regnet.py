"""RegNetY 400MF-128GF and RegNetX 400MF-32GF (torchvision's ``models/regnet.py``: same
modules, state_dict keys, initialization scheme and weights)."""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from jtorch import nn

from ..._core.dtypes import get_default_dtype
from ..._ops.shape import flatten
from ..ops.misc import Conv2dNormActivation, SqueezeExcitation
from ._api import WeightsEnum
from ._utils import _build, _make_divisible, _model_builder, _weights_enum

__all__ = ["RegNet", "RegNet_Y_400MF_Weights", "RegNet_Y_800MF_Weights", "RegNet_Y_1_6GF_Weights",
           "RegNet_Y_3_2GF_Weights", "RegNet_Y_8GF_Weights", "RegNet_Y_16GF_Weights",
           "RegNet_Y_32GF_Weights", "RegNet_Y_128GF_Weights", "RegNet_X_400MF_Weights",
           "RegNet_X_800MF_Weights", "RegNet_X_1_6GF_Weights", "RegNet_X_3_2GF_Weights",
           "RegNet_X_8GF_Weights", "RegNet_X_16GF_Weights", "RegNet_X_32GF_Weights",
           "regnet_y_400mf", "regnet_y_800mf", "regnet_y_1_6gf", "regnet_y_3_2gf", "regnet_y_8gf",
           "regnet_y_16gf", "regnet_y_32gf", "regnet_y_128gf", "regnet_x_400mf", "regnet_x_800mf",
           "regnet_x_1_6gf", "regnet_x_3_2gf", "regnet_x_8gf", "regnet_x_16gf", "regnet_x_32gf"]


class SimpleStemIN(Conv2dNormActivation):
    """The ImageNet stem: 3x3 stride-2 convolution, norm, activation."""

    def __init__(self, width_in: int, width_out: int, norm_layer: Callable[..., nn.Module],
                 activation_layer: Callable[..., nn.Module]) -> None:
        super().__init__(width_in, width_out, kernel_size=3, stride=2, norm_layer=norm_layer,
                         activation_layer=activation_layer)


class BottleneckTransform(nn.Sequential):
    """1x1 (``a``), grouped 3x3 (``b``), optional squeeze-excitation (``se``), 1x1 (``c``)."""

    def __init__(self, width_in: int, width_out: int, stride: int,
                 norm_layer: Callable[..., nn.Module], activation_layer: Callable[..., nn.Module],
                 group_width: int, bottleneck_multiplier: float, se_ratio: float | None) -> None:
        layers: OrderedDict[str, nn.Module] = OrderedDict()
        w_b = int(round(width_out * bottleneck_multiplier))
        g = w_b // group_width
        layers["a"] = Conv2dNormActivation(width_in, w_b, kernel_size=1, stride=1,
                                           norm_layer=norm_layer,
                                           activation_layer=activation_layer)
        layers["b"] = Conv2dNormActivation(w_b, w_b, kernel_size=3, stride=stride, groups=g,
                                           norm_layer=norm_layer,
                                           activation_layer=activation_layer)
        if se_ratio:  # the reduction is relative to the block's input width
            layers["se"] = SqueezeExcitation(input_channels=w_b,
                                             squeeze_channels=int(round(se_ratio * width_in)),
                                             activation=activation_layer)
        layers["c"] = Conv2dNormActivation(w_b, width_out, kernel_size=1, stride=1,
                                           norm_layer=norm_layer, activation_layer=None)
        super().__init__(layers)


class ResBottleneckBlock(nn.Module):
    """``activation(x + f(x))``, ``x`` projected (``proj``) when the shape changes."""

    def __init__(self, width_in: int, width_out: int, stride: int,
                 norm_layer: Callable[..., nn.Module], activation_layer: Callable[..., nn.Module],
                 group_width: int = 1, bottleneck_multiplier: float = 1.0,
                 se_ratio: float | None = None) -> None:
        super().__init__()
        self.proj = None
        if width_in != width_out or stride != 1:
            self.proj = Conv2dNormActivation(width_in, width_out, kernel_size=1, stride=stride,
                                             norm_layer=norm_layer, activation_layer=None)
        self.f = BottleneckTransform(width_in, width_out, stride, norm_layer, activation_layer,
                                     group_width, bottleneck_multiplier, se_ratio)
        self.activation = activation_layer(inplace=True)

    def forward(self, x):
        x = (x if self.proj is None else self.proj(x)) + self.f(x)
        return self.activation(x)


class AnyStage(nn.Sequential):
    """``depth`` blocks named ``block{stage_index}-{i}``; the first one strides."""

    def __init__(self, width_in: int, width_out: int, stride: int, depth: int,
                 block_constructor: Callable[..., nn.Module],
                 norm_layer: Callable[..., nn.Module], activation_layer: Callable[..., nn.Module],
                 group_width: int, bottleneck_multiplier: float, se_ratio: float | None = None,
                 stage_index: int = 0) -> None:
        super().__init__()
        for i in range(depth):
            self.add_module(f"block{stage_index}-{i}", block_constructor(
                width_in if i == 0 else width_out, width_out, stride if i == 0 else 1,
                norm_layer, activation_layer, group_width, bottleneck_multiplier, se_ratio))


class BlockParams:
    """The per-stage settings of a RegNet: ``depths``, ``widths``, ``group_widths``,
    ``bottleneck_multipliers``, ``strides`` and ``se_ratio``."""

    def __init__(self, depths: list[int], widths: list[int], group_widths: list[int],
                 bottleneck_multipliers: list[float], strides: list[int],
                 se_ratio: float | None = None) -> None:
        self.depths = depths
        self.widths = widths
        self.group_widths = group_widths
        self.bottleneck_multipliers = bottleneck_multipliers
        self.strides = strides
        self.se_ratio = se_ratio

    @classmethod
    def from_init_params(cls, depth: int, w_0: int, w_a: float, w_m: float, group_width: int,
                         bottleneck_multiplier: float = 1.0, se_ratio: float | None = None,
                         **kwargs: Any) -> BlockParams:
        """The stages of the RegNet design space: block ``j`` has width ``w_0 + w_a * j``
        quantized in log space (base ``w_m``) to ``w_0 * w_m ** k`` and rounded to a multiple of
        8 (in the default dtype, as torchvision computes it); consecutive blocks of one width
        form a stage, whose width is then made compatible with its group width."""
        quant, stride = 8, 2
        if w_a < 0 or w_0 <= 0 or w_m <= 1 or w_0 % 8 != 0:
            raise ValueError("Invalid RegNet settings")
        dt = get_default_dtype().np  # torchvision's tensor arithmetic, on the host
        widths_cont = np.arange(depth, dtype=dt) * dt.type(w_a) + dt.type(w_0)
        block_capacity = np.round(np.log(widths_cont / dt.type(w_0)) / dt.type(math.log(w_m)))
        block_widths = (np.round(dt.type(w_0) * np.power(dt.type(w_m), block_capacity)
                                 / dt.type(quant)) * quant).astype(np.int32).tolist()
        num_stages = len(set(block_widths))
        splits = [w != wp for w, wp in zip(block_widths + [0], [0] + block_widths)]
        stage_widths = [w for w, t in zip(block_widths, splits[:-1]) if t]
        starts = [d for d, t in enumerate(splits) if t]
        stage_depths = [b - a for a, b in zip(starts, starts[1:])]
        bottleneck_multipliers = [bottleneck_multiplier] * num_stages
        stage_widths, group_widths = cls._adjust_widths_groups_compatibilty(
            stage_widths, bottleneck_multipliers, [group_width] * num_stages)
        return cls(depths=stage_depths, widths=stage_widths, group_widths=group_widths,
                   bottleneck_multipliers=bottleneck_multipliers, strides=[stride] * num_stages,
                   se_ratio=se_ratio)

    def _get_expanded_params(self):
        return zip(self.widths, self.strides, self.depths, self.group_widths,
                   self.bottleneck_multipliers)

    @staticmethod
    def _adjust_widths_groups_compatibilty(stage_widths: list[int], bottleneck_ratios: list[float],
                                           group_widths: list[int]):
        """Bottleneck widths rounded to multiples of their (at most as wide) group widths."""
        widths = [int(w * b) for w, b in zip(stage_widths, bottleneck_ratios)]
        group_widths_min = [min(g, w_bot) for g, w_bot in zip(group_widths, widths)]
        ws_bot = [_make_divisible(w_bot, g) for w_bot, g in zip(widths, group_widths_min)]
        stage_widths = [int(w_bot / b) for w_bot, b in zip(ws_bot, bottleneck_ratios)]
        return stage_widths, group_widths_min


class RegNet(nn.Module):
    """RegNet (https://arxiv.org/abs/2003.13678).

    Args:
        block_params (BlockParams): the stages.
        num_classes (int): Default 1000
        stem_width (int): Default 32
        stem_type: default ``SimpleStemIN``.
        block_type: default ``ResBottleneckBlock``.
        norm_layer: default ``nn.BatchNorm2d``.
        activation: default ``nn.ReLU``.

    Shape:
        - Input: ``(N, 3, H, W)``
        - Output: ``(N, num_classes)``
    """

    def __init__(self, block_params: BlockParams, num_classes: int = 1000, stem_width: int = 32,
                 stem_type: Callable[..., nn.Module] | None = None,
                 block_type: Callable[..., nn.Module] | None = None,
                 norm_layer: Callable[..., nn.Module] | None = None,
                 activation: Callable[..., nn.Module] | None = None) -> None:
        super().__init__()
        stem_type = SimpleStemIN if stem_type is None else stem_type
        norm_layer = nn.BatchNorm2d if norm_layer is None else norm_layer
        block_type = ResBottleneckBlock if block_type is None else block_type
        activation = nn.ReLU if activation is None else activation
        self.stem = stem_type(3, stem_width, norm_layer, activation)
        current_width = stem_width
        blocks = []
        for i, (width_out, stride, depth, group_width, bottleneck_multiplier) in enumerate(
                block_params._get_expanded_params()):
            blocks.append((f"block{i + 1}", AnyStage(
                current_width, width_out, stride, depth, block_type, norm_layer, activation,
                group_width, bottleneck_multiplier, block_params.se_ratio, stage_index=i + 1)))
            current_width = width_out
        self.trunk_output = nn.Sequential(OrderedDict(blocks))
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(in_features=current_width, out_features=num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                fan_out = m.kernel_size[0] * m.kernel_size[1] * m.out_channels
                nn.init.normal_(m.weight, mean=0.0, std=math.sqrt(2.0 / fan_out))
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, mean=0.0, std=0.01)
                nn.init.zeros_(m.bias)

    def forward(self, x):
        x = self.avgpool(self.trunk_output(self.stem(x)))
        return self.fc(flatten(x, start_dim=1))


def _regnet(config: dict[str, Any], weights: WeightsEnum | None, progress: bool,
            kwargs: dict[str, Any]) -> RegNet:
    params = BlockParams.from_init_params(**config, **kwargs)
    norm_layer = kwargs.pop("norm_layer", partial(nn.BatchNorm2d, eps=1e-05, momentum=0.1))
    return _build(partial(RegNet, params, norm_layer=norm_layer), weights, progress, kwargs)


# name: (depth, w_0, w_a, w_m, group_width)
_CONFIGS = {
    "y_400mf": (16, 48, 27.89, 2.09, 8), "y_800mf": (14, 56, 38.84, 2.4, 16),
    "y_1_6gf": (27, 48, 20.71, 2.65, 24), "y_3_2gf": (21, 80, 42.63, 2.66, 24),
    "y_8gf": (17, 192, 76.82, 2.19, 56), "y_16gf": (18, 200, 106.23, 2.48, 112),
    "y_32gf": (20, 232, 115.89, 2.53, 232), "y_128gf": (27, 456, 160.83, 2.52, 264),
    "x_400mf": (22, 24, 24.48, 2.54, 16), "x_800mf": (16, 56, 35.73, 2.28, 16),
    "x_1_6gf": (18, 80, 34.01, 2.25, 24), "x_3_2gf": (25, 88, 26.31, 2.25, 48),
    "x_8gf": (23, 80, 49.56, 2.88, 120), "x_16gf": (22, 216, 55.59, 2.1, 128),
    "x_32gf": (23, 320, 69.86, 2.0, 168),
}


def _builder(size):
    kind, rest = size.split("_", 1)
    depth, w_0, w_a, w_m, group_width = _CONFIGS[size]
    config = {"depth": depth, "w_0": w_0, "w_a": w_a, "w_m": w_m, "group_width": group_width}
    if kind == "y":
        config["se_ratio"] = 0.25
    enum = globals()[f"RegNet_{kind.upper()}_{rest.upper()}_Weights"]
    label = f"RegNet{kind.upper()}_{rest.upper().replace('_', '.')}"
    return _model_builder(
        __name__, f"regnet_{size}", enum, RegNet, partial(_regnet, config),
        f"Constructs a {label} architecture from `Designing Network Design Spaces`.",
        legacy_weights=None if size == "y_128gf" else "IMAGENET1K_V1")


RegNet_Y_400MF_Weights = _weights_enum(__name__, "RegNet_Y_400MF_Weights")
RegNet_Y_800MF_Weights = _weights_enum(__name__, "RegNet_Y_800MF_Weights")
RegNet_Y_1_6GF_Weights = _weights_enum(__name__, "RegNet_Y_1_6GF_Weights")
RegNet_Y_3_2GF_Weights = _weights_enum(__name__, "RegNet_Y_3_2GF_Weights")
RegNet_Y_8GF_Weights = _weights_enum(__name__, "RegNet_Y_8GF_Weights")
RegNet_Y_16GF_Weights = _weights_enum(__name__, "RegNet_Y_16GF_Weights")
RegNet_Y_32GF_Weights = _weights_enum(__name__, "RegNet_Y_32GF_Weights")
RegNet_Y_128GF_Weights = _weights_enum(__name__, "RegNet_Y_128GF_Weights")
RegNet_X_400MF_Weights = _weights_enum(__name__, "RegNet_X_400MF_Weights")
RegNet_X_800MF_Weights = _weights_enum(__name__, "RegNet_X_800MF_Weights")
RegNet_X_1_6GF_Weights = _weights_enum(__name__, "RegNet_X_1_6GF_Weights")
RegNet_X_3_2GF_Weights = _weights_enum(__name__, "RegNet_X_3_2GF_Weights")
RegNet_X_8GF_Weights = _weights_enum(__name__, "RegNet_X_8GF_Weights")
RegNet_X_16GF_Weights = _weights_enum(__name__, "RegNet_X_16GF_Weights")
RegNet_X_32GF_Weights = _weights_enum(__name__, "RegNet_X_32GF_Weights")

regnet_y_400mf = _builder("y_400mf")
regnet_y_800mf = _builder("y_800mf")
regnet_y_1_6gf = _builder("y_1_6gf")
regnet_y_3_2gf = _builder("y_3_2gf")
regnet_y_8gf = _builder("y_8gf")
regnet_y_16gf = _builder("y_16gf")
regnet_y_32gf = _builder("y_32gf")
regnet_y_128gf = _builder("y_128gf")
regnet_x_400mf = _builder("x_400mf")
regnet_x_800mf = _builder("x_800mf")
regnet_x_1_6gf = _builder("x_1_6gf")
regnet_x_3_2gf = _builder("x_3_2gf")
regnet_x_8gf = _builder("x_8gf")
regnet_x_16gf = _builder("x_16gf")
regnet_x_32gf = _builder("x_32gf")
