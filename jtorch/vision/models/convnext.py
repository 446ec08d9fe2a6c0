"""ConvNeXt Tiny/Small/Base/Large (torchvision's ``models/convnext.py``: same modules,
state_dict keys, initialization scheme and weights)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import jtorch.nn.functional as F
from jtorch import nn

from ..._ops.creation import ones
from ..ops.misc import Conv2dNormActivation, Permute
from ..ops.stochastic_depth import StochasticDepth
from ._api import WeightsEnum
from ._utils import _build, _check_stage_settings, _model_builder, _weights_enum

__all__ = ["ConvNeXt", "ConvNeXt_Tiny_Weights", "ConvNeXt_Small_Weights", "ConvNeXt_Base_Weights",
           "ConvNeXt_Large_Weights", "convnext_tiny", "convnext_small", "convnext_base",
           "convnext_large"]


class LayerNorm2d(nn.LayerNorm):
    """``nn.LayerNorm`` over the channels of an ``(N, C, H, W)`` input."""

    def forward(self, x):
        x = F.layer_norm(x.permute(0, 2, 3, 1), self.normalized_shape, self.weight, self.bias,
                         self.eps)
        return x.permute(0, 3, 1, 2)


class CNBlock(nn.Module):
    """Depthwise 7x7 convolution, LayerNorm, inverted-bottleneck MLP (channels last), scaled by
    the learned ``layer_scale``; stochastic depth on the residual."""

    def __init__(self, dim, layer_scale: float, stochastic_depth_prob: float,
                 norm_layer: Callable[..., nn.Module] | None = None) -> None:
        super().__init__()
        if norm_layer is None:
            norm_layer = partial(nn.LayerNorm, eps=1e-6)
        self.block = nn.Sequential(
            nn.Conv2d(dim, dim, kernel_size=7, padding=3, groups=dim, bias=True),
            Permute([0, 2, 3, 1]), norm_layer(dim),
            nn.Linear(in_features=dim, out_features=4 * dim, bias=True), nn.GELU(),
            nn.Linear(in_features=4 * dim, out_features=dim, bias=True), Permute([0, 3, 1, 2]))
        self.layer_scale = nn.Parameter(ones(dim, 1, 1) * layer_scale)
        self.stochastic_depth = StochasticDepth(stochastic_depth_prob, "row")

    def forward(self, input):
        result = self.stochastic_depth(self.layer_scale * self.block(input))
        result += input
        return result


class CNBlockConfig:
    """One stage: ``num_layers`` blocks of ``input_channels``, then a downsampling to
    ``out_channels`` (None: the last stage, no downsampling)."""

    def __init__(self, input_channels: int, out_channels: int | None, num_layers: int) -> None:
        self.input_channels = input_channels
        self.out_channels = out_channels
        self.num_layers = num_layers

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__}(input_channels={self.input_channels}, "
                f"out_channels={self.out_channels}, num_layers={self.num_layers})")


class ConvNeXt(nn.Module):
    """ConvNeXt (https://arxiv.org/abs/2201.03545).

    Args:
        block_setting (list[CNBlockConfig]): the stages.
        stochastic_depth_prob (float): the last block's drop probability (linear ramp from 0).
            Default 0.0
        layer_scale (float): the initial layer scale. Default 1e-6
        num_classes (int): classifier outputs. Default 1000
        block: default ``CNBlock``.
        norm_layer: default ``LayerNorm2d(eps=1e-6)``.

    Shape:
        - Input: ``(N, 3, H, W)``
        - Output: ``(N, num_classes)``
    """

    def __init__(self, block_setting: list[CNBlockConfig], stochastic_depth_prob: float = 0.0,
                 layer_scale: float = 1e-6, num_classes: int = 1000,
                 block: Callable[..., nn.Module] | None = None,
                 norm_layer: Callable[..., nn.Module] | None = None, **kwargs: Any) -> None:
        super().__init__()
        _check_stage_settings(block_setting, "block_setting", CNBlockConfig)
        if block is None:
            block = CNBlock
        if norm_layer is None:
            norm_layer = partial(LayerNorm2d, eps=1e-6)
        layers: list[nn.Module] = [Conv2dNormActivation(
            3, block_setting[0].input_channels, kernel_size=4, stride=4, padding=0,
            norm_layer=norm_layer, activation_layer=None, bias=True)]
        total_stage_blocks = sum(cnf.num_layers for cnf in block_setting)
        stage_block_id = 0
        for cnf in block_setting:
            stage: list[nn.Module] = []
            for _ in range(cnf.num_layers):
                sd_prob = stochastic_depth_prob * stage_block_id / (total_stage_blocks - 1.0)
                stage.append(block(cnf.input_channels, layer_scale, sd_prob))
                stage_block_id += 1
            layers.append(nn.Sequential(*stage))
            if cnf.out_channels is not None:
                layers.append(nn.Sequential(
                    norm_layer(cnf.input_channels),
                    nn.Conv2d(cnf.input_channels, cnf.out_channels, kernel_size=2, stride=2)))
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        last = block_setting[-1]
        last_channels = last.out_channels if last.out_channels is not None else last.input_channels
        self.classifier = nn.Sequential(norm_layer(last_channels), nn.Flatten(1),
                                        nn.Linear(last_channels, num_classes))
        for m in self.modules():
            if isinstance(m, (nn.Conv2d, nn.Linear)):
                nn.init.trunc_normal_(m.weight, std=0.02)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)

    def _forward_impl(self, x):
        return self.classifier(self.avgpool(self.features(x)))

    def forward(self, x):
        return self._forward_impl(x)


ConvNeXt_Tiny_Weights = _weights_enum(__name__, "ConvNeXt_Tiny_Weights")
ConvNeXt_Small_Weights = _weights_enum(__name__, "ConvNeXt_Small_Weights")
ConvNeXt_Base_Weights = _weights_enum(__name__, "ConvNeXt_Base_Weights")
ConvNeXt_Large_Weights = _weights_enum(__name__, "ConvNeXt_Large_Weights")


def _convnext(stages: list[tuple[int, int | None, int]], stochastic_depth_prob: float,
              weights: WeightsEnum | None, progress: bool, kwargs: dict[str, Any]) -> ConvNeXt:
    block_setting = [CNBlockConfig(*s) for s in stages]
    sd_prob = kwargs.pop("stochastic_depth_prob", stochastic_depth_prob)
    return _build(partial(ConvNeXt, block_setting, stochastic_depth_prob=sd_prob), weights,
                  progress, kwargs)


def _builder(name, weights_enum, widths, depth3, sd_prob, summary):
    stages = [(widths[0], widths[1], 3), (widths[1], widths[2], 3), (widths[2], widths[3], depth3),
              (widths[3], None, 3)]
    return _model_builder(__name__, name, weights_enum, ConvNeXt,
                          partial(_convnext, stages, sd_prob),
                          f"ConvNeXt {summary} from `A ConvNet for the 2020s`.",
                          f" (``stochastic_depth_prob`` defaults to {sd_prob})")


convnext_tiny = _builder("convnext_tiny", ConvNeXt_Tiny_Weights, (96, 192, 384, 768), 9, 0.1,
                         "Tiny")
convnext_small = _builder("convnext_small", ConvNeXt_Small_Weights, (96, 192, 384, 768), 27,
                          0.4, "Small")
convnext_base = _builder("convnext_base", ConvNeXt_Base_Weights, (128, 256, 512, 1024), 27, 0.5,
                         "Base")
convnext_large = _builder("convnext_large", ConvNeXt_Large_Weights, (192, 384, 768, 1536), 27,
                          0.5, "Large")
