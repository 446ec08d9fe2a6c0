"""torch.cpu.amp: PyTorch's deprecated CPU aliases of torch.amp (each warns FutureWarning), in
PyTorch's submodules ``autocast_mode`` and ``grad_scaler``."""

from __future__ import annotations

from . import autocast_mode as autocast_mode, grad_scaler as grad_scaler
from .autocast_mode import autocast as autocast
from .grad_scaler import GradScaler as GradScaler

__all__ = ["autocast", "GradScaler"]
