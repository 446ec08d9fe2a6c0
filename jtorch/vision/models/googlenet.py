"""GoogLeNet / Inception v1 (torchvision's ``models/googlenet.py``: same modules, state_dict
keys, initialization, outputs and weights)."""

from __future__ import annotations

import warnings
from collections import namedtuple
from collections.abc import Callable
from typing import Any

from jtorch import nn

from ..._ops.shape import flatten
from ..._ops.shape_copy import cat
from ..._tensor import Tensor
from ._api import WeightsEnum
from ._utils import _model_builder, _ovewrite_named_param, _weights_enum

__all__ = ["GoogLeNet", "GoogLeNetOutputs", "_GoogLeNetOutputs", "GoogLeNet_Weights",
           "googlenet"]

GoogLeNetOutputs = namedtuple("GoogLeNetOutputs", ["logits", "aux_logits2", "aux_logits1"])
GoogLeNetOutputs.__annotations__ = {"logits": Tensor, "aux_logits2": Tensor | None,
                                    "aux_logits1": Tensor | None}
_GoogLeNetOutputs = GoogLeNetOutputs  # torchvision's backward-compatible alias


def _transform_input(x):
    """Inputs normalized with ImageNet's mean/std re-expressed as normalized with 0.5/0.5
    (what the ported Google checkpoints expect): per channel ``x * std/0.5 + (mean-0.5)/0.5``."""
    stats = ((0.229, 0.485), (0.224, 0.456), (0.225, 0.406))
    return cat([x[:, c].unsqueeze(1) * (std / 0.5) + (mean - 0.5) / 0.5
                for c, (std, mean) in enumerate(stats)], 1)


def _default_init_warning(name):
    warnings.warn(
        f"The default weight initialization of {name} will be changed in future releases of "
        "torchvision. If you wish to keep the old behavior (which leads to long initialization "
        "times due to scipy/scipy#11299), please set init_weights=True.", FutureWarning,
        stacklevel=3)


def _init_weights(model, std):
    """GoogLeNet's and Inception v3's ``init_weights``: every convolution's and linear layer's
    weight truncated normal in [-2, 2] with ``std(module)``, every batch norm 1 and 0."""
    for m in model.modules():
        if isinstance(m, (nn.Conv2d, nn.Linear)):
            nn.init.trunc_normal_(m.weight, mean=0.0, std=std(m), a=-2, b=2)
        elif isinstance(m, nn.BatchNorm2d):
            nn.init.constant_(m.weight, 1)
            nn.init.constant_(m.bias, 0)


class BasicConv2d(nn.Module):
    """Bias-free convolution (``kwargs`` to ``nn.Conv2d``), batch norm (eps 1e-3), ReLU."""

    def __init__(self, in_channels: int, out_channels: int, **kwargs: Any) -> None:
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, bias=False, **kwargs)
        self.bn = nn.BatchNorm2d(out_channels, eps=0.001)

    def forward(self, x):
        return nn.functional.relu(self.bn(self.conv(x)), inplace=True)


def _conv(conv_block):
    """The blocks' ``conv_block`` argument: None means ``BasicConv2d``."""
    return BasicConv2d if conv_block is None else conv_block


class _Branches(nn.Module):
    """An Inception block: ``_forward`` returns its parallel branches' outputs, ``forward``
    concatenates them along the channels."""

    def forward(self, x):
        return cat(self._forward(x), 1)


