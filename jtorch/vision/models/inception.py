"""Inception v3 (torchvision's ``models/inception.py``: same modules, state_dict keys,
initialization, outputs and weights)."""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable
from typing import Any

from jtorch import nn

from ..._ops.shape import flatten
from ..._ops.shape_copy import cat
from ..._tensor import Tensor
from ._api import WeightsEnum
from ._utils import _model_builder, _weights_enum
from .googlenet import (
    BasicConv2d,
    _Branches,
    _build_pretrained_inception,
    _conv,
    _default_init_warning,
    _init_weights,
    _transform_input,
)

__all__ = ["Inception3", "InceptionOutputs", "_InceptionOutputs", "Inception_V3_Weights",
           "inception_v3"]

InceptionOutputs = namedtuple("InceptionOutputs", ["logits", "aux_logits"])
InceptionOutputs.__annotations__ = {"logits": Tensor, "aux_logits": Tensor | None}
_InceptionOutputs = InceptionOutputs  # torchvision's backward-compatible alias

F = nn.functional


class InceptionA(_Branches):
    """35x35 block: 1x1, 5x5, double 3x3 and average-pool branches."""

    def __init__(self, in_channels: int, pool_features: int,
                 conv_block: Callable[..., nn.Module] | None = None) -> None:
        super().__init__()
        conv_block = _conv(conv_block)
        self.branch1x1 = conv_block(in_channels, 64, kernel_size=1)
        self.branch5x5_1 = conv_block(in_channels, 48, kernel_size=1)
        self.branch5x5_2 = conv_block(48, 64, kernel_size=5, padding=2)
        self.branch3x3dbl_1 = conv_block(in_channels, 64, kernel_size=1)
        self.branch3x3dbl_2 = conv_block(64, 96, kernel_size=3, padding=1)
        self.branch3x3dbl_3 = conv_block(96, 96, kernel_size=3, padding=1)
        self.branch_pool = conv_block(in_channels, pool_features, kernel_size=1)

    def _forward(self, x):
        branch5x5 = self.branch5x5_2(self.branch5x5_1(x))
        branch3x3dbl = self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x)))
        branch_pool = self.branch_pool(F.avg_pool2d(x, kernel_size=3, stride=1, padding=1))
        return [self.branch1x1(x), branch5x5, branch3x3dbl, branch_pool]


class InceptionB(_Branches):
    """Grid reduction 35 -> 17: strided 3x3, double 3x3 and max-pool branches."""

    def __init__(self, in_channels: int,
                 conv_block: Callable[..., nn.Module] | None = None) -> None:
        super().__init__()
        conv_block = _conv(conv_block)
        self.branch3x3 = conv_block(in_channels, 384, kernel_size=3, stride=2)
        self.branch3x3dbl_1 = conv_block(in_channels, 64, kernel_size=1)
        self.branch3x3dbl_2 = conv_block(64, 96, kernel_size=3, padding=1)
        self.branch3x3dbl_3 = conv_block(96, 96, kernel_size=3, stride=2)

    def _forward(self, x):
        branch3x3dbl = self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x)))
        return [self.branch3x3(x), branch3x3dbl, F.max_pool2d(x, kernel_size=3, stride=2)]


class InceptionC(_Branches):
    """17x17 block with factorized 7x7 convolutions (1x7 and 7x1)."""

    def __init__(self, in_channels: int, channels_7x7: int,
                 conv_block: Callable[..., nn.Module] | None = None) -> None:
        super().__init__()
        conv_block = _conv(conv_block)
        self.branch1x1 = conv_block(in_channels, 192, kernel_size=1)
        c7 = channels_7x7
        self.branch7x7_1 = conv_block(in_channels, c7, kernel_size=1)
        self.branch7x7_2 = conv_block(c7, c7, kernel_size=(1, 7), padding=(0, 3))
        self.branch7x7_3 = conv_block(c7, 192, kernel_size=(7, 1), padding=(3, 0))
        self.branch7x7dbl_1 = conv_block(in_channels, c7, kernel_size=1)
        self.branch7x7dbl_2 = conv_block(c7, c7, kernel_size=(7, 1), padding=(3, 0))
        self.branch7x7dbl_3 = conv_block(c7, c7, kernel_size=(1, 7), padding=(0, 3))
        self.branch7x7dbl_4 = conv_block(c7, c7, kernel_size=(7, 1), padding=(3, 0))
        self.branch7x7dbl_5 = conv_block(c7, 192, kernel_size=(1, 7), padding=(0, 3))
        self.branch_pool = conv_block(in_channels, 192, kernel_size=1)

    def _forward(self, x):
        branch7x7 = self.branch7x7_3(self.branch7x7_2(self.branch7x7_1(x)))
        branch7x7dbl = self.branch7x7dbl_1(x)
        for layer in (self.branch7x7dbl_2, self.branch7x7dbl_3, self.branch7x7dbl_4,
                      self.branch7x7dbl_5):
            branch7x7dbl = layer(branch7x7dbl)
        branch_pool = self.branch_pool(F.avg_pool2d(x, kernel_size=3, stride=1, padding=1))
        return [self.branch1x1(x), branch7x7, branch7x7dbl, branch_pool]


