"""``torch.overrides``: the ``__torch_function__`` protocol's Python API, and the
``TorchFunctionMode`` base class with its per-thread mode stack.

Tensor subclasses take part in the protocol as in PyTorch (jtorch/_core/torch_function.py:
where jtorch checks, and the differences). ``has_torch_function*`` and
``handle_torch_function`` are PyTorch's, for libraries that route their own functions through
the protocol; they answer to the active mode first, as PyTorch's do.

Modes: jtorch's ops do not consult them. The four ``torch.nn.init`` functions that PyTorch
routes through ``handle_torch_function`` on every call (``uniform_``, ``normal_``,
``constant_``, ``kaiming_uniform_``) do: under an active mode they call the innermost mode's
``__torch_function__`` as PyTorch does (the mode popped while it runs; ``types`` the tensor's
type; every argument a keyword), for libraries that enter a mode around model construction
(Lightning's ``_EmptyInit``, around every model its Trainer and Fabric build, skips
``torch.nn.init`` calls when enabled). Any other op called under a mode runs without it.
"""

from __future__ import annotations

import contextlib
import threading
import warnings

from ._core import torch_function
from ._core.errors import missing_names
from ._tensor import Tensor

__all__ = ["TorchFunctionMode", "get_default_nowrap_functions", "handle_torch_function",
           "has_torch_function", "has_torch_function_unary", "has_torch_function_variadic",
           "is_tensor_like"]

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
    this thread's stack, ``__exit__`` pops it. In jtorch only ``handle_torch_function`` and the
    ``torch.nn.init`` functions named in the module docstring call its ``__torch_function__``."""

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


def has_torch_function(relevant_args) -> bool:
    """Whether any of ``relevant_args`` overloads ``__torch_function__`` (a Tensor subclass
    taking part, or another object defining it), or a mode is active; False while the
    protocol is disabled (plain Tensors and Parameters never overload)."""
    if torch_function.is_disabled():
        return False
    return bool(_stack()) or bool(torch_function.overloaded(relevant_args))


def has_torch_function_unary(arg) -> bool:
    return has_torch_function((arg,))


def has_torch_function_variadic(*args) -> bool:
    return has_torch_function(args)


# (PyTorch's Python path words it so, backtick missing)
_PLAIN_METHOD = ("Defining your `__torch_function__ as a plain method is deprecated and will be "
                 "an error in future, please define it as a classmethod.")


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """``public_api(*args, **kwargs)`` answered by the protocol: the innermost active mode's
    ``__torch_function__`` (popped while it runs) first, then the overloaded arguments' in
    PyTorch's order; PyTorch's TypeError when all return ``NotImplemented``."""
    overloaded = torch_function.overloaded(relevant_args)
    types = tuple(type(a) for a in overloaded)
    if _stack():
        with _pop_mode_temporarily() as mode:
            result = mode.__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    result = torch_function.first_answer(public_api, overloaded, args, kwargs,
                                         (_PLAIN_METHOD, DeprecationWarning), 3)
    if result is not NotImplemented:
        return result
    msg = (f"no implementation found for '{public_api.__module__}.{public_api.__name__}' on "
           f"types that implement __torch_function__: {[type(a) for a in overloaded]}")
    if _stack():
        msg += f" nor in mode {_get_current_function_mode()}"
    raise TypeError(msg)


def get_default_nowrap_functions() -> set:
    """The functions whose results Tensor's default ``__torch_function__`` leaves as they are:
    in jtorch none reach it (reading ``grad`` or ``_base`` is not routed through the
    protocol), so the set is empty."""
    return set()


# the rest of PyTorch's __torch_function__ protocol, which jtorch does not have
__getattr__ = missing_names("torch.overrides", (
    "BaseTorchFunctionMode", "enable_reentrant_dispatch", "get_ignored_functions",
    "get_overridable_functions", "get_testing_overrides", "is_tensor_method_or_property",
    "resolve_name", "wrap_torch_function"))
