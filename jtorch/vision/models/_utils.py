"""Helpers shared by the model builders (torchvision's ``models/_utils.py``): the legacy
``pretrained=`` interface, keyword overrides from weights, ``_make_divisible``, and the
ImageNet-1K ``Weights`` entries."""

from __future__ import annotations

import functools
import inspect
import warnings
from functools import partial
from typing import Any

from jtorch import nn

from ..transforms._presets import ImageClassification
from ._api import Weights, WeightsEnum
from ._meta import _IMAGENET_CATEGORIES


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


def _init_mobile_weights(model, linear_init):
    """The initialization of MobileNet V2/V3 and EfficientNet: kaiming-normal (fan_out) convs,
    unit/zero norms, ``linear_init(weight)`` and zero biases for the linear layers."""
    for m in model.modules():
        if isinstance(m, nn.Conv2d):
            nn.init.kaiming_normal_(m.weight, mode="fan_out")
            if m.bias is not None:
                nn.init.zeros_(m.bias)
        elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
            nn.init.ones_(m.weight)
            nn.init.zeros_(m.bias)
        elif isinstance(m, nn.Linear):
            linear_init(m.weight)
            nn.init.zeros_(m.bias)


def _load_weights(model, weights, progress):
    """Loads ``weights``' checkpoint (hub cache or download) into ``model``, strictly."""
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
    return model


def _imagenet1k(url, *, num_params, min_size, recipe, acc1, acc5, ops, file_size,
                transforms=None, **meta):
    """A ``Weights`` entry trained on ImageNet-1K: torchvision's url, preset and meta
    (``transforms`` holds the ``ImageClassification`` keywords; ``crop_size=224`` default)."""
    return Weights(
        url=url,
        transforms=partial(ImageClassification, **(transforms or {"crop_size": 224})),
        meta={"categories": _IMAGENET_CATEGORIES, "min_size": min_size,
              "num_params": num_params, "recipe": recipe,
              "_metrics": {"ImageNet-1K": {"acc@1": acc1, "acc@5": acc5}}, "_ops": ops,
              "_file_size": file_size, **meta})
