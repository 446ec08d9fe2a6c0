"""torchvision's model registry and weights enums: ``Weights``, ``WeightsEnum``,
``register_model``, ``list_models``, ``get_model``, ``get_model_builder``,
``get_model_weights``, ``get_weight``.

A ``WeightsEnum`` member's ``get_state_dict`` reads torchvision's published checkpoint through
``jtorch.hub.load_state_dict_from_url``: from ``<hub dir>/checkpoints/<file name>`` when it is
there (the file PyTorch would have downloaded), else it downloads it.
"""

from __future__ import annotations

import fnmatch
import importlib
import inspect
import sys
import types
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from functools import partial
from operator import attrgetter
from typing import Any, get_args

from ... import hub
from ..._core.errors import is_stand_in

__all__ = ["WeightsEnum", "Weights", "get_model", "get_model_builder", "get_model_weights",
           "get_weight", "list_models"]


@dataclass
class Weights:
    """The checkpoint ``url``, the preprocessing constructor ``transforms`` and ``meta``
    (``categories``, ``num_params``, ``min_size``, ``_metrics``...) of pre-trained weights."""

    url: str
    transforms: Callable
    meta: dict[str, Any]

    def __eq__(self, other: Any) -> bool:
        # partial objects compare by identity; compare what they hold (deepcopy/pickle safe)
        if not isinstance(other, Weights):
            return NotImplemented
        if self.url != other.url or self.meta != other.meta:
            return False
        if isinstance(self.transforms, partial) and isinstance(other.transforms, partial):
            return (self.transforms.func == other.transforms.func
                    and self.transforms.args == other.transforms.args
                    and self.transforms.keywords == other.transforms.keywords)
        return self.transforms == other.transforms


class WeightsEnum(Enum):
    """The parent class of every model's weights enum; each value is a ``Weights``."""

    @classmethod
    def verify(cls, obj: Any) -> Any:
        if obj is not None:
            if type(obj) is str:
                obj = cls[obj.replace(cls.__name__ + ".", "")]
            elif not isinstance(obj, cls):
                raise TypeError(f"Invalid Weight class provided; expected {cls.__name__} but "
                                f"received {obj.__class__.__name__}.")
        return obj

    def get_state_dict(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return hub.load_state_dict_from_url(self.url, *args, **kwargs)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}.{self._name_}"

    url = property(attrgetter("value.url"))
    transforms = property(attrgetter("value.transforms"))
    meta = property(attrgetter("value.meta"))


def get_weight(name: str) -> WeightsEnum:
    """The weights enum member named like ``"ResNet50_Weights.IMAGENET1K_V1"``."""
    try:
        enum_name, value_name = name.split(".")
    except ValueError:
        raise ValueError(f"Invalid weight name provided: '{name}'.") from None
    # torchvision.models and its packages (segmentation; the stand-ins of detection, ...)
    base_module = importlib.import_module(__name__.rsplit(".", 1)[0])
    for module in [base_module] + [m for m in vars(base_module).values()
                                   if isinstance(m, types.ModuleType) and hasattr(m, "__path__")]:
        potential = module.__dict__.get(enum_name, None)
        if is_stand_in(potential):
            return getattr(potential, value_name)  # raises NotImplementedError, naming it
        if isinstance(potential, type) and issubclass(potential, WeightsEnum):
            return potential[value_name]
    raise ValueError(f"The weight enum '{enum_name}' for the specific method couldn't be "
                     "retrieved.")


def get_model_weights(name: Callable | str) -> type[WeightsEnum]:
    """The weights enum class of a model builder (the builder or its registered name)."""
    model = get_model_builder(name) if isinstance(name, str) else name
    return _get_enum_from_fn(model)


def _get_enum_from_fn(fn: Callable) -> type[WeightsEnum]:
    sig = inspect.signature(fn)
    if "weights" not in sig.parameters:
        raise ValueError("The method is missing the 'weights' argument.")
    ann = sig.parameters["weights"].annotation
    if isinstance(ann, str):  # postponed annotations: evaluate in the builder's module
        ann = eval(ann, sys.modules[fn.__module__].__dict__)
    if isinstance(ann, type) and issubclass(ann, WeightsEnum):
        return ann
    for t in get_args(ann):
        if isinstance(t, type) and issubclass(t, WeightsEnum):
            return t
    raise ValueError("The WeightsEnum class for the specific method couldn't be retrieved. Make "
                     "sure the typing info is correct.")


BUILTIN_MODELS: dict[str, Callable] = {}


def register_model(name: str | None = None):
    """Registers a model builder under ``name`` (default: the function's name)."""
    def wrapper(fn):
        key = name if name is not None else fn.__name__
        if key in BUILTIN_MODELS:
            raise ValueError(f"An entry is already registered under the name '{key}'.")
        BUILTIN_MODELS[key] = fn
        return fn

    return wrapper


def list_models(module=None, include=None, exclude=None) -> list[str]:
    """The sorted names of the registered models, optionally from one ``module`` and filtered
    by ``fnmatch`` patterns (``include`` first, then ``exclude``)."""
    all_models = {k for k, v in BUILTIN_MODELS.items()
                  if module is None or v.__module__.rsplit(".", 1)[0] == module.__name__}
    if include:
        models: set[str] = set()
        for f in [include] if isinstance(include, str) else include:
            models |= set(fnmatch.filter(all_models, f))
    else:
        models = all_models
    if exclude:
        for f in [exclude] if isinstance(exclude, str) else exclude:
            models -= set(fnmatch.filter(all_models, f))
    return sorted(models)


def get_model_builder(name: str) -> Callable:
    """The builder function registered under ``name``."""
    try:
        return BUILTIN_MODELS[name.lower()]
    except KeyError:
        raise ValueError(f"Unknown model {name.lower()}") from None


def get_model(name: str, **config: Any):
    """``get_model_builder(name)(**config)``."""
    return get_model_builder(name)(**config)
