"""torch.cuda.amp: PyTorch's deprecated CUDA aliases of torch.amp (each warns FutureWarning)."""

from __future__ import annotations

import functools
import warnings

from .._core import dtypes
from ..amp import autocast_mode as _am
from ..amp._deprecated import deprecated_autocast, deprecated_grad_scaler
from . import is_available

__all__ = ["amp_definitely_not_available", "autocast", "custom_bwd", "custom_fwd",
           "GradScaler"]


def amp_definitely_not_available():
    return not is_available()


autocast = deprecated_autocast(__name__, "cuda", dtypes.float16)
GradScaler = deprecated_grad_scaler(__name__, "cuda")


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