class InceptionD(_Branches):
    """Grid reduction 17 -> 8: 3x3 and 7x7-then-3x3 strided branches, max pool."""

    def __init__(self, in_channels: int,
                 conv_block: Callable[..., nn.Module] | None = None) -> None:
        super().__init__()
        conv_block = _conv(conv_block)
        self.branch3x3_1 = conv_block(in_channels, 192, kernel_size=1)
        self.branch3x3_2 = conv_block(192, 320, kernel_size=3, stride=2)
        self.branch7x7x3_1 = conv_block(in_channels, 192, kernel_size=1)
        self.branch7x7x3_2 = conv_block(192, 192, kernel_size=(1, 7), padding=(0, 3))
        self.branch7x7x3_3 = conv_block(192, 192, kernel_size=(7, 1), padding=(3, 0))
        self.branch7x7x3_4 = conv_block(192, 192, kernel_size=3, stride=2)

    def _forward(self, x):
        branch3x3 = self.branch3x3_2(self.branch3x3_1(x))
        branch7x7x3 = self.branch7x7x3_1(x)
        for layer in (self.branch7x7x3_2, self.branch7x7x3_3, self.branch7x7x3_4):
            branch7x7x3 = layer(branch7x7x3)
        return [branch3x3, branch7x7x3, F.max_pool2d(x, kernel_size=3, stride=2)]


class InceptionE(_Branches):
    """8x8 block with expanded filter banks (parallel 1x3 and 3x1 convolutions)."""

    def __init__(self, in_channels: int,
                 conv_block: Callable[..., nn.Module] | None = None) -> None:
        super().__init__()
        conv_block = _conv(conv_block)
        self.branch1x1 = conv_block(in_channels, 320, kernel_size=1)
        self.branch3x3_1 = conv_block(in_channels, 384, kernel_size=1)
        self.branch3x3_2a = conv_block(384, 384, kernel_size=(1, 3), padding=(0, 1))
        self.branch3x3_2b = conv_block(384, 384, kernel_size=(3, 1), padding=(1, 0))
        self.branch3x3dbl_1 = conv_block(in_channels, 448, kernel_size=1)
        self.branch3x3dbl_2 = conv_block(448, 384, kernel_size=3, padding=1)
        self.branch3x3dbl_3a = conv_block(384, 384, kernel_size=(1, 3), padding=(0, 1))
        self.branch3x3dbl_3b = conv_block(384, 384, kernel_size=(3, 1), padding=(1, 0))
        self.branch_pool = conv_block(in_channels, 192, kernel_size=1)

    def _forward(self, x):
        b = self.branch3x3_1(x)
        branch3x3 = cat([self.branch3x3_2a(b), self.branch3x3_2b(b)], 1)
        b = self.branch3x3dbl_2(self.branch3x3dbl_1(x))
        branch3x3dbl = cat([self.branch3x3dbl_3a(b), self.branch3x3dbl_3b(b)], 1)
        branch_pool = self.branch_pool(F.avg_pool2d(x, kernel_size=3, stride=1, padding=1))
        return [self.branch1x1(x), branch3x3, branch3x3dbl, branch_pool]


class InceptionAux(nn.Module):
    """The auxiliary classifier on the 17x17 grid (``stddev``: its init's scale)."""

    def __init__(self, in_channels: int, num_classes: int,
                 conv_block: Callable[..., nn.Module] | None = None) -> None:
        super().__init__()
        conv_block = _conv(conv_block)
        self.conv0 = conv_block(in_channels, 128, kernel_size=1)
        self.conv1 = conv_block(128, 768, kernel_size=5)
        self.conv1.stddev = 0.01
        self.fc = nn.Linear(768, num_classes)
        self.fc.stddev = 0.001

    def forward(self, x):
        x = self.conv1(self.conv0(F.avg_pool2d(x, kernel_size=5, stride=3)))
        return self.fc(flatten(F.adaptive_avg_pool2d(x, (1, 1)), 1))


