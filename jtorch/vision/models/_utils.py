"""Helpers shared by the model builders (torchvision's ``models/_utils.py``): the legacy
``pretrained=`` interface, the builder functions, keyword overrides from weights, the shared
weight initialization, ``_make_divisible``, ``IntermediateLayerGetter`` (the backbones of the
segmentation models), and the weights enums (from ``_weights.json``)."""

from __future__ import annotations

import functools
import inspect
import json
import warnings
from collections import OrderedDict
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

from jtorch import nn

from ..transforms._presets import (
    ImageClassification,
    ObjectDetection,
    OpticalFlow,
    SemanticSegmentation,
    VideoClassification,
)
from ..transforms.functional import InterpolationMode
from ._api import Weights, WeightsEnum, register_model
from ._meta import (
    _COCO_CATEGORIES,
    _COCO_PERSON_CATEGORIES,
    _COCO_PERSON_KEYPOINT_NAMES,
    _IMAGENET_CATEGORIES,
    _KINETICS400_CATEGORIES,
    _VOC_CATEGORIES,
)


class IntermediateLayerGetter(nn.ModuleDict):
    """The direct children of ``model`` up to the last one named in ``return_layers``, run in
    their registration order; returns an ``OrderedDict`` of the outputs of the children named
    in ``return_layers`` (``{child name: output name}``). Only direct children can be returned,
    and ``model`` must call its children once each, in the order it registered them.

    Args:
        model (nn.Module): the model whose children are taken (its parameters are shared).
        return_layers (dict[str, str]): the children whose outputs are returned, and the keys
            they are returned under.

    Example:
        >>> m = jtorch.vision.models.resnet18()
        >>> getter = IntermediateLayerGetter(m, {"layer1": "feat1", "layer3": "feat2"})
        >>> [(k, tuple(v.shape)) for k, v in getter(jtorch.rand(1, 3, 64, 64)).items()]
        [('feat1', (1, 64, 16, 16)), ('feat2', (1, 256, 4, 4))]
    """

    _version = 2

    def __init__(self, model: nn.Module, return_layers: dict[str, str]) -> None:
        if not set(return_layers).issubset([name for name, _ in model.named_children()]):
            raise ValueError("return_layers are not present in model")
        remaining = {str(k): str(v) for k, v in return_layers.items()}
        layers = OrderedDict()
        for name, module in model.named_children():
            layers[name] = module
            remaining.pop(name, None)
            if not remaining:
                break
        super().__init__(layers)
        self.return_layers = return_layers

    def forward(self, x):
        out = OrderedDict()
        for name, module in self.items():
            x = module(x)
            if name in self.return_layers:
                out[self.return_layers[name]] = x
        return out


def _sequence_to_str(seq, separate_last=""):
    if not seq:
        return ""
    if len(seq) == 1:
        return f"'{seq[0]}'"
    head = "'" + "', '".join([str(item) for item in seq[:-1]]) + "'"
    tail = f"{'' if separate_last and len(seq) == 2 else ','} {separate_last}'{seq[-1]}'"
    return head + tail


def _make_divisible(v: float, divisor: int, min_value: int | None = None) -> int:
    """``v`` rounded to a multiple of ``divisor``, never more than 10% below ``v`` (from the
    original TensorFlow MobileNet)."""
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


def kwonly_to_pos_or_kw(fn):
    """Lets keyword-only parameters also be passed positionally, with a deprecation warning."""
    params = inspect.signature(fn).parameters
    try:
        start = next(i for i, p in enumerate(params.values()) if p.kind == p.KEYWORD_ONLY)
    except StopIteration:
        raise TypeError(f"Found no keyword-only parameter on function '{fn.__name__}'") from None
    keyword_only_params = tuple(params)[start:]

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any):
        args, keyword_only_args = args[:start], args[start:]
        if keyword_only_args:
            kw = dict(zip(keyword_only_params, keyword_only_args))
            warnings.warn(
                f"Using {_sequence_to_str(tuple(kw.keys()), separate_last='and ')} as positional "
                "parameter(s) is deprecated since 0.13 and may be removed in the future. Please "
                "use keyword parameter(s) instead.", stacklevel=2)
            kwargs.update(kw)
        return fn(*args, **kwargs)

    return wrapper


