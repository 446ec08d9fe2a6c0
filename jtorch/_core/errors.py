"""jtorch's own errors: what a trace cannot do, and the PyTorch APIs jtorch does not have.

Errors that PyTorch also raises keep PyTorch's type and wording where they are raised. The ones
here exist only in jtorch, so they say what happened, why, and what to do instead.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import types

from .removed import removed_function


class TraceError(RuntimeError):
    """A jtorch operation that needs a concrete value ran while being traced by jax.jit."""


def concretization_error(what: str) -> TraceError:
    return TraceError(
        f"jtorch: {what} inside a traced function (jtorch.compile, jax.jit, vmap...).\n"
        "While tracing, a Tensor holds a placeholder, not numbers, so its value cannot reach "
        "Python.\nFix: keep the value as a Tensor (use jtorch.where instead of an `if` on a "
        "tensor, return the tensor and call .item() outside the compiled function), or run "
        "this part eagerly.")


# ------------------------------------------------------------------ what jtorch does not have
def not_implemented(api: str, instead: str | None = None) -> NotImplementedError:
    """The error for PyTorch's ``api`` (its full name, e.g. ``"torch.nn.functional.ctc_loss"``),
    naming what to use instead where jtorch or JAX has an alternative."""
    return NotImplementedError(_not_implemented_message(api, instead))


def _not_implemented_message(api, instead):
    msg = f"jtorch does not implement {api} yet"
    return msg + f"; use {instead} instead" if instead else msg


class NotImplementedAttribute(NotImplementedError, AttributeError):
    """Reading a name PyTorch has and jtorch lacks: a NotImplementedError naming the PyTorch API,
    and an AttributeError too, so that feature checks (``hasattr(torch, "float8_e4m3fn")``,
    ``getattr(torch, name, None)``, as safetensors and transformers make at import) see the
    name as absent, as on a PyTorch without it. (``from torch import name`` then raises
    Python's ImportError, which it makes of any AttributeError.)"""


def missing_attribute(api: str, instead: str | None = None) -> NotImplementedAttribute:
    """The error for reading PyTorch name ``api`` that jtorch lacks (see
    :class:`NotImplementedAttribute`)."""
    return NotImplementedAttribute(_not_implemented_message(api, instead))


def missing_function(api: str, instead: str | None = None):
    """A stand-in for PyTorch function ``api``: calling it raises :func:`not_implemented`."""
    name = api.rsplit(".", 1)[-1]

    def missing(*args, **kwargs):
        raise not_implemented(api, instead)

    missing.__name__ = missing.__qualname__ = name
    missing._jtorch_missing = api
    missing.__doc__ = f"Not implemented in jtorch: ``{api}``" + (f" (use {instead})."
                                                              if instead else ".")
    return missing


def missing_class(api: str, instead: str | None = None, bases: tuple = ()):
    """A stand-in for PyTorch class ``api``: it can be named, subclassed and used in
    ``isinstance``; making an instance raises :func:`not_implemented`."""
    name = api.rsplit(".", 1)[-1]

    def __init__(self, *args, **kwargs):
        raise not_implemented(api, instead)

    return type(name, bases, {"__init__": __init__, "__doc__": f"Not implemented: ``{api}``.",
                              "__module__": api.rsplit(".", 1)[0], "_jtorch_missing": api})


def is_stand_in(obj) -> bool:
    """True for the stand-ins :func:`missing_function` and :func:`missing_class` make."""
    return getattr(obj, "_jtorch_missing", None) is not None


_STAND_IN_CLASSES: dict = {}   # one class per PyTorch name, so isinstance and `is` agree


def stand_in_class(api: str, instead: str | None = None, bases: tuple = ()):
    """The one :func:`missing_class` stand-in of PyTorch (or torchvision) class ``api``."""
    if api not in _STAND_IN_CLASSES:
        _STAND_IN_CLASSES[api] = missing_class(api, instead, bases)
    return _STAND_IN_CLASSES[api]


class MissingModule(types.ModuleType):
    """A stand-in for PyTorch submodule ``api``: any public name read from it raises
    :func:`not_implemented` for that name, except the class names ``classes``: those are
    stand-in classes (:func:`stand_in_class`), so that importing and annotating with them
    work and making one raises."""

    def __init__(self, api: str, instead: str | None = None, classes=()):
        super().__init__(api)
        self._instead = instead
        self._classes = frozenset(classes)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if name in self._classes:
            return stand_in_class(f"{self.__name__}.{name}", self._instead)
        raise missing_attribute(f"{self.__name__}.{name}", self._instead)


def missing_names(api: str, names, classes=(), bases: tuple = ()) -> object:
    """A module ``__getattr__`` for jtorch's mirror of namespace ``api`` (a torchvision or a
    private torch one, which torch_names.json does not record): reading one of ``names`` (that
    namespace's names jtorch lacks) raises NotImplementedError naming it; one of ``classes``
    (its classes jtorch lacks) is a stand-in class with ``bases`` (:func:`stand_in_class`);
    any other name is Python's AttributeError."""
    module_name = ("jtorch." + api.replace("torchvision", "vision", 1)
                   if api.startswith("torchvision") else api.replace("torch", "jtorch", 1))
    names, classes = frozenset(names), frozenset(classes)

    def __getattr__(name):
        if name in classes:
            return stand_in_class(f"{api}.{name}", bases=bases)
        if name in names:
            raise missing_attribute(f"{api}.{name}")
        raise AttributeError(f"module '{module_name}' has no attribute '{name}'")

    return __getattr__


# ------------------------------------------------------------------ names PyTorch has
_TORCH_NAMES = []   # [namespaces dict], loaded on first use from jtorch/_data/torch_names.json

# where jtorch or JAX has an alternative to a PyTorch API it does not implement
ALTERNATIVES = {
    "torch.jit.script": "jtorch.compile",
    "torch.jit.trace": "jtorch.compile",
    "torch.cuda.graphs": "jtorch.compile (one XLA program per step)",
    "torch.cuda.CUDAGraph": "jtorch.compile (one XLA program per step)",
    "torch.vmap": "jtorch.func.vmap",
    "torch.nn.DataParallel": "jtorch.nn.parallel.DistributedDataParallel",
}


def torch_names(api: str) -> dict:
    """PyTorch's public names of namespace ``api`` (``"torch.nn"``), with what each is."""
    if not _TORCH_NAMES:
        path = os.path.join(os.path.dirname(os.path.dirname(__file__)), "_data",
                            "torch_names.json")
        with open(path) as f:
            _TORCH_NAMES.append(json.load(f)["namespaces"])
    return _TORCH_NAMES[0].get(api, {})


def torch_name_fallback(api: str):
    """A module ``__getattr__`` for jtorch's mirror of PyTorch namespace ``api``: a submodule
    jtorch has is imported on first use (``jtorch.distributed`` as ``torch.distributed``); a
    name PyTorch has there and jtorch does not raises NotImplementedError naming it (or gives
    the same standard-library object PyTorch re-exports, e.g. ``typing.Optional``; or, for a
    class, a stand-in class that raises NotImplementedError when made, so that annotations and
    ``isinstance`` naming it work); any other name is Python's AttributeError."""
    module_name = api.replace("torch", "jtorch", 1)

    def submodule(name):
        """The submodule ``name`` if jtorch has it (run-time need: imported on first use, as
        PyTorch imports ``torch._dynamo`` lazily), else None."""
        try:
            spec = importlib.util.find_spec(f"{module_name}.{name}")
        except ImportError:   # module_name is a module, not a package
            spec = None
        return None if spec is None else importlib.import_module(f"{module_name}.{name}")

    def __getattr__(name):
        kind = torch_names(api).get(name) if not name.startswith("_") else None
        if kind is None:
            found = submodule(name) if not name.startswith("__") else None
            if found is None:
                raise AttributeError(f"module '{module_name}' has no attribute '{name}'")
            return found
        if kind.startswith("python:"):
            _, module, qual = kind.split(":", 2)
            obj = importlib.import_module(module)
            for part in filter(None, qual.split(".")):
                obj = getattr(obj, part)
            return obj
        found = submodule(name)
        if found is not None:
            return found
        full = f"{api}.{name}"
        gone = removed_function(full)   # torch.solve...: a function raising PyTorch's error
        if gone is not None:
            return gone
        if kind == "torch-class":
            return stand_in_class(full, ALTERNATIVES.get(full))
        raise missing_attribute(full, ALTERNATIVES.get(full))

    return __getattr__
