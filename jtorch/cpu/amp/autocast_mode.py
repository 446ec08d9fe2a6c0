"""torch.cpu.amp.autocast_mode: PyTorch's deprecated CPU ``autocast`` (``torch.amp.autocast
("cpu")``; warns FutureWarning)."""

from __future__ import annotations

from ..._core import dtypes
from ...amp._deprecated import deprecated_autocast

__all__ = ["autocast"]

autocast = deprecated_autocast(__name__, "cpu", dtypes.bfloat16)
