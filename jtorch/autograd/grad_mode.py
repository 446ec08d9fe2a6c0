"""Grad modes: no_grad, enable_grad, set_grad_enabled, inference_mode (and
set_multithreading_enabled).

The flags live in jtorch/_core/state.py (per thread); the dispatcher and the engine read them.
Each mode is a context manager and a decorator (with or without parentheses for no_grad,
enable_grad and inference_mode), also of generator functions.
"""

from __future__ import annotations

from .._core.context_decorator import decorate_with_clones
from .._core.state import STATE


def is_grad_enabled() -> bool:
    return STATE.grad_enabled


def is_inference_mode_enabled() -> bool:
    return STATE.inference


class _Mode:
    """Base of the grad-mode context managers; each also works as a decorator."""

    _enter = (True, False)   # (grad enabled, inference) inside the block

    def __enter__(self):
        self._prev = (STATE.grad_enabled, STATE.inference)
        STATE.grad_enabled, STATE.inference = self._enter
        return None

    def __exit__(self, *exc):
        STATE.grad_enabled, STATE.inference = self._prev
        return False

    def __call__(self, fn):
        return decorate_with_clones(self, fn)

    def clone(self):
        return type(self)()


class _NoParamMode(_Mode):
    """Usable as ``@mode``, ``@mode()`` and ``with mode():``."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)

    def __enter__(self):
        self._prev = (STATE.grad_enabled, STATE.inference)
        STATE.grad_enabled = self._enter[0]


class no_grad(_NoParamMode):  # noqa: N801 - PyTorch's name
    """Context manager and decorator that disables gradient recording."""

    _enter = (False, False)


class enable_grad(_NoParamMode):  # noqa: N801 - PyTorch's name
    """Context manager and decorator that enables gradient recording."""

    _enter = (True, False)


class set_grad_enabled(_Mode):  # noqa: N801 - PyTorch's name
    """Sets gradient recording on or off; works as a function, context manager or decorator."""

    def __init__(self, mode: bool):
        self.mode = bool(mode)
        self._prev = (STATE.grad_enabled, STATE.inference)
        STATE.grad_enabled = self.mode

    def __enter__(self):
        return None

    def __call__(self, fn):
        STATE.grad_enabled, STATE.inference = self._prev  # as a decorator, change nothing now
        return super().__call__(fn)

    def clone(self):
        return set_grad_enabled(self.mode)


class inference_mode(_Mode):  # noqa: N801 - PyTorch's name
    """Like no_grad; ``inference_mode(False)`` enables gradients. jtorch has no separate
    inference tensors (tensors made here are ordinary tensors without history)."""

    def __new__(cls, mode=True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)

    def __init__(self, mode: bool = True):
        self.mode = mode
        self._enter = (not mode, bool(mode))

    def clone(self):
        return inference_mode(self.mode)


def is_multithreading_enabled() -> bool:
    return STATE.multithreading


class set_multithreading_enabled(_Mode):  # noqa: N801 - PyTorch's name
    """Whether backward may run device work on worker threads (per thread, as PyTorch's). It
    sets the flag when made and restores it on exit; jtorch's engine runs every backward on the
    calling thread, so the flag changes nothing else."""

    def __init__(self, mode: bool):
        self.prev = STATE.multithreading
        STATE.multithreading = bool(mode)
        self.mode = mode

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        STATE.multithreading = self.prev
        return False

    def clone(self):
        return type(self)(self.mode)
