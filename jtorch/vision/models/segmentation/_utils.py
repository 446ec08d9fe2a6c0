"""What the segmentation models share (torchvision's ``models/segmentation/_utils.py``): the
model that upsamples its classifier's output to the input's size, the builders' handling of
``weights``/``weights_backbone``/``num_classes``/``aux_loss``, and the builder factory."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from jtorch import nn

from ....nn.functional import interpolate
from .._api import WeightsEnum, register_model
from .._utils import _ovewrite_value_param, handle_legacy_interface


class _SimpleSegmentationModel(nn.Module):
    """``backbone`` (returning a dict with ``"out"`` and, for ``aux_classifier``, ``"aux"``),
    then the classifiers, their outputs resized bilinearly to the input's height and width.

    Args:
        backbone (nn.Module): returns an ``OrderedDict`` with the last feature map under
            ``"out"`` (and the auxiliary classifier's input under ``"aux"``).
        classifier (nn.Module): the dense prediction from ``"out"``.
        aux_classifier (nn.Module, optional): the auxiliary prediction (training).

    Shape:
        - Input: ``(N, 3, H, W)``
        - Output: ``OrderedDict`` with ``"out"`` (and ``"aux"``): ``(N, num_classes, H, W)``
    """

    def __init__(self, backbone: nn.Module, classifier: nn.Module,
                 aux_classifier: nn.Module | None = None) -> None:
        super().__init__()
        self.backbone = backbone
        self.classifier = classifier
        self.aux_classifier = aux_classifier

    def forward(self, x):
        input_shape = x.shape[-2:]
        features = self.backbone(x)
        result = OrderedDict()
        result["out"] = interpolate(self.classifier(features["out"]), size=input_shape,
                                    mode="bilinear", align_corners=False)
        if self.aux_classifier is not None:
            result["aux"] = interpolate(self.aux_classifier(features["aux"]), size=input_shape,
                                        mode="bilinear", align_corners=False)
        return result


def _resolve_weights(weights, weights_enum, weights_backbone, backbone_enum, num_classes,
                     aux_loss):
    """torchvision's rules: with ``weights`` no backbone weights are loaded, and
    ``num_classes`` (the weights' categories) and ``aux_loss`` (True) must agree with them;
    without, ``num_classes`` defaults to 21. Returns the four values to build with."""
    weights = weights_enum.verify(weights)
    weights_backbone = backbone_enum.verify(weights_backbone)
    if weights is not None:
        weights_backbone = None
        num_classes = _ovewrite_value_param("num_classes", num_classes,
                                            len(weights.meta["categories"]))
        aux_loss = _ovewrite_value_param("aux_loss", aux_loss, True)
    elif num_classes is None:
        num_classes = 21
    return weights, weights_backbone, num_classes, aux_loss


def _load(model, weights, progress):
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
    return model


def _register(module: str, name: str, builder: Callable, weights_enum: type[WeightsEnum],
              backbone_enum: type[WeightsEnum], model_cls: type, doc: str) -> Callable:
    """Names, documents and registers ``builder`` with torchvision's legacy ``pretrained=`` /
    ``pretrained_backbone=`` keywords (the COCO weights, the backbone's ImageNet ones)."""
    builder.__name__ = builder.__qualname__ = name
    builder.__module__ = module
    builder.__annotations__ = {"weights": weights_enum | None, "progress": bool,
                               "num_classes": int | None, "aux_loss": bool | None,
                               "weights_backbone": backbone_enum | None, "kwargs": Any,
                               "return": model_cls}
    builder.__doc__ = doc
    legacy = handle_legacy_interface(
        weights=("pretrained", weights_enum.COCO_WITH_VOC_LABELS_V1),
        weights_backbone=("pretrained_backbone", backbone_enum.IMAGENET1K_V1))
    return register_model()(legacy(builder))


_ARGS_DOC = """

    Args:
        weights ({weights}, optional): pre-trained weights (COCO, the 20 Pascal VOC categories
            and the background; None: random init).
        progress (bool): show a download progress bar. Default True
        num_classes (int, optional): output classes, the background included (default 21;
            with ``weights`` it must be 21).
        aux_loss (bool, optional): add the auxiliary classifier (``"aux"`` output) on the
            stride-8 features (with ``weights`` it must be True).
        weights_backbone ({backbone}, optional): the backbone's pre-trained weights, used
            only without ``weights``. Default ``{backbone}.IMAGENET1K_V1``
        **kwargs: unused (as in torchvision).
    """


def _segmentation_builder(module: str, name: str, weights_enum: type[WeightsEnum],
                          backbone_enum: type[WeightsEnum], build: Callable, model_cls: type,
                          summary: str) -> Callable:
    """The registered builder ``name(*, weights=None, progress=True, num_classes=None,
    aux_loss=None, weights_backbone=<backbone_enum>.IMAGENET1K_V1, **kwargs)`` returning
    ``build(weights_backbone, num_classes, aux_loss)`` with ``weights`` loaded."""
    default_backbone = backbone_enum.IMAGENET1K_V1

    def builder(*, weights=None, progress=True, num_classes=None, aux_loss=None,
                weights_backbone=default_backbone, **kwargs):
        weights, weights_backbone, num_classes, aux_loss = _resolve_weights(
            weights, weights_enum, weights_backbone, backbone_enum, num_classes, aux_loss)
        return _load(build(weights_backbone, num_classes, aux_loss), weights, progress)

    doc = summary + _ARGS_DOC.format(weights=weights_enum.__name__,
                                     backbone=backbone_enum.__name__)
    return _register(module, name, builder, weights_enum, backbone_enum, model_cls, doc)


def _dilated_resnet(resnet: Callable, make_model: Callable) -> Callable:
    """The ``build`` of a model ``make_model(backbone, num_classes, aux_loss)`` on ``resnet``
    with output stride 8 (its layers 3 and 4 dilated instead of strided)."""
    def build(weights_backbone, num_classes, aux_loss):
        backbone = resnet(weights=weights_backbone,
                          replace_stride_with_dilation=[False, True, True])
        return make_model(backbone, num_classes, aux_loss)

    return build


def _mobilenet_stages(features: nn.Sequential) -> tuple[int, int]:
    """The positions in MobileNetV3's ``features`` of C2 (stride 8) and of the last layer (C5,
    stride 16 when dilated): the first and last layers and the strided blocks are the stage
    boundaries."""
    stage_indices = [0] + [i for i, b in enumerate(features) if getattr(b, "_is_cn", False)] \
        + [len(features) - 1]
    return stage_indices[-4], stage_indices[-1]
