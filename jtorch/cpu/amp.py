"""torch.cpu.amp: PyTorch's deprecated CPU aliases of torch.amp (each warns FutureWarning)."""

from __future__ import annotations

from .._core import dtypes
from ..amp._deprecated import deprecated_autocast, deprecated_grad_scaler

__all__ = ["autocast", "GradScaler"]

autocast = deprecated_autocast(__name__, "cpu", dtypes.bfloat16)
GradScaler = deprecated_grad_scaler(__name__, "cpu")