class Inception3(nn.Module):
    """Inception v3 from `Rethinking the Inception Architecture for Computer Vision`.

    Args:
        num_classes (int): classifier outputs. Default 1000
        aux_logits (bool): build the auxiliary classifier (used in train mode). Default True
        transform_input (bool): re-normalize ImageNet-normalized inputs for the ported
            weights. Default False
        inception_blocks (list, optional): the 7 block classes (``BasicConv2d``,
            ``InceptionA`` ... ``InceptionE``, ``InceptionAux``)
        init_weights (bool, optional): truncated-normal init (None: True, with torchvision's
            FutureWarning)
        dropout (float): the classifier's dropout. Default 0.5

    Shape:
        - Input: ``(N, 3, H, W)`` with H, W >= 75
        - Output: ``(N, num_classes)``; in train mode with ``aux_logits`` an
          ``InceptionOutputs(logits, aux_logits)``
    """

    def __init__(self, num_classes: int = 1000, aux_logits: bool = True,
                 transform_input: bool = False,
                 inception_blocks: list[Callable[..., nn.Module]] | None = None,
                 init_weights: bool | None = None, dropout: float = 0.5) -> None:
        super().__init__()
        if inception_blocks is None:
            inception_blocks = [BasicConv2d, InceptionA, InceptionB, InceptionC, InceptionD,
                                InceptionE, InceptionAux]
        if init_weights is None:
            _default_init_warning("inception_v3")
            init_weights = True
        if len(inception_blocks) != 7:
            raise ValueError("length of inception_blocks should be 7 instead of "
                             f"{len(inception_blocks)}")
        conv_block, inception_a, inception_b, inception_c, inception_d, inception_e, \
            inception_aux = inception_blocks
        self.aux_logits = aux_logits
        self.transform_input = transform_input
        self.Conv2d_1a_3x3 = conv_block(3, 32, kernel_size=3, stride=2)
        self.Conv2d_2a_3x3 = conv_block(32, 32, kernel_size=3)
        self.Conv2d_2b_3x3 = conv_block(32, 64, kernel_size=3, padding=1)
        self.maxpool1 = nn.MaxPool2d(kernel_size=3, stride=2)
        self.Conv2d_3b_1x1 = conv_block(64, 80, kernel_size=1)
        self.Conv2d_4a_3x3 = conv_block(80, 192, kernel_size=3)
        self.maxpool2 = nn.MaxPool2d(kernel_size=3, stride=2)
        self.Mixed_5b = inception_a(192, pool_features=32)
        self.Mixed_5c = inception_a(256, pool_features=64)
        self.Mixed_5d = inception_a(288, pool_features=64)
        self.Mixed_6a = inception_b(288)
        self.Mixed_6b = inception_c(768, channels_7x7=128)
        self.Mixed_6c = inception_c(768, channels_7x7=160)
        self.Mixed_6d = inception_c(768, channels_7x7=160)
        self.Mixed_6e = inception_c(768, channels_7x7=192)
        self.AuxLogits = inception_aux(768, num_classes) if aux_logits else None
        self.Mixed_7a = inception_d(768)
        self.Mixed_7b = inception_e(1280)
        self.Mixed_7c = inception_e(2048)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.dropout = nn.Dropout(p=dropout)
        self.fc = nn.Linear(2048, num_classes)
        if init_weights:
            _init_weights(self, lambda m: float(m.stddev) if hasattr(m, "stddev") else 0.1)

    def _transform_input(self, x):
        return _transform_input(x) if self.transform_input else x

    def _forward(self, x):
        for layer in (self.Conv2d_1a_3x3, self.Conv2d_2a_3x3, self.Conv2d_2b_3x3, self.maxpool1,
                      self.Conv2d_3b_1x1, self.Conv2d_4a_3x3, self.maxpool2, self.Mixed_5b,
                      self.Mixed_5c, self.Mixed_5d, self.Mixed_6a, self.Mixed_6b, self.Mixed_6c,
                      self.Mixed_6d, self.Mixed_6e):
            x = layer(x)
        aux = self.AuxLogits(x) if self.AuxLogits is not None and self.training else None
        x = self.Mixed_7c(self.Mixed_7b(self.Mixed_7a(x)))
        x = flatten(self.dropout(self.avgpool(x)), 1)
        return self.fc(x), aux

    def eager_outputs(self, x, aux):
        """The logits, or ``InceptionOutputs`` in train mode with ``aux_logits`` (what an eager
        torchvision Inception3 returns; jtorch never runs TorchScript)."""
        if self.training and self.aux_logits:
            return InceptionOutputs(x, aux)
        return x

    def forward(self, x):
        x, aux = self._forward(self._transform_input(x))
        return self.eager_outputs(x, aux)


Inception_V3_Weights = _weights_enum(__name__, "Inception_V3_Weights")


def _inception_v3(weights: WeightsEnum | None, progress: bool,
                  kwargs: dict[str, Any]) -> Inception3:
    return _build_pretrained_inception(Inception3, weights, progress, kwargs, True,
                                       ("AuxLogits",))


inception_v3 = _model_builder(
    __name__, "inception_v3", Inception_V3_Weights, Inception3, _inception_v3,
    "Inception v3 from `Rethinking the Inception Architecture for Computer Vision`.")