class Inception(_Branches):
    """Four concatenated branches: 1x1; 1x1 then 3x3; 1x1 then 3x3 (torchvision's "5x5"
    branch, a 3x3 as in its checkpoints); 3x3 max pool then 1x1."""

    def __init__(self, in_channels: int, ch1x1: int, ch3x3red: int, ch3x3: int, ch5x5red: int,
                 ch5x5: int, pool_proj: int,
                 conv_block: Callable[..., nn.Module] | None = None) -> None:
        super().__init__()
        conv_block = _conv(conv_block)
        self.branch1 = conv_block(in_channels, ch1x1, kernel_size=1)
        self.branch2 = nn.Sequential(conv_block(in_channels, ch3x3red, kernel_size=1),
                                     conv_block(ch3x3red, ch3x3, kernel_size=3, padding=1))
        self.branch3 = nn.Sequential(conv_block(in_channels, ch5x5red, kernel_size=1),
                                     conv_block(ch5x5red, ch5x5, kernel_size=3, padding=1))
        self.branch4 = nn.Sequential(
            nn.MaxPool2d(kernel_size=3, stride=1, padding=1, ceil_mode=True),
            conv_block(in_channels, pool_proj, kernel_size=1))

    def _forward(self, x):
        return [self.branch1(x), self.branch2(x), self.branch3(x), self.branch4(x)]


class InceptionAux(nn.Module):
    """The auxiliary classifier: 4x4 adaptive average pool, 1x1 conv, two linear layers."""

    def __init__(self, in_channels: int, num_classes: int,
                 conv_block: Callable[..., nn.Module] | None = None,
                 dropout: float = 0.7) -> None:
        super().__init__()
        conv_block = _conv(conv_block)
        self.conv = conv_block(in_channels, 128, kernel_size=1)
        self.fc1 = nn.Linear(2048, 1024)
        self.fc2 = nn.Linear(1024, num_classes)
        self.dropout = nn.Dropout(p=dropout)

    def forward(self, x):
        x = flatten(self.conv(nn.functional.adaptive_avg_pool2d(x, (4, 4))), 1)
        x = self.dropout(nn.functional.relu(self.fc1(x), inplace=True))
        return self.fc2(x)


class GoogLeNet(nn.Module):
    """GoogLeNet (Inception v1) from `Going Deeper with Convolutions`.

    Args:
        num_classes (int): classifier outputs. Default 1000
        aux_logits (bool): build the two auxiliary classifiers (used in train mode).
            Default True
        transform_input (bool): re-normalize ImageNet-normalized inputs for the ported
            weights. Default False
        init_weights (bool, optional): truncated-normal init (None: True, with torchvision's
            FutureWarning)
        blocks (list, optional): ``[conv_block, inception_block, inception_aux_block]``
        dropout, dropout_aux (float): classifier dropouts. Default 0.2, 0.7

    Shape:
        - Input: ``(N, 3, H, W)`` with H, W >= 15
        - Output: ``(N, num_classes)``; in train mode with ``aux_logits`` a
          ``GoogLeNetOutputs(logits, aux_logits2, aux_logits1)``
    """

    __constants__ = ["aux_logits", "transform_input"]

    def __init__(self, num_classes: int = 1000, aux_logits: bool = True,
                 transform_input: bool = False, init_weights: bool | None = None,
                 blocks: list[Callable[..., nn.Module]] | None = None, dropout: float = 0.2,
                 dropout_aux: float = 0.7) -> None:
        super().__init__()
        if blocks is None:
            blocks = [BasicConv2d, Inception, InceptionAux]
        if init_weights is None:
            _default_init_warning("GoogleNet")
            init_weights = True
        if len(blocks) != 3:
            raise ValueError(f"blocks length should be 3 instead of {len(blocks)}")
        conv_block, inception_block, inception_aux_block = blocks
        self.aux_logits = aux_logits
        self.transform_input = transform_input
        self.conv1 = conv_block(3, 64, kernel_size=7, stride=2, padding=3)
        self.maxpool1 = nn.MaxPool2d(3, stride=2, ceil_mode=True)
        self.conv2 = conv_block(64, 64, kernel_size=1)
        self.conv3 = conv_block(64, 192, kernel_size=3, padding=1)
        self.maxpool2 = nn.MaxPool2d(3, stride=2, ceil_mode=True)
        self.inception3a = inception_block(192, 64, 96, 128, 16, 32, 32)
        self.inception3b = inception_block(256, 128, 128, 192, 32, 96, 64)
        self.maxpool3 = nn.MaxPool2d(3, stride=2, ceil_mode=True)
        self.inception4a = inception_block(480, 192, 96, 208, 16, 48, 64)
        self.inception4b = inception_block(512, 160, 112, 224, 24, 64, 64)
        self.inception4c = inception_block(512, 128, 128, 256, 24, 64, 64)
        self.inception4d = inception_block(512, 112, 144, 288, 32, 64, 64)
        self.inception4e = inception_block(528, 256, 160, 320, 32, 128, 128)
        self.maxpool4 = nn.MaxPool2d(2, stride=2, ceil_mode=True)
        self.inception5a = inception_block(832, 256, 160, 320, 32, 128, 128)
        self.inception5b = inception_block(832, 384, 192, 384, 48, 128, 128)
        if aux_logits:
            self.aux1 = inception_aux_block(512, num_classes, dropout=dropout_aux)
            self.aux2 = inception_aux_block(528, num_classes, dropout=dropout_aux)
        else:
            self.aux1 = None
            self.aux2 = None
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.dropout = nn.Dropout(p=dropout)
        self.fc = nn.Linear(1024, num_classes)
        if init_weights:
            _init_weights(self, lambda m: 0.01)

    def _transform_input(self, x):
        return _transform_input(x) if self.transform_input else x

    def _forward(self, x):
        x = self.maxpool1(self.conv1(x))
        x = self.maxpool2(self.conv3(self.conv2(x)))
        x = self.maxpool3(self.inception3b(self.inception3a(x)))
        x = self.inception4a(x)
        aux1 = self.aux1(x) if self.aux1 is not None and self.training else None
        x = self.inception4d(self.inception4c(self.inception4b(x)))
        aux2 = self.aux2(x) if self.aux2 is not None and self.training else None
        x = self.maxpool4(self.inception4e(x))
        x = self.inception5b(self.inception5a(x))
        x = self.dropout(flatten(self.avgpool(x), 1))
        return self.fc(x), aux2, aux1

    def eager_outputs(self, x, aux2, aux1):
        """The logits, or ``GoogLeNetOutputs`` in train mode with ``aux_logits`` (what an eager
        torchvision GoogLeNet returns; jtorch never runs TorchScript)."""
        if self.training and self.aux_logits:
            return _GoogLeNetOutputs(x, aux2, aux1)
        return x

    def forward(self, x):
        x, aux2, aux1 = self._forward(self._transform_input(x))
        return self.eager_outputs(x, aux2, aux1)


