"""torch.cpu.amp: PyTorch's deprecated CPU aliases of torch.amp (each warns FutureWarning)."""

from __future__ import annotations

import warnings

from .._core import dtypes
from ..amp import autocast_mode as _am
from ..amp.grad_scaler import GradScaler as _GradScaler

__all__ = ["autocast", "GradScaler"]


class autocast(_am.autocast):  # noqa: N801 - PyTorch's name
    """``torch.cpu.amp.autocast(args...)`` is deprecated: ``torch.amp.autocast("cpu",
    args...)``."""

    def __init__(self, enabled=True, dtype=dtypes.bfloat16, cache_enabled=True):
        warnings.warn("`torch.cpu.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cpu', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(_GradScaler):
    """``torch.cpu.amp.GradScaler(args...)`` is deprecated: ``torch.amp.GradScaler("cpu",
    args...)``."""

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        warnings.warn("`torch.cpu.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cpu', args...)` instead.", FutureWarning,
                      stacklevel=2)
        super().__init__("cpu", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval,
                         enabled=enabled)
