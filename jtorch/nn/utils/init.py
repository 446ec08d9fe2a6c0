"""torch.nn.utils.init: skip_init."""

from __future__ import annotations

import inspect

from ..modules.module import Module

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """Make ``module_cls(*args, **kwargs)`` without initializing its parameters (their values
    are unspecified). PyTorch builds the module on the meta device and allocates it with
    ``to_empty``; jtorch has no meta device, so it builds the module on the final device and its
    parameters hold the usual initial values (which are some unspecified values)."""
    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    kwargs.setdefault("device", "cpu")
    return module_cls(*args, **kwargs)
