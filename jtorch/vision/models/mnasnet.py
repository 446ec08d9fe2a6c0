"""MNASNet 0.5/0.75/1.0/1.3 (torchvision's ``models/mnasnet.py``: same modules, state_dict
keys, initialization and weights, and its loading of version-1 checkpoints)."""

from __future__ import annotations

import warnings
from functools import partial
from typing import Any

from jtorch import nn

from ._api import WeightsEnum
from ._utils import _build, _model_builder, _weights_enum

__all__ = ["MNASNet", "MNASNet0_5_Weights", "MNASNet0_75_Weights", "MNASNet1_0_Weights",
           "MNASNet1_3_Weights", "mnasnet0_5", "mnasnet0_75", "mnasnet1_0", "mnasnet1_3"]

# the paper's TensorFlow momentum 0.9997 in PyTorch's convention
_BN_MOMENTUM = 1 - 0.9997


class _InvertedResidual(nn.Module):
    """1x1 expansion, depthwise ``kernel_size`` convolution, linear 1x1 projection; a residual
    connection when the shape is kept."""

    def __init__(self, in_ch: int, out_ch: int, kernel_size: int, stride: int,
                 expansion_factor: int, bn_momentum: float = 0.1) -> None:
        super().__init__()
        if stride not in [1, 2]:
            raise ValueError(f"stride should be 1 or 2 instead of {stride}")
        if kernel_size not in [3, 5]:
            raise ValueError(f"kernel_size should be 3 or 5 instead of {kernel_size}")
        mid_ch = in_ch * expansion_factor
        self.apply_residual = in_ch == out_ch and stride == 1
        self.layers = nn.Sequential(
            nn.Conv2d(in_ch, mid_ch, 1, bias=False),
            nn.BatchNorm2d(mid_ch, momentum=bn_momentum),
            nn.ReLU(inplace=True),
            nn.Conv2d(mid_ch, mid_ch, kernel_size, padding=kernel_size // 2, stride=stride,
                      groups=mid_ch, bias=False),
            nn.BatchNorm2d(mid_ch, momentum=bn_momentum),
            nn.ReLU(inplace=True),
            nn.Conv2d(mid_ch, out_ch, 1, bias=False),
            nn.BatchNorm2d(out_ch, momentum=bn_momentum))

    def forward(self, input):
        if self.apply_residual:
            return self.layers(input) + input
        return self.layers(input)


def _stack(in_ch: int, out_ch: int, kernel_size: int, stride: int, exp_factor: int,
           repeats: int, bn_momentum: float) -> nn.Sequential:
    """``repeats`` inverted residuals; only the first changes the shape."""
    if repeats < 1:
        raise ValueError(f"repeats should be >= 1, instead got {repeats}")
    first = _InvertedResidual(in_ch, out_ch, kernel_size, stride, exp_factor,
                              bn_momentum=bn_momentum)
    remaining = [_InvertedResidual(out_ch, out_ch, kernel_size, 1, exp_factor,
                                   bn_momentum=bn_momentum) for _ in range(1, repeats)]
    return nn.Sequential(first, *remaining)


