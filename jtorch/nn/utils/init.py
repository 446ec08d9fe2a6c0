"""torch.nn.utils.init: skip_init."""

from __future__ import annotations

import inspect

from ..modules.module import Module

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """Make ``module_cls(*args, **kwargs)`` without initializing its parameters: built on the
    meta device (no values, no initialization computed), then given storage on ``device``
    (default CPU) by ``to_empty``; jtorch's empty storage holds zeros."""
    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    kwargs["device"] = "meta"
    return module_cls(*args, **kwargs).to_empty(device=final_device)
