"""Feature-pyramid backbones of the detection models (torchvision's
``models/detection/backbone_utils.py``): ``BackboneWithFPN``, ``resnet_fpn_backbone``,
``mobilenet_backbone`` and the extractors the builders use."""

from __future__ import annotations

import warnings

from jtorch import nn

from ...ops import misc as misc_nn_ops
from ...ops.feature_pyramid_network import FeaturePyramidNetwork, LastLevelMaxPool
from .. import mobilenetv2, mobilenetv3, resnet
from .._api import _get_enum_from_fn
from .._utils import IntermediateLayerGetter, handle_legacy_interface

_MOBILENETS = {"mobilenet_v2": mobilenetv2.mobilenet_v2,
               "mobilenet_v3_large": mobilenetv3.mobilenet_v3_large,
               "mobilenet_v3_small": mobilenetv3.mobilenet_v3_small}


class BackboneWithFPN(nn.Module):
    """``IntermediateLayerGetter(backbone, return_layers)`` (``body``) followed by a
    ``FeaturePyramidNetwork`` (``fpn``, ``out_channels`` channels; ``extra_blocks`` default
    ``LastLevelMaxPool``). ``in_channels_list`` are the channels of the returned layers."""

    def __init__(self, backbone, return_layers, in_channels_list, out_channels,
                 extra_blocks=None, norm_layer=None) -> None:
        super().__init__()
        if extra_blocks is None:
            extra_blocks = LastLevelMaxPool()
        self.body = IntermediateLayerGetter(backbone, return_layers=return_layers)
        self.fpn = FeaturePyramidNetwork(in_channels_list=in_channels_list,
                                         out_channels=out_channels, extra_blocks=extra_blocks,
                                         norm_layer=norm_layer)
        self.out_channels = out_channels

    def forward(self, x):
        return self.fpn(self.body(x))


@handle_legacy_interface(weights=("pretrained", lambda kwargs: _get_enum_from_fn(
    resnet.__dict__[kwargs["backbone_name"]])["IMAGENET1K_V1"]))
def resnet_fpn_backbone(*, backbone_name, weights, norm_layer=misc_nn_ops.FrozenBatchNorm2d,
                        trainable_layers=3, returned_layers=None, extra_blocks=None):
    """A ResNet (``backbone_name``: ``"resnet50"``...) with an FPN on top, its layers frozen
    but the last ``trainable_layers`` (0-5)."""
    backbone = resnet.__dict__[backbone_name](weights=weights, norm_layer=norm_layer)
    return _resnet_fpn_extractor(backbone, trainable_layers, returned_layers, extra_blocks)


def _resnet_fpn_extractor(backbone, trainable_layers, returned_layers=None, extra_blocks=None,
                          norm_layer=None):
    if trainable_layers < 0 or trainable_layers > 5:
        raise ValueError(f"Trainable layers should be in the range [0,5], got {trainable_layers}")
    layers_to_train = ["layer4", "layer3", "layer2", "layer1", "conv1"][:trainable_layers]
    if trainable_layers == 5:
        layers_to_train.append("bn1")
    for name, parameter in backbone.named_parameters():
        if all(not name.startswith(layer) for layer in layers_to_train):
            parameter.requires_grad_(False)
    if extra_blocks is None:
        extra_blocks = LastLevelMaxPool()
    if returned_layers is None:
        returned_layers = [1, 2, 3, 4]
    if min(returned_layers) <= 0 or max(returned_layers) >= 5:
        raise ValueError(f"Each returned layer should be in the range [1,4]. Got {returned_layers}")
    return_layers = {f"layer{k}": str(v) for v, k in enumerate(returned_layers)}
    in_channels_stage2 = backbone.inplanes // 8
    in_channels_list = [in_channels_stage2 * 2 ** (i - 1) for i in returned_layers]
    return BackboneWithFPN(backbone, return_layers, in_channels_list, 256,
                           extra_blocks=extra_blocks, norm_layer=norm_layer)


