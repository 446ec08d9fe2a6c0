"""torch.autocast: the autocast state per device type and the context manager/decorator.

The state (enabled, dtype per device type; the cache flag; the nesting count) is
process-global in jtorch (PyTorch's is thread-local). Entering or leaving a region rebuilds
``_policy.ACTIVE``, the one value the dispatcher reads: see ``_policy.py`` for how an op in
the policy gets its casts inside its traced kernel.
"""

from __future__ import annotations

import collections.abc
import functools
import warnings

import numpy as np

from .._core import autocast as _policy, dtypes
from .._core.device import _TYPE_ERROR, _TYPE_IDS, device, jax_devices
from .._tensor import Tensor

__all__ = ["autocast_decorator", "autocast", "is_autocast_available", "custom_fwd",
           "custom_bwd"]

# the device types PyTorch's autocast accepts, with their default autocast dtypes
_DEFAULT = {**dict.fromkeys(("cuda", "xpu", "mps", "ipu", "mtia"), dtypes.float16),
            **dict.fromkeys(("cpu", "hpu", "xla", "maia"), dtypes.bfloat16)}

_enabled: dict = {}
_dtype: dict = {}
_cache = [True]
_nesting = [0]


def _check_type(device_type, fn="is_autocast_enabled"):
    if not isinstance(device_type, str):
        raise TypeError(f"{fn}(): argument 'device_type' (position 1) must be str, not "
                        f"{type(device_type).__name__}")
    base = device_type.split(":")[0]
    if base not in _TYPE_IDS or base == "tpu":
        raise RuntimeError(_TYPE_ERROR + device_type)
    return base


# one state object per distinct state, kept alive: its id() is a stable cache key (compile)
_STATES: dict = {}


def _refresh():
    act = {}
    for dev, on in sorted(_enabled.items()):
        if on and dev in _policy.POLICIES:
            act[dev] = (_policy.POLICIES[dev], np.dtype(get_autocast_dtype(dev).np))
    if not act:
        _policy.ACTIVE[0] = None
        return
    key = tuple((dev, str(dt)) for dev, (_, dt) in act.items())
    _policy.ACTIVE[0] = _STATES.setdefault(key, act)


