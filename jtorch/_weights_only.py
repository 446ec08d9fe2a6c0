"""The names a checkpoint's pickle may refer to, and the unpickler that allows only those.

A PyTorch checkpoint's ``data.pkl`` names PyTorch's own functions and classes
(``torch._utils._rebuild_tensor_v2``, ``torch FloatStorage``, ``torch float32``...). Loading
maps each such name onto jtorch's equivalent. With ``weights_only=True`` (the default) every
other global is refused at the GLOBAL opcode, before any object is built, so a crafted pickle
runs nothing: ``find_class`` is the only way a pickle can reach code (REDUCE, NEWOBJ, INST, OBJ
and the extension registry all go through it).
"""

from __future__ import annotations

import _codecs
import _compat_pickle
import collections
import contextlib
import pickle

from ._core import dtypes, layout
from ._core.device import device
from ._core.tensor_base import Size
from ._ops.typed_storage import CPU_STORAGES
from ._tensor import Tensor
from .nn.parameter import Parameter

# torch storage class name <-> dtype (the legacy storage classes': "float32" -> "FloatStorage")
STORAGE_NAMES = {cls._dtype.name: cls.__name__ for cls in CPU_STORAGES}
STORAGE_DTYPES = {v: getattr(dtypes, k if k != "bool" else "bool_")
                  for k, v in STORAGE_NAMES.items()}
# the dtypes without a typed storage class (float8, uint16/32/64) are saved as bytes in an
# ``UntypedStorage`` with ``_rebuild_tensor_v3``, which names the dtype
UNTYPED_STORAGE = "storage.UntypedStorage"
STORAGE_DTYPES[UNTYPED_STORAGE] = dtypes.uint8


class StorageType:
    """What ``torch FloatStorage`` & co. load as: the dtype of the storage's elements."""

    def __init__(self, name):
        self.name = name
        self.dtype = STORAGE_DTYPES[name]

    def __repr__(self):
        return f"StorageType(dtype={self.dtype})"


# PyTorch's tensor-rebuilding functions -> jtorch.serialization's (it imports this module, so it
# registers them here when it is imported)
_REBUILDERS: dict = {}


def register_rebuilders(rebuilders):
    """``{"torch._utils._rebuild_tensor_v2": function, ...}``: how a checkpoint's tensors and
    parameters are rebuilt."""
    _REBUILDERS.update(rebuilders)


def allowed_globals():
    """Full dotted name -> object, for every global a weights-only load may use."""
    rc = {
        "collections.OrderedDict": collections.OrderedDict,
        "collections.Counter": collections.Counter,
        "torch.nn.parameter.Parameter": Parameter,
        "torch.serialization._get_layout": lambda name: getattr(layout, name.split(".")[-1]),
        "torch.Size": Size,
        "torch.Tensor": Tensor,
        "torch.device": device,
        "_codecs.encode": _codecs.encode,
        "builtins.bytearray": bytearray,
        "builtins.set": set,
        "builtins.complex": complex,
    }
    for d in (*dtypes.ALL, *dtypes.NAMED_ONLY):
        rc[f"torch.{d.name}"] = d
    for name in STORAGE_DTYPES:
        rc[f"torch.{name}"] = StorageType(name)
    rc.update(_REBUILDERS)
    return rc


# ------------------------------------------------------------------ user allow-list
_SAFE: dict = {}


def _full_name(obj):
    if isinstance(obj, tuple):
        return obj[1]
    return f"{obj.__module__}.{obj.__qualname__}"


def add_safe_globals(safe_globals):
    """Allow these globals (objects, or ``(obj, "module.name")`` pairs) in weights-only loads."""
    for g in safe_globals:
        _SAFE[_full_name(g)] = g[0] if isinstance(g, tuple) else g


def get_safe_globals():
    return list(_SAFE.values())


def clear_safe_globals():
    _SAFE.clear()


@contextlib.contextmanager
def safe_globals(globals_list):
    saved = dict(_SAFE)
    add_safe_globals(globals_list)
    try:
        yield
    finally:
        _SAFE.clear()
        _SAFE.update(saved)


# ------------------------------------------------------------------ unpicklers
class TorchUnpickler(pickle.Unpickler):
    """Maps PyTorch's names onto jtorch's (``torch.x.y`` -> ``jtorch.x.y`` where jtorch has it)
    and loads everything else normally."""

    def __init__(self, file, persistent_load, **kw):
        super().__init__(file, **kw)
        self._pload = persistent_load
        self._torch = allowed_globals()

    def persistent_load(self, pid):
        return self._pload(pid)

    def find_class(self, module, name):
        full = f"{module}.{name}"
        if full in self._torch:
            return self._torch[full]
        if module == "torch" or module.startswith("torch."):
            try:
                return super().find_class("j" + module, name)
            except (ImportError, AttributeError):
                pass
        return super().find_class(module, name)


class WeightsOnlyUnpickler(TorchUnpickler):
    """Refuses every global outside the allow-list and the user's add_safe_globals."""

    def find_class(self, module, name):
        # Python 2's names (``__builtin__.set``, protocol 2) as pickle's fix_imports maps them
        module, name = _compat_pickle.NAME_MAPPING.get((module, name), (module, name))
        module = _compat_pickle.IMPORT_MAPPING.get(module, module)
        full = f"{module}.{name}"
        if full in self._torch:
            return self._torch[full]
        if full in _SAFE:
            return _SAFE[full]
        raise pickle.UnpicklingError(
            f"Unsupported global: GLOBAL {full} was not an allowed global by default. "
            f"Please use `torch.serialization.add_safe_globals([{name}])` or the "
            f"`torch.serialization.safe_globals([{name}])` context manager to allowlist this "
            "global if you trust this class/function.")


UNSAFE_MESSAGE = (
    "Re-running `torch.load` with `weights_only` set to `False` will likely succeed, but it can "
    "result in arbitrary code execution. Do it only if you got the file from a trusted source.")


def weights_only_error(err):
    return pickle.UnpicklingError(
        "Weights only load failed. This file can still be loaded, to do so you have two "
        "options, do those steps only if you trust the source of the checkpoint. "
        f"\n\t(1) {UNSAFE_MESSAGE}\n\t(2) Alternatively, to load with `weights_only=True` please "
        "check the recommended steps in the following error message.\n\tWeightsUnpickler "
        f"error: {err}")