def _validate_trainable_layers(is_trained, trainable_backbone_layers, max_value, default_value):
    if not is_trained:
        if trainable_backbone_layers is not None:
            warnings.warn(
                "Changing trainable_backbone_layers has no effect if neither pretrained nor "
                "pretrained_backbone have been set to True, falling back to "
                f"trainable_backbone_layers={max_value} so that all layers are trainable",
                stacklevel=3)
        trainable_backbone_layers = max_value
    if trainable_backbone_layers is None:
        trainable_backbone_layers = default_value
    if trainable_backbone_layers < 0 or trainable_backbone_layers > max_value:
        raise ValueError(f"Trainable backbone layers should be in the range [0,{max_value}], "
                         f"got {trainable_backbone_layers} ")
    return trainable_backbone_layers


@handle_legacy_interface(weights=("pretrained", lambda kwargs: _get_enum_from_fn(
    _MOBILENETS[kwargs["backbone_name"]])["IMAGENET1K_V1"]))
def mobilenet_backbone(*, backbone_name, weights, fpn, norm_layer=misc_nn_ops.FrozenBatchNorm2d,
                       trainable_layers=2, returned_layers=None, extra_blocks=None):
    """A MobileNet's features (``backbone_name``: ``"mobilenet_v2"``,
    ``"mobilenet_v3_large"``, ``"mobilenet_v3_small"``) with an FPN on top (``fpn``) or a 1x1
    convolution to 256 channels, its stages frozen but the last ``trainable_layers``."""
    backbone = _MOBILENETS[backbone_name](weights=weights, norm_layer=norm_layer)
    return _mobilenet_extractor(backbone, fpn, trainable_layers, returned_layers, extra_blocks)


def _mobilenet_extractor(backbone, fpn, trainable_layers, returned_layers=None,
                         extra_blocks=None, norm_layer=None):
    backbone = backbone.features
    stage_indices = ([0] + [i for i, b in enumerate(backbone) if getattr(b, "_is_cn", False)]
                     + [len(backbone) - 1])
    num_stages = len(stage_indices)
    if trainable_layers < 0 or trainable_layers > num_stages:
        raise ValueError(f"Trainable layers should be in the range [0,{num_stages}], got "
                         f"{trainable_layers} ")
    freeze_before = (len(backbone) if trainable_layers == 0
                     else stage_indices[num_stages - trainable_layers])
    for b in backbone[:freeze_before]:
        for parameter in b.parameters():
            parameter.requires_grad_(False)
    out_channels = 256
    if fpn:
        if extra_blocks is None:
            extra_blocks = LastLevelMaxPool()
        if returned_layers is None:
            returned_layers = [num_stages - 2, num_stages - 1]
        if min(returned_layers) < 0 or max(returned_layers) >= num_stages:
            raise ValueError(f"Each returned layer should be in the range [0,{num_stages - 1}], "
                             f"got {returned_layers} ")
        return_layers = {f"{stage_indices[k]}": str(v) for v, k in enumerate(returned_layers)}
        in_channels_list = [backbone[stage_indices[i]].out_channels for i in returned_layers]
        return BackboneWithFPN(backbone, return_layers, in_channels_list, out_channels,
                               extra_blocks=extra_blocks, norm_layer=norm_layer)
    m = nn.Sequential(backbone, nn.Conv2d(backbone[-1].out_channels, out_channels, 1))
    m.out_channels = out_channels
    return m


def _resnet50_fpn_backbone(weights, weights_backbone, progress, trainable_backbone_layers, v2,
                           **fpn):
    """The ResNet-50-FPN of the detection builders: frozen batch norm in the ResNet when
    weights are loaded, except for the v2 models (batch norm); ``fpn`` goes to
    :func:`_resnet_fpn_extractor` (returned layers, extra blocks, the FPN's norm layer)."""
    is_trained = weights is not None or weights_backbone is not None
    trainable = _validate_trainable_layers(is_trained, trainable_backbone_layers, 5, 3)
    norm_layer = misc_nn_ops.FrozenBatchNorm2d if is_trained and not v2 else nn.BatchNorm2d
    backbone = resnet.resnet50(weights=weights_backbone, progress=progress, norm_layer=norm_layer)
    return _resnet_fpn_extractor(backbone, trainable, **fpn)
