"""torch.cuda.amp.autocast_mode: PyTorch's deprecated CUDA ``autocast``, ``custom_fwd`` and
``custom_bwd`` (aliases of torch.amp's; each warns FutureWarning)."""

from __future__ import annotations

import functools
import warnings

from ..._core import dtypes
from ...amp import autocast_mode as _am
from ...amp._deprecated import deprecated_autocast

__all__ = ["autocast", "custom_bwd", "custom_fwd"]

autocast = deprecated_autocast(__name__, "cuda", dtypes.float16)


def custom_fwd(fwd=None, *, cast_inputs=None):
    """Deprecated: ``torch.amp.custom_fwd(args..., device_type='cuda')``."""
    warnings.warn("`torch.cuda.amp.custom_fwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_fwd(args..., device_type='cuda')` instead.", FutureWarning,
                  stacklevel=2)
    return functools.partial(_am.custom_fwd, device_type="cuda")(fwd=fwd,
                                                                 cast_inputs=cast_inputs)


def custom_bwd(bwd):
    """Deprecated: ``torch.amp.custom_bwd(args..., device_type='cuda')``."""
    warnings.warn("`torch.cuda.amp.custom_bwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_bwd(args..., device_type='cuda')` instead.", FutureWarning,
                  stacklevel=2)
    return functools.partial(_am.custom_bwd, device_type="cuda")(bwd)
