"""DenseNet-121/161/169/201 (torchvision's ``models/densenet.py``: same modules, state_dict
keys, initialization and weights, with the old ``norm.1``-style checkpoint keys remapped)."""

from __future__ import annotations

import re
from collections import OrderedDict
from functools import partial
from typing import Any

from jtorch import nn

from ..._ops.shape import flatten
from ..._ops.shape_copy import cat
from ..._tensor import Tensor
from ...utils.checkpoint import checkpoint
from ._api import WeightsEnum
from ._utils import _model_builder, _ovewrite_named_param, _weights_enum

__all__ = ["DenseNet", "DenseNet121_Weights", "DenseNet161_Weights", "DenseNet169_Weights",
           "DenseNet201_Weights", "densenet121", "densenet161", "densenet169", "densenet201"]


class _DenseLayer(nn.Module):
    """BN-ReLU-1x1 conv (``bn_size * growth_rate`` channels) on the concatenation of all
    earlier features, then BN-ReLU-3x3 conv to ``growth_rate`` new channels (and dropout).
    ``memory_efficient``: the concatenation and bottleneck are recomputed in backward
    (``torch.utils.checkpoint``, ``use_reentrant=False``) when an input requires grad."""

    def __init__(self, num_input_features: int, growth_rate: int, bn_size: int,
                 drop_rate: float, memory_efficient: bool = False) -> None:
        super().__init__()
        self.norm1 = nn.BatchNorm2d(num_input_features)
        self.relu1 = nn.ReLU(inplace=True)
        self.conv1 = nn.Conv2d(num_input_features, bn_size * growth_rate, kernel_size=1,
                               stride=1, bias=False)
        self.norm2 = nn.BatchNorm2d(bn_size * growth_rate)
        self.relu2 = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(bn_size * growth_rate, growth_rate, kernel_size=3, stride=1,
                               padding=1, bias=False)
        self.drop_rate = float(drop_rate)
        self.memory_efficient = memory_efficient

    def bn_function(self, inputs: list) -> Tensor:
        return self.conv1(self.relu1(self.norm1(cat(list(inputs), 1))))

    def any_requires_grad(self, input: list) -> bool:
        return any(t.requires_grad for t in input)

    def call_checkpoint_bottleneck(self, input: list) -> Tensor:
        return checkpoint(lambda *inputs: self.bn_function(inputs), *input, use_reentrant=False)

    def forward(self, input):
        prev_features = [input] if isinstance(input, Tensor) else input
        if self.memory_efficient and self.any_requires_grad(prev_features):
            bottleneck_output = self.call_checkpoint_bottleneck(prev_features)
        else:
            bottleneck_output = self.bn_function(prev_features)
        new_features = self.conv2(self.relu2(self.norm2(bottleneck_output)))
        if self.drop_rate > 0:
            new_features = nn.functional.dropout(new_features, p=self.drop_rate,
                                                 training=self.training)
        return new_features


class _DenseBlock(nn.ModuleDict):
    """``num_layers`` dense layers, each fed every earlier output; returns them all
    concatenated with the block's input."""

    _version = 2

    def __init__(self, num_layers: int, num_input_features: int, bn_size: int,
                 growth_rate: int, drop_rate: float, memory_efficient: bool = False) -> None:
        super().__init__()
        for i in range(num_layers):
            self.add_module(f"denselayer{i + 1}", _DenseLayer(
                num_input_features + i * growth_rate, growth_rate=growth_rate, bn_size=bn_size,
                drop_rate=drop_rate, memory_efficient=memory_efficient))

    def forward(self, init_features):
        features = [init_features]
        for _, layer in self.items():
            features.append(layer(features))
        return cat(features, 1)


class _Transition(nn.Sequential):
    """BN-ReLU-1x1 conv, then a 2x2 average pool, between dense blocks."""

    def __init__(self, num_input_features: int, num_output_features: int) -> None:
        super().__init__()
        self.norm = nn.BatchNorm2d(num_input_features)
        self.relu = nn.ReLU(inplace=True)
        self.conv = nn.Conv2d(num_input_features, num_output_features, kernel_size=1, stride=1,
                              bias=False)
        self.pool = nn.AvgPool2d(kernel_size=2, stride=2)