GoogLeNet_Weights = _weights_enum(__name__, "GoogLeNet_Weights")


def _build_pretrained_inception(cls, weights, progress, kwargs, aux_default, aux_heads):
    """GoogLeNet's and Inception v3's builders: with ``weights``, the checkpoint's settings
    (input transform on unless given, auxiliary heads present, no init, its class count),
    then the weights loaded and, unless ``aux_logits`` (default ``aux_default``) was asked
    for, the auxiliary heads (the attributes ``aux_heads``) removed again."""
    keep_aux = kwargs.get("aux_logits", aux_default)
    if weights is not None:
        if "transform_input" not in kwargs:
            _ovewrite_named_param(kwargs, "transform_input", True)
        _ovewrite_named_param(kwargs, "aux_logits", True)
        _ovewrite_named_param(kwargs, "init_weights", False)
        _ovewrite_named_param(kwargs, "num_classes", len(weights.meta["categories"]))
    model = cls(**kwargs)
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
        if not keep_aux:
            model.aux_logits = False
            for name in aux_heads:
                setattr(model, name, None)
    return model


def _googlenet(weights: WeightsEnum | None, progress: bool, kwargs: dict[str, Any]) -> GoogLeNet:
    model = _build_pretrained_inception(GoogLeNet, weights, progress, kwargs, False,
                                        ("aux1", "aux2"))
    if weights is not None and model.aux_logits:
        warnings.warn("auxiliary heads in the pretrained googlenet model are NOT pretrained, "
                      "so make sure to train them", stacklevel=3)
    return model


googlenet = _model_builder(
    __name__, "googlenet", GoogLeNet_Weights, GoogLeNet, _googlenet,
    "GoogLeNet (Inception v1) from `Going Deeper with Convolutions`.")
