"""The deprecated per-device aliases of torch.amp (``torch.cpu.amp`` and ``torch.cuda.amp``):
the same classes bound to a device, warning FutureWarning on construction."""

from __future__ import annotations

import warnings

from . import autocast_mode as _am
from .grad_scaler import GradScaler as _GradScaler


def _warn(device, name):
    warnings.warn(f"`torch.{device}.amp.{name}(args...)` is deprecated. Please use "
                  f"`torch.amp.{name}('{device}', args...)` instead.", FutureWarning,
                  stacklevel=3)


def _named(cls, module, device, name):
    cls.__name__ = cls.__qualname__ = name
    cls.__module__ = module
    cls.__doc__ = (f"``torch.{device}.amp.{name}(args...)`` is deprecated: "
                   f"``torch.amp.{name}(\"{device}\", args...)``.")
    return cls


def deprecated_autocast(module, device, default_dtype):
    """``torch.<device>.amp.autocast``: ``torch.amp.autocast(device, ...)`` with the device's
    default dtype."""

    class autocast(_am.autocast):  # noqa: N801 - PyTorch's name
        def __init__(self, enabled=True, dtype=default_dtype, cache_enabled=True):
            _warn(device, "autocast")
            super().__init__(device, enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)

    return _named(autocast, module, device, "autocast")


def deprecated_grad_scaler(module, device):
    """``torch.<device>.amp.GradScaler``: ``torch.amp.GradScaler(device, ...)``."""

    class GradScaler(_GradScaler):
        def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                     growth_interval=2000, enabled=True):
            _warn(device, "GradScaler")
            super().__init__(device, init_scale=init_scale, growth_factor=growth_factor,
                             backoff_factor=backoff_factor, growth_interval=growth_interval,
                             enabled=enabled)

    return _named(GradScaler, module, device, "GradScaler")
