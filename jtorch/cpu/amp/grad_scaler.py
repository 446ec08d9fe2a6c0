"""torch.cpu.amp.grad_scaler: PyTorch's deprecated CPU ``GradScaler``
(``torch.amp.GradScaler("cpu")``; warns FutureWarning)."""

from __future__ import annotations

from ...amp._deprecated import deprecated_grad_scaler

__all__ = ["GradScaler"]

GradScaler = deprecated_grad_scaler(__name__, "cpu")