def handle_legacy_interface(**weights):
    """Maps the pre-0.13 ``pretrained=True/False`` to ``weights=<default enum>/None`` with
    torchvision's deprecation warnings, and allows positional arguments again."""

    def outer_wrapper(builder):
        @kwonly_to_pos_or_kw
        @functools.wraps(builder)
        def inner_wrapper(*args: Any, **kwargs: Any):
            for weights_param, (pretrained_param, default) in weights.items():
                sentinel = object()
                weights_arg = kwargs.get(weights_param, sentinel)
                if ((weights_param not in kwargs and pretrained_param not in kwargs)
                        or isinstance(weights_arg, WeightsEnum)
                        or (isinstance(weights_arg, str) and weights_arg != "legacy")
                        or weights_arg is None):
                    continue
                pretrained_positional = weights_arg is not sentinel
                if pretrained_positional:
                    kwargs[pretrained_param] = pretrained_arg = kwargs.pop(weights_param)
                else:
                    pretrained_arg = kwargs[pretrained_param]
                if pretrained_arg:
                    default_weights_arg = default(kwargs) if callable(default) else default
                    if not isinstance(default_weights_arg, WeightsEnum):
                        raise ValueError(f"No weights available for model {builder.__name__}")
                else:
                    default_weights_arg = None
                if not pretrained_positional:
                    warnings.warn(
                        f"The parameter '{pretrained_param}' is deprecated since 0.13 and may be "
                        f"removed in the future, please use '{weights_param}' instead.",
                        stacklevel=2)
                msg = (f"Arguments other than a weight enum or `None` for '{weights_param}' are "
                       "deprecated since 0.13 and may be removed in the future. The current "
                       "behavior is equivalent to passing "
                       f"`{weights_param}={default_weights_arg}`.")
                if pretrained_arg:
                    msg = (f"{msg} You can also use `{weights_param}="
                           f"{type(default_weights_arg).__name__}.DEFAULT` to get the most "
                           "up-to-date weights.")
                warnings.warn(msg, stacklevel=2)
                del kwargs[pretrained_param]
                kwargs[weights_param] = default_weights_arg
            return builder(*args, **kwargs)

        return inner_wrapper

    return outer_wrapper


def _ovewrite_named_param(kwargs: dict[str, Any], param: str, new_value: Any) -> None:
    if param in kwargs:
        if kwargs[param] != new_value:
            raise ValueError(f"The parameter '{param}' expected value {new_value} but got "
                             f"{kwargs[param]} instead.")
    else:
        kwargs[param] = new_value


def _check_stage_settings(settings: Any, name: str, config: type) -> None:
    """torchvision's check of a model's per-stage configs (the argument ``name``): not empty,
    and a ``Sequence`` of ``config`` (named without a leading underscore in the error)."""
    if not settings:
        raise ValueError(f"The {name} should not be empty")
    if not (isinstance(settings, Sequence) and all(isinstance(s, config) for s in settings)):
        raise TypeError(f"The {name} should be List[{config.__name__.lstrip('_')}]")


def _ovewrite_value_param(param: str, actual: Any, expected: Any) -> Any:
    """``expected``, where ``actual`` (the value passed, None when not) agrees with it."""
    if actual is not None and actual != expected:
        raise ValueError(f"The parameter '{param}' expected value {expected} but got {actual} "
                         "instead.")
    return expected


def _init_conv_norm_linear(model, linear_init=None, norms=(nn.BatchNorm2d, nn.GroupNorm),
                           zero_conv_bias=True):
    """torchvision's usual initialization: kaiming-normal (fan_out, ReLU gain) convolutions with
    zero biases (ResNet, ``zero_conv_bias=False``, leaves them), unit weight and zero bias for the
    ``norms``, and, where ``linear_init`` is given, ``linear_init(weight)`` and a zero bias for
    the linear layers (else they keep their default initialization)."""
    for m in model.modules():
        if isinstance(m, nn.Conv2d):
            nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            if zero_conv_bias and m.bias is not None:
                nn.init.zeros_(m.bias)
        elif isinstance(m, norms):
            nn.init.ones_(m.weight)
            nn.init.zeros_(m.bias)
        elif linear_init is not None and isinstance(m, nn.Linear):
            linear_init(m.weight)
            nn.init.zeros_(m.bias)


