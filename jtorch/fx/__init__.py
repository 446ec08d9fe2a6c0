"""torch.fx on jtorch: ``wrap`` only (and ``GraphModule`` as a stand-in nn.Module subclass).

jtorch has no FX: its graph capture is ``jtorch.compile`` (JAX tracing into one XLA program).
``wrap`` is kept because model libraries (timm, torchvision's detection models) call it at
import to mark a function as a leaf for a later ``torch.fx.symbolic_trace``; in PyTorch it
changes nothing else, so here it checks its argument as PyTorch does and returns it.
``symbolic_trace``, ``Tracer`` and the other FX names raise NotImplementedError naming the
PyTorch API (a class, e.g. ``Graph``, ``Interpreter``, when made; ``GraphModule`` derives from
``nn.Module`` as in PyTorch, so that e3nn's ``class Legendre(fx.GraphModule)`` passes its
nn.Module check at import).
"""

from __future__ import annotations

import inspect

from .._core.errors import missing_class, torch_name_fallback
from ..nn.modules.module import Module

__all__ = ["GraphModule", "wrap"]

# a Module subclass as in PyTorch, so that libraries subclassing it at import load (e3nn's
# Legendre); making one raises NotImplementedError
GraphModule = missing_class("torch.fx.GraphModule", bases=(Module,))


def wrap(fn_or_name):
    """``torch.fx.wrap``: mark a module-level function (or its name) to stay a call in FX
    graphs; returns ``fn_or_name``. It must be called at the top level of a module."""
    if not callable(fn_or_name) and not isinstance(fn_or_name, str):
        raise RuntimeError("Unsupported type for global function! Must be either a callable "
                           "or string name")
    caller = inspect.currentframe().f_back
    if caller.f_code.co_name != "<module>":
        raise NotImplementedError("wrap must be called at the top level of a module")
    return fn_or_name


__getattr__ = torch_name_fallback("torch.fx")