class DenseNet(nn.Module):
    """DenseNet-BC from `Densely Connected Convolutional Networks`.

    Args:
        growth_rate (int): channels each layer adds (``k``). Default 32
        block_config (tuple of 4 ints): layers per dense block. Default (6, 12, 24, 16)
        num_init_features (int): channels of the first convolution. Default 64
        bn_size (int): bottleneck width factor (``bn_size * k`` channels). Default 4
        drop_rate (float): dropout after each dense layer. Default 0
        num_classes (int): classifier outputs. Default 1000
        memory_efficient (bool): recompute the bottlenecks in backward (checkpointing).
            Default False

    Shape:
        - Input: ``(N, 3, H, W)`` with H, W >= 29
        - Output: ``(N, num_classes)``
    """

    def __init__(self, growth_rate: int = 32, block_config: tuple = (6, 12, 24, 16),
                 num_init_features: int = 64, bn_size: int = 4, drop_rate: float = 0,
                 num_classes: int = 1000, memory_efficient: bool = False) -> None:
        super().__init__()
        self.features = nn.Sequential(OrderedDict([
            ("conv0", nn.Conv2d(3, num_init_features, kernel_size=7, stride=2, padding=3,
                                bias=False)),
            ("norm0", nn.BatchNorm2d(num_init_features)),
            ("relu0", nn.ReLU(inplace=True)),
            ("pool0", nn.MaxPool2d(kernel_size=3, stride=2, padding=1)),
        ]))
        num_features = num_init_features
        for i, num_layers in enumerate(block_config):
            self.features.add_module(f"denseblock{i + 1}", _DenseBlock(
                num_layers=num_layers, num_input_features=num_features, bn_size=bn_size,
                growth_rate=growth_rate, drop_rate=drop_rate, memory_efficient=memory_efficient))
            num_features = num_features + num_layers * growth_rate
            if i != len(block_config) - 1:
                self.features.add_module(f"transition{i + 1}", _Transition(
                    num_input_features=num_features, num_output_features=num_features // 2))
                num_features = num_features // 2
        self.features.add_module("norm5", nn.BatchNorm2d(num_features))
        self.classifier = nn.Linear(num_features, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight)
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)
            elif isinstance(m, nn.Linear):
                nn.init.constant_(m.bias, 0)

    def forward(self, x):
        out = nn.functional.relu(self.features(x), inplace=True)
        out = flatten(nn.functional.adaptive_avg_pool2d(out, (1, 1)), 1)
        return self.classifier(out)


# the first checkpoints named a dense layer's modules ``norm.1``, ``conv.2``, ...
_OLD_KEY = re.compile(r"^(.*denselayer\d+\.(?:norm|relu|conv))\.((?:[12])\.(?:weight|bias|"
                      r"running_mean|running_var))$")


def _load_state_dict(model: nn.Module, weights: WeightsEnum, progress: bool) -> None:
    """``weights``' checkpoint into ``model``, its old-style keys (``norm.1.weight``) renamed
    to the current ones (``norm1.weight``)."""
    state_dict = weights.get_state_dict(progress=progress, check_hash=True)
    for key in list(state_dict.keys()):
        res = _OLD_KEY.match(key)
        if res:
            state_dict[res.group(1) + res.group(2)] = state_dict.pop(key)
    model.load_state_dict(state_dict)


def _densenet(growth_rate: int, block_config: tuple, num_init_features: int,
              weights: WeightsEnum | None, progress: bool, kwargs: dict[str, Any]) -> DenseNet:
    if weights is not None:
        _ovewrite_named_param(kwargs, "num_classes", len(weights.meta["categories"]))
    model = DenseNet(growth_rate, block_config, num_init_features, **kwargs)
    if weights is not None:
        _load_state_dict(model=model, weights=weights, progress=progress)
    return model


DenseNet121_Weights = _weights_enum(__name__, "DenseNet121_Weights")
DenseNet161_Weights = _weights_enum(__name__, "DenseNet161_Weights")
DenseNet169_Weights = _weights_enum(__name__, "DenseNet169_Weights")
DenseNet201_Weights = _weights_enum(__name__, "DenseNet201_Weights")


def _densenet_builder(name, weights_enum, growth_rate, block_config, num_init_features,
                      summary):
    return _model_builder(__name__, name, weights_enum, DenseNet,
                          partial(_densenet, growth_rate, block_config, num_init_features),
                          summary)


_PAPER = "from `Densely Connected Convolutional Networks`."
densenet121 = _densenet_builder("densenet121", DenseNet121_Weights, 32, (6, 12, 24, 16), 64,
                                f"DenseNet-121 {_PAPER}")
densenet161 = _densenet_builder("densenet161", DenseNet161_Weights, 48, (6, 12, 36, 24), 96,
                                f"DenseNet-161 {_PAPER}")
densenet169 = _densenet_builder("densenet169", DenseNet169_Weights, 32, (6, 12, 32, 32), 64,
                                f"DenseNet-169 {_PAPER}")
densenet201 = _densenet_builder("densenet201", DenseNet201_Weights, 32, (6, 12, 48, 32), 64,
                                f"DenseNet-201 {_PAPER}")
