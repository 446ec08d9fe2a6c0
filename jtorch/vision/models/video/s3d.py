"""S3D (torchvision's ``models/video/s3d.py``: same modules, state_dict keys, default
initialization and Kinetics-400 weights)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from jtorch import nn

from ...._ops.reduction import mean
from ...._ops.shape_copy import cat
from ...ops.misc import Conv3dNormActivation
from .._utils import _build, _model_builder, _weights_enum

__all__ = ["S3D", "S3D_Weights", "s3d"]


class TemporalSeparableConv(nn.Sequential):
    """A ``1 x k x k`` then a ``k x 1 x 1`` ``Conv3dNormActivation`` (no biases)."""

    def __init__(self, in_planes: int, out_planes: int, kernel_size: int, stride: int,
                 padding: int, norm_layer: Callable[..., nn.Module]):
        super().__init__(
            Conv3dNormActivation(in_planes, out_planes, kernel_size=(1, kernel_size, kernel_size),
                                 stride=(1, stride, stride), padding=(0, padding, padding),
                                 bias=False, norm_layer=norm_layer),
            Conv3dNormActivation(out_planes, out_planes, kernel_size=(kernel_size, 1, 1),
                                 stride=(stride, 1, 1), padding=(padding, 0, 0), bias=False,
                                 norm_layer=norm_layer))


class SepInceptionBlock3D(nn.Module):
    """An Inception block of separable 3D convolutions: four branches (1x1x1; 1x1x1 then
    separable 3x3x3, twice; 3x3x3 max pool then 1x1x1) concatenated over channels."""

    def __init__(self, in_planes: int, b0_out: int, b1_mid: int, b1_out: int, b2_mid: int,
                 b2_out: int, b3_out: int, norm_layer: Callable[..., nn.Module]):
        super().__init__()
        conv1 = partial(Conv3dNormActivation, kernel_size=1, stride=1, norm_layer=norm_layer)
        sep = partial(TemporalSeparableConv, kernel_size=3, stride=1, padding=1,
                      norm_layer=norm_layer)
        self.branch0 = conv1(in_planes, b0_out)
        self.branch1 = nn.Sequential(conv1(in_planes, b1_mid), sep(b1_mid, b1_out))
        self.branch2 = nn.Sequential(conv1(in_planes, b2_mid), sep(b2_mid, b2_out))
        self.branch3 = nn.Sequential(nn.MaxPool3d(kernel_size=(3, 3, 3), stride=1, padding=1),
                                     conv1(in_planes, b3_out))

    def forward(self, x):
        return cat((self.branch0(x), self.branch1(x), self.branch2(x), self.branch3(x)), 1)


class S3D(nn.Module):
    """S3D ("Rethinking Spatiotemporal Feature Learning").

    Args:
        num_classes (int): classifier outputs. Default 400
        dropout (float): dropout before the classifier. Default 0.2
        norm_layer (callable, optional): default ``BatchNorm3d(eps=0.001, momentum=0.001)``.

    Shape:
        - Input: ``(N, 3, T, H, W)``; the final ``2 x 7 x 7`` average pool needs at least 224 x
          224 frames and 14 of them (``weights.meta["min_temporal_size"]``).
        - Output: ``(N, num_classes)``
    """

    def __init__(self, num_classes: int = 400, dropout: float = 0.2,
                 norm_layer: Callable[..., nn.Module] | None = None) -> None:
        super().__init__()
        if norm_layer is None:
            norm_layer = partial(nn.BatchNorm3d, eps=0.001, momentum=0.001)
        block = partial(SepInceptionBlock3D, norm_layer=norm_layer)
        self.features = nn.Sequential(
            TemporalSeparableConv(3, 64, 7, 2, 3, norm_layer),
            nn.MaxPool3d(kernel_size=(1, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1)),
            Conv3dNormActivation(64, 64, kernel_size=1, stride=1, norm_layer=norm_layer),
            TemporalSeparableConv(64, 192, 3, 1, 1, norm_layer),
            nn.MaxPool3d(kernel_size=(1, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1)),
            block(192, 64, 96, 128, 16, 32, 32),
            block(256, 128, 128, 192, 32, 96, 64),
            nn.MaxPool3d(kernel_size=(3, 3, 3), stride=(2, 2, 2), padding=(1, 1, 1)),
            block(480, 192, 96, 208, 16, 48, 64),
            block(512, 160, 112, 224, 24, 64, 64),
            block(512, 128, 128, 256, 24, 64, 64),
            block(512, 112, 144, 288, 32, 64, 64),
            block(528, 256, 160, 320, 32, 128, 128),
            nn.MaxPool3d(kernel_size=(2, 2, 2), stride=(2, 2, 2), padding=(0, 0, 0)),
            block(832, 256, 160, 320, 32, 128, 128),
            block(832, 384, 192, 384, 48, 128, 128))
        self.avgpool = nn.AvgPool3d(kernel_size=(2, 7, 7), stride=1)
        self.classifier = nn.Sequential(
            nn.Dropout(p=dropout), nn.Conv3d(1024, num_classes, kernel_size=1, stride=1, bias=True))

    def forward(self, x):
        x = self.classifier(self.avgpool(self.features(x)))
        return mean(x, dim=(2, 3, 4))


S3D_Weights = _weights_enum(__name__, "S3D_Weights")

s3d = _model_builder(
    __name__, "s3d", S3D_Weights, S3D,
    lambda weights, progress, kwargs: _build(S3D, weights, progress, kwargs),
    "Construct Separable 3D CNN model.\n\n    Reference: `Rethinking Spatiotemporal Feature "
    "Learning <https://arxiv.org/abs/1712.04851>`__.", legacy_weights="KINETICS400_V1")
