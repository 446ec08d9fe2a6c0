"""torch.amp: automatic mixed precision (autocast regions and gradient scaling).

``jtorch.autocast`` / ``jtorch.amp.autocast`` cast the inputs of listed ops (PyTorch's
per-device-type lists, see ``_policy.py``) inside the ops' compiled kernels;
``jtorch.amp.GradScaler`` scales losses and unscales gradients with array state. See
docs/amp.md.
"""

from __future__ import annotations

from .._core import autocast as _policy  # noqa: F401
from .._ops._registry import NAMESPACES as _NS
from .autocast_mode import (
    autocast,
    autocast_decorator,  # noqa: F401
    custom_bwd,
    custom_fwd,
    is_autocast_available,
)
from .grad_scaler import GradScaler, OptState  # noqa: F401

__all__ = ["autocast", "custom_bwd", "custom_fwd", "is_autocast_available", "GradScaler"]


def _publish():
    """The autocast state functions PyTorch has at ``torch.*``."""
    from . import autocast_mode as m

    for name in ("autocast", "is_autocast_enabled", "set_autocast_enabled",
                 "get_autocast_dtype", "set_autocast_dtype", "is_autocast_cpu_enabled",
                 "set_autocast_cpu_enabled", "get_autocast_cpu_dtype", "set_autocast_cpu_dtype",
                 "get_autocast_gpu_dtype", "set_autocast_gpu_dtype", "is_autocast_cache_enabled",
                 "set_autocast_cache_enabled", "clear_autocast_cache",
                 "autocast_increment_nesting", "autocast_decrement_nesting"):
        _NS[""][name] = getattr(m, name)


_publish()
