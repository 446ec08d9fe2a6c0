"""torch.amp: automatic mixed precision (autocast regions and gradient scaling).

``jtorch.autocast`` / ``jtorch.amp.autocast`` cast the inputs of listed ops (PyTorch's
per-device-type lists, see ``_policy.py``) inside the ops' compiled kernels;
``jtorch.amp.GradScaler`` scales losses and unscales gradients with array state. See
docs/amp.md.
"""

from __future__ import annotations

from .._core import autocast as _policy  # noqa: F401
from .._core.errors import torch_name_fallback
from .autocast_mode import (
    autocast,
    autocast_decorator,  # noqa: F401
    custom_bwd,
    custom_fwd,
    is_autocast_available,
)
from .grad_scaler import GradScaler, OptState  # noqa: F401

__all__ = ["autocast", "custom_bwd", "custom_fwd", "is_autocast_available", "GradScaler"]

# a name PyTorch has here and jtorch lacks raises NotImplementedError naming it
__getattr__ = torch_name_fallback("torch.amp")
