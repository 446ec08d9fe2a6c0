"""Grad modes: no_grad, enable_grad, set_grad_enabled, inference_mode.

The flag is read by exactly one place, the dispatcher (and the engine, for create_graph).
"""

from __future__ import annotations

import functools
import threading


class _State(threading.local):
    enabled = True
    inference = False


state = _State()


def is_grad_enabled() -> bool:
    return state.enabled


def is_inference_mode_enabled() -> bool:
    return state.inference


class _Mode:
    """Base of the grad-mode context managers; each also works as a decorator."""

    _enter_value = True

    def __enter__(self):
        self._prev = (state.enabled, state.inference)
        state.enabled = self._enter_value
        return self

    def __exit__(self, *exc):
        state.enabled, state.inference = self._prev
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.clone():
                return fn(*args, **kwargs)

        return wrapper

    def clone(self):
        return type(self)()


class no_grad(_Mode):
    """Context manager and decorator that disables gradient recording."""

    _enter_value = False


class enable_grad(_Mode):
    """Context manager and decorator that enables gradient recording."""

    _enter_value = True


class set_grad_enabled(_Mode):
    """Sets gradient recording on or off; works as a function, context manager or decorator."""

    def __init__(self, mode: bool):
        self._enter_value = bool(mode)
        self._prev = (state.enabled, state.inference)
        state.enabled = self._enter_value

    def __enter__(self):
        return self

    def __call__(self, fn):
        state.enabled, state.inference = self._prev  # as a decorator, change nothing now
        return super().__call__(fn)

    def clone(self):
        return enable_grad() if self._enter_value else no_grad()




class inference_mode(_Mode):
    """Like no_grad (jtorch has no separate inference tensors; see docs/differences.md)."""

    def __init__(self, mode: bool = True):
        self.mode = bool(mode)

    def __enter__(self):
        self._prev = (state.enabled, state.inference)
        if self.mode:
            state.enabled, state.inference = False, True
        return self

    def __call__(self, fn=None):
        if fn is None or isinstance(fn, bool):
            return inference_mode(True if fn is None else fn)
        return super().__call__(fn)

    def clone(self):
        return inference_mode(self.mode)