def _build(make_model, weights, progress, kwargs, **from_meta):
    """``make_model(**kwargs)`` with ``weights`` loaded: where there are weights, ``num_classes``
    (when they name categories) and each keyword of ``from_meta`` (a function of
    ``weights.meta``) must agree with them and default to them."""
    if weights is not None:
        if weights.meta["categories"] is not None:
            _ovewrite_named_param(kwargs, "num_classes", len(weights.meta["categories"]))
        for param, value in from_meta.items():
            _ovewrite_named_param(kwargs, param, value(weights.meta))
    model = make_model(**kwargs)
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
    return model


def _model_builder(module, name, weights_enum, model_cls, build, summary, kwargs_doc="",
                   legacy_weights="IMAGENET1K_V1"):
    """The public builder ``name(*, weights=None, progress=True, **kwargs)`` of torchvision's
    registry: verifies ``weights`` (a ``weights_enum`` member, its name or None), then returns
    ``build(weights, progress, kwargs)`` (``kwargs`` a dict); takes the legacy ``pretrained=`` (its
    ``legacy_weights`` member; None: ``pretrained=True`` raises, as for a model without
    ImageNet-1K weights), is registered under ``name`` and documented by ``summary``."""

    def builder(*, weights=None, progress=True, **kwargs):
        return build(weights_enum.verify(weights), progress, kwargs)

    builder.__name__ = builder.__qualname__ = name
    builder.__module__ = module
    builder.__annotations__ = {"weights": weights_enum | None, "progress": bool, "kwargs": Any,
                               "return": model_cls}
    builder.__doc__ = (
        f"{summary}\n\n    Args:\n"
        f"        weights ({weights_enum.__name__}, optional): pre-trained weights (None: random"
        " init).\n        progress (bool): show a download progress bar. Default True\n"
        f"        **kwargs: passed to ``{model_cls.__name__}``{kwargs_doc}.\n    ")
    legacy = handle_legacy_interface(weights=(
        "pretrained", None if legacy_weights is None else weights_enum[legacy_weights]))
    return register_model()(legacy(builder))


_PRESETS = {"ImageClassification": ImageClassification,
            "ObjectDetection": ObjectDetection,
            "OpticalFlow": OpticalFlow,
            "SemanticSegmentation": SemanticSegmentation,
            "VideoClassification": VideoClassification}
# the names lists of the meta's "categories" and "keypoint_names" (shortened in _weights.json)
_CATEGORIES = {"ImageNet-1K": _IMAGENET_CATEGORIES, "VOC": _VOC_CATEGORIES,
               "Kinetics-400": _KINETICS400_CATEGORIES, "COCO": _COCO_CATEGORIES,
               "COCO-person": _COCO_PERSON_CATEGORIES,
               "COCO-person-keypoints": _COCO_PERSON_KEYPOINT_NAMES}


def _weights_value(entry):
    """A ``Weights`` from its ``_weights.json`` entry: its preset (``ImageClassification``
    unless the entry names another) with the entry's keywords, and the ImageNet-1K, VOC,
    Kinetics-400 or COCO categories (and COCO keypoint names) where the entry names them."""
    keywords = entry["transforms"]  # None: the preset class itself (the detection weights)
    preset = {k: InterpolationMode(v) if k == "interpolation" else
              tuple(v) if isinstance(v, list) else v for k, v in (keywords or {}).items()}
    meta = {k: tuple(v) if isinstance(v, list) else v for k, v in entry["meta"].items()}
    if "categories" in meta:  # (the optical flow weights have none)
        meta["categories"] = _CATEGORIES.get(meta["categories"])
    if "keypoint_names" in meta:
        meta["keypoint_names"] = _CATEGORIES[meta["keypoint_names"]]
    preset_cls = _PRESETS[entry.get("preset", "ImageClassification")]
    transforms = preset_cls if keywords is None else partial(preset_cls, **preset)
    return Weights(url=entry["url"], transforms=transforms, meta=meta)


_WEIGHTS = json.loads(Path(__file__).with_name("_weights.json").read_text(encoding="utf-8"))


def _weights_enum(module, name):
    """The ``WeightsEnum`` ``name`` of ``module``, its members (and aliases such as ``DEFAULT``)
    read from ``_weights.json``: torchvision's urls, preprocessing and meta."""
    members = {}
    for member, entry in _WEIGHTS[name].items():
        members[member] = members[entry] if isinstance(entry, str) else _weights_value(entry)
    return WeightsEnum(name, list(members.items()), module=module, qualname=name)