def _type_repr(x):
    return "<class 'torch.device'>" if isinstance(x, device) else str(type(x))


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast can be used on ``device_type`` (jtorch casts ops on 'cpu' and 'cuda'
    tensors; the other types PyTorch accepts keep a state but have no tensors in jtorch)."""
    return _check_type(device_type, "_is_autocast_available") in _DEFAULT


def is_autocast_enabled(device_type=None) -> bool:
    """Whether autocast is on for ``device_type`` (no argument: CUDA's, as in PyTorch)."""
    dev = "cuda" if device_type is None else _check_type(device_type)
    return bool(_enabled.get(dev, False))


def set_autocast_enabled(device_type, enabled=None) -> None:
    """``set_autocast_enabled(device_type, enabled)``, or ``(enabled)`` for CUDA."""
    if enabled is None:
        device_type, enabled = "cuda", device_type
    _enabled[_check_type(device_type, "set_autocast_enabled")] = bool(enabled)
    _refresh()


def get_autocast_dtype(device_type):
    dev = _check_type(device_type, "get_autocast_dtype")
    dt = _dtype.get(dev)
    if dt is None:
        dt = _DEFAULT.get(dev)
        if dt is None:
            raise RuntimeError("unsupported scalarType")
    return dt


def set_autocast_dtype(device_type, dtype) -> None:
    _dtype[_check_type(device_type, "set_autocast_dtype")] = dtype
    _refresh()


def _deprecated(old, new):
    warnings.warn(f"torch.{old} is deprecated. Please use torch.{new} instead.",
                  DeprecationWarning, stacklevel=3)


def _device_alias(name, target, device_type, arg=""):
    """The deprecated ``torch.<name>(arg)``: ``target(device_type, arg)``, with PyTorch's
    DeprecationWarning naming both spellings."""
    old = f"{name}({arg})"
    new = f"{target.__name__}('{device_type}'{', ' + arg if arg else ''})"

    def alias(*args, **kwargs):
        if len(args) + len(kwargs) != bool(arg):
            takes = "exactly one argument" if arg else "no arguments"
            raise TypeError(f"torch.{name}() takes {takes} ({len(args) + len(kwargs)} given)")
        _deprecated(old, new)
        return target(device_type, *args, **kwargs)

    alias.__name__ = alias.__qualname__ = name
    return alias


is_autocast_cpu_enabled = _device_alias("is_autocast_cpu_enabled", is_autocast_enabled, "cpu")
set_autocast_cpu_enabled = _device_alias("set_autocast_cpu_enabled", set_autocast_enabled, "cpu",
                                         "enabled")
get_autocast_cpu_dtype = _device_alias("get_autocast_cpu_dtype", get_autocast_dtype, "cpu")
set_autocast_cpu_dtype = _device_alias("set_autocast_cpu_dtype", set_autocast_dtype, "cpu",
                                       "dtype")
get_autocast_gpu_dtype = _device_alias("get_autocast_gpu_dtype", get_autocast_dtype, "cuda")
set_autocast_gpu_dtype = _device_alias("set_autocast_gpu_dtype", set_autocast_dtype, "cuda",
                                       "dtype")


def is_autocast_cache_enabled() -> bool:
    return _cache[0]


def set_autocast_cache_enabled(enabled) -> None:
    """Accepted for compatibility: jtorch keeps no cast cache (a weight's cast is part of the
    op's compiled kernel; XLA removes repeated casts inside one compiled program)."""
    _cache[0] = bool(enabled)


def clear_autocast_cache() -> None:
    """Nothing to clear: jtorch keeps no cast cache."""


def autocast_increment_nesting() -> int:
    _nesting[0] += 1
    return _nesting[0]


def autocast_decrement_nesting() -> int:
    _nesting[0] -= 1
    return _nesting[0]


def autocast_decorator(autocast_instance, func):
    @functools.wraps(func)
    def decorate_autocast(*args, **kwargs):
        with autocast_instance:
            return func(*args, **kwargs)

    return decorate_autocast


class autocast:  # noqa: N801 - PyTorch's name
    """Context manager / decorator: ops in the region run in an op-specific dtype.

    ``autocast(device_type, dtype=None, enabled=True, cache_enabled=None)``; ``dtype``
    defaults to ``get_autocast_dtype(device_type)`` (bfloat16 for CPU, float16 for CUDA).
    Which ops cast to what follows PyTorch's per-device lists (see jtorch/amp/_policy.py).
    """

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: "
                             f"`{_type_repr(device_type)}`")
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self.device = device_type
        if not is_autocast_available(self.device):
            raise RuntimeError(f"User specified an unsupported autocast device_type "
                               f"'{self.device}'")
        supported = [dtypes.bfloat16, dtypes.float16]
        self._cache_enabled = is_autocast_cache_enabled() if cache_enabled is None \
            else cache_enabled
        name = self.device.upper()
        if enabled:
            if self.device == "cuda":  # (every GPU jtorch runs on supports bfloat16)
                if not jax_devices("cuda"):
                    warnings.warn("CUDA is not available or torch_xla is imported. Disabling "
                                  "autocast.", stacklevel=2)
                    enabled = False
            elif self.fast_dtype not in supported:
                warnings.warn(f"In {name} autocast, but the target dtype is not supported. "
                              f"Disabling autocast.\n{name} Autocast only supports dtypes of "
                              + ", ".join(map(str, supported)) + " currently.", stacklevel=2)
                enabled = False
        self._enabled = enabled

    def __enter__(self):
        self.prev_cache_enabled = is_autocast_cache_enabled()
        self.prev = is_autocast_enabled(self.device)
        self.prev_fastdtype = get_autocast_dtype(self.device)
        _enabled[self.device] = bool(self._enabled)
        _dtype[self.device] = self.fast_dtype
        autocast_increment_nesting()
        set_autocast_cache_enabled(self._cache_enabled)
        _refresh()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if autocast_decrement_nesting() == 0:
            clear_autocast_cache()
        _enabled[self.device] = self.prev
        _dtype[self.device] = self.prev_fastdtype
        set_autocast_cache_enabled(self.prev_cache_enabled)
        _refresh()
        return False

    def __call__(self, func):
        if not callable(func):
            raise TypeError(
                f"autocast()(func) requires a callable, but got {type(func).__name__}. "
                f"Did you mean to use autocast as a context manager? For example:\n"
                f"    with torch.autocast(device_type=...):\n"
                f"        output = model(input)")
        return autocast_decorator(self, func)


def _cast(value, device_type, dtype):
    """Casts the floating tensors (not float64) on ``device_type`` inside ``value``."""

    if isinstance(value, Tensor):
        ok = (value.is_floating_point() and value.device.type == device_type
              and value.dtype is not dtypes.float64)
        return value.to(dtype) if ok else value
    if isinstance(value, (str, bytes, np.ndarray)):
        return value
    if isinstance(value, collections.abc.Mapping):
        return {_cast(k, device_type, dtype): _cast(v, device_type, dtype)
                for k, v in value.items()}
    if isinstance(value, collections.abc.Iterable):
        it = (_cast(v, device_type, dtype) for v in value)
        return type(value)(it) if isinstance(value, (list, tuple)) else it
    return value


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorator for a custom autograd Function's ``forward``: with ``cast_inputs``, inside an
    autocast region its floating inputs are cast and it runs with autocast off."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: "
                         f"`{_type_repr(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        args[0]._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            args[0]._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        on = is_autocast_enabled(device_type)
        args[0]._fwd_used_autocast = False
        if on:
            with autocast(device_type=device_type, enabled=False):
                return fwd(*_cast(args, device_type, cast_inputs),
                           **_cast(kwargs, device_type, cast_inputs))
        return fwd(*args, **kwargs)

    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """Decorator for a custom autograd Function's ``backward``: runs it with the autocast
    state its forward ran with."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: "
                         f"`{_type_repr(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(device_type=device_type, enabled=args[0]._fwd_used_autocast,
                      dtype=args[0]._dtype):
            return bwd(*args, **kwargs)

    return decorate_bwd