def _round_to_multiple_of(val: float, divisor: int, round_up_bias: float = 0.9) -> int:
    """``val`` rounded to a multiple of ``divisor``, up unless that is at most 10% below
    ``val`` ((83, 8) -> 80, (84, 8) -> 88)."""
    if not 0.0 < round_up_bias < 1.0:
        raise ValueError("round_up_bias should be greater than 0.0 and smaller than 1.0 instead "
                         f"of {round_up_bias}")
    new_val = max(divisor, int(val + divisor / 2) // divisor * divisor)
    return new_val if new_val >= round_up_bias * val else new_val + divisor


def _get_depths(alpha: float) -> list[int]:
    """The stage widths scaled by ``alpha`` (rounded to multiples of 8, preferring up)."""
    depths = [32, 16, 24, 40, 80, 96, 192, 320]
    return [_round_to_multiple_of(depth * alpha, 8) for depth in depths]


class MNASNet(nn.Module):
    """MNASNet (the B1 variant) from `MnasNet: Platform-Aware Neural Architecture Search for
    Mobile`.

    Args:
        alpha (float): width multiplier.
        num_classes (int): classifier outputs. Default 1000
        dropout (float): the classifier's dropout. Default 0.2

    Shape:
        - Input: ``(N, 3, H, W)``
        - Output: ``(N, num_classes)``

    Version 2 (the current one) scales the stem's widths with ``alpha`` too; loading a
    version-1 state_dict (its ``_metadata``) into a model with ``alpha != 1`` rebuilds the
    fixed-width stem first, with torchvision's warning.
    """

    _version = 2

    def __init__(self, alpha: float, num_classes: int = 1000, dropout: float = 0.2) -> None:
        super().__init__()
        if alpha <= 0.0:
            raise ValueError(f"alpha should be greater than 0.0 instead of {alpha}")
        self.alpha = alpha
        self.num_classes = num_classes
        depths = _get_depths(alpha)
        self.layers = nn.Sequential(
            *self._stem(depths[0], depths[1]),
            _stack(depths[1], depths[2], 3, 2, 3, 3, _BN_MOMENTUM),
            _stack(depths[2], depths[3], 5, 2, 3, 3, _BN_MOMENTUM),
            _stack(depths[3], depths[4], 5, 2, 6, 3, _BN_MOMENTUM),
            _stack(depths[4], depths[5], 3, 1, 6, 2, _BN_MOMENTUM),
            _stack(depths[5], depths[6], 5, 2, 6, 4, _BN_MOMENTUM),
            _stack(depths[6], depths[7], 3, 1, 6, 1, _BN_MOMENTUM),
            nn.Conv2d(depths[7], 1280, 1, padding=0, stride=1, bias=False),
            nn.BatchNorm2d(1280, momentum=_BN_MOMENTUM),
            nn.ReLU(inplace=True))
        self.classifier = nn.Sequential(nn.Dropout(p=dropout, inplace=True),
                                        nn.Linear(1280, num_classes))
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Linear):
                nn.init.kaiming_uniform_(m.weight, mode="fan_out", nonlinearity="sigmoid")
                nn.init.zeros_(m.bias)

    @staticmethod
    def _stem(d0: int, d1: int) -> list[nn.Module]:
        """A regular 3x3 stride-2 conv, then a depthwise-separable conv without skip."""
        return [nn.Conv2d(3, d0, 3, padding=1, stride=2, bias=False),
                nn.BatchNorm2d(d0, momentum=_BN_MOMENTUM),
                nn.ReLU(inplace=True),
                nn.Conv2d(d0, d0, 3, padding=1, stride=1, groups=d0, bias=False),
                nn.BatchNorm2d(d0, momentum=_BN_MOMENTUM),
                nn.ReLU(inplace=True),
                nn.Conv2d(d0, d1, 1, padding=0, stride=1, bias=False),
                nn.BatchNorm2d(d1, momentum=_BN_MOMENTUM)]

    def forward(self, x):
        return self.classifier(self.layers(x).mean([2, 3]))  # global average pool

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        version = local_metadata.get("version", None)
        if version not in [1, 2]:
            raise ValueError(f"version should be set to 1 or 2 instead of {version}")
        if version == 1 and not self.alpha == 1.0:
            # version 1 had a fixed-width stem (32 and 16 channels) whatever alpha
            depths = _get_depths(self.alpha)
            v1_stem = self._stem(32, 16) + [_stack(16, depths[2], 3, 2, 3, 3, _BN_MOMENTUM)]
            for idx, layer in enumerate(v1_stem):
                self.layers[idx] = layer
            self._version = 1  # the model is now version 1, and saves as such
            warnings.warn(
                "A new version of MNASNet model has been implemented. Your checkpoint was saved "
                "using the previous version. This checkpoint will load and work as before, but "
                "you may want to upgrade by training a newer model or transfer learning from an "
                "updated ImageNet checkpoint.", UserWarning, stacklevel=2)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)


def _mnasnet(alpha: float, weights: WeightsEnum | None, progress: bool,
             kwargs: dict[str, Any]) -> MNASNet:
    return _build(partial(MNASNet, alpha), weights, progress, kwargs)


MNASNet0_5_Weights = _weights_enum(__name__, "MNASNet0_5_Weights")
MNASNet0_75_Weights = _weights_enum(__name__, "MNASNet0_75_Weights")
MNASNet1_0_Weights = _weights_enum(__name__, "MNASNet1_0_Weights")
MNASNet1_3_Weights = _weights_enum(__name__, "MNASNet1_3_Weights")


def _mnasnet_builder(name, weights_enum, alpha):
    return _model_builder(__name__, name, weights_enum, MNASNet, partial(_mnasnet, alpha),
                          f"MNASNet with depth multiplier {alpha}, from `MnasNet: Platform-Aware "
                          "Neural Architecture Search for Mobile`.")


mnasnet0_5 = _mnasnet_builder("mnasnet0_5", MNASNet0_5_Weights, 0.5)
mnasnet0_75 = _mnasnet_builder("mnasnet0_75", MNASNet0_75_Weights, 0.75)
mnasnet1_0 = _mnasnet_builder("mnasnet1_0", MNASNet1_0_Weights, 1.0)
mnasnet1_3 = _mnasnet_builder("mnasnet1_3", MNASNet1_3_Weights, 1.3)
