"""torch.cuda.amp: PyTorch's deprecated CUDA aliases of torch.amp (each warns FutureWarning),
in PyTorch's submodules ``autocast_mode``, ``grad_scaler`` and ``common``."""

from __future__ import annotations

from . import autocast_mode as autocast_mode, common as common, grad_scaler as grad_scaler
from .autocast_mode import autocast as autocast, custom_bwd as custom_bwd, custom_fwd as custom_fwd
from .common import amp_definitely_not_available as amp_definitely_not_available
from .grad_scaler import GradScaler as GradScaler

__all__ = ["amp_definitely_not_available", "autocast", "custom_bwd", "custom_fwd",
           "GradScaler"]
