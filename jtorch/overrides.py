"""``torch.overrides``: the ``TorchFunctionMode`` base class and its per-thread mode stack.

jtorch has no ``__torch_function__`` protocol: its tensors and functions do not consult
overloaded arguments or modes, except for the four ``torch.nn.init`` functions that PyTorch
routes through ``handle_torch_function`` on every call (``uniform_``, ``normal_``,
``constant_``, ``kaiming_uniform_``): under an active mode they call the innermost mode's
``__torch_function__`` as PyTorch does (the mode popped while it runs; ``types`` the tensor's
type; every argument a keyword), for libraries that enter a mode around model construction
(Lightning's ``_EmptyInit``, around every model its Trainer and Fabric build, skips
``torch.nn.init`` calls when enabled). Any other function called under a mode runs without
it.
"""

from __future__ import annotations

import contextlib
import threading
import warnings

from ._core.errors import missing_names
from ._tensor import Tensor

__all__ = ["TorchFunctionMode", "is_tensor_like"]

_TLS = threading.local()


def _stack() -> list:
    stack = getattr(_TLS, "stack", None)
    if stack is None:
        stack = _TLS.stack = []
    return stack


def _push_mode(mode) -> None:
    _stack().append(mode)


def _pop_mode():
    return _stack().pop()


@contextlib.contextmanager
def _pop_mode_temporarily():
    mode = _pop_mode()
    try:
        yield mode
    finally:
        _push_mode(mode)


def _get_current_function_mode():
    """The innermost active mode of this thread, or None."""
    stack = _stack()
    return stack[-1] if stack else None


def _get_current_function_mode_stack() -> list:
    """This thread's active modes, outermost first (a copy)."""
    return list(_stack())


def _len_torch_function_stack() -> int:
    return len(_stack())


class TorchFunctionMode:
    """A mode overriding functions within a dynamic scope: ``with MyMode(): ...`` pushes it on
    this thread's stack, ``__exit__`` pops it. In jtorch only the ``torch.nn.init`` functions
    named in the module docstring call its ``__torch_function__``."""

    inner: TorchFunctionMode

    def __init__(self) -> None:
        pass

    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        _push_mode(self)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        _pop_mode()

    @classmethod
    def push(cls, *args, **kwargs):
        warnings.warn("`Mode.push()` is no longer necessary and can be replaced with just "
                      "`with Mode()`", stacklevel=2)
        return cls(*args, **kwargs)


def _dispatch_to_mode(func, tensor, kwargs):
    """``func(**kwargs)`` as PyTorch runs an overridable function under a mode: the innermost
    mode's ``__torch_function__(func, (type(tensor),), (), kwargs)``, with that mode popped
    while it runs. Returns ``NotImplemented`` when no mode is active (the caller runs ``func``'s
    own body)."""
    if not _stack():
        return NotImplemented
    with _pop_mode_temporarily() as mode:
        result = mode.__torch_function__(func, (type(tensor),), (), kwargs)
    if result is NotImplemented:
        with _pop_mode_temporarily():
            return func(**kwargs)
    return result


def is_tensor_like(inp) -> bool:
    """True for a Tensor (a subclass too: PyTorch's inherit ``__torch_function__``) and for any
    object whose type defines ``__torch_function__``."""
    return isinstance(inp, Tensor) or hasattr(inp, "__torch_function__")


# the rest of PyTorch's __torch_function__ protocol, which jtorch does not have
__getattr__ = missing_names("torch.overrides", (
    "BaseTorchFunctionMode", "enable_reentrant_dispatch", "get_ignored_functions",
    "get_overridable_functions", "get_testing_overrides", "handle_torch_function",
    "has_torch_function", "has_torch_function_unary", "has_torch_function_variadic",
    "is_tensor_method_or_property", "resolve_name", "wrap_torch_function"))
