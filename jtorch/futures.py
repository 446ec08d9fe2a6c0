"""``torch.futures``: ``Future``, ``collect_all`` and ``wait_all``.

A ``Future`` holds the result (or the exception) of a computation that may finish later, on
another thread: ``wait()`` blocks until it is set. jtorch makes them for ``torch.jit.fork``
(which runs the function at once, as PyTorch's eager ``fork`` does) and for the ``Work`` of an
asynchronous collective (already finished: jtorch's collectives are XLA programs). Callbacks
given to ``then`` and ``add_done_callback`` run on the thread that sets the result, or at once
when it is already set, as in PyTorch.

Differences from PyTorch: ``devices=`` is accepted and unused (JAX orders the work it
dispatches on each device itself, so there are no CUDA streams to synchronise); ``value()``
of an unfinished future raises a RuntimeError saying so (PyTorch fails an internal assert).
"""

from __future__ import annotations

import sys
import threading
import traceback
from typing import Generic, TypeVar

__all__ = ["Future", "collect_all", "wait_all"]

T = TypeVar("T")


class Future(Generic[T]):
    """The result of an asynchronous computation (``torch.futures.Future``).

    Args:
        devices: accepted for PyTorch's signature; unused in jtorch (see the module doc).
    """

    def __init__(self, *, devices=None):
        self._cond = threading.Condition()
        self._done = False
        self._value = None
        self._error = None
        self._callbacks = []

    def done(self) -> bool:
        """Whether the result (or an exception) has been set."""
        return self._done

    def wait(self):
        """Block until the future is done, then return its value (raise its exception)."""
        with self._cond:
            while not self._done:
                self._cond.wait()
        return self.value()

    def value(self):
        """The value of a done future (its exception is raised)."""
        if not self._done:
            raise RuntimeError("jtorch: Future.value() of a future that is not done yet; "
                               "call wait() to block until it is")
        if self._error is not None:
            raise self._error
        return self._value

    def set_result(self, result) -> None:
        """Mark the future done with ``result`` and run its callbacks."""
        self._complete(result, None)

    def set_exception(self, result) -> None:
        """Mark the future done with the exception ``result``: ``wait()`` raises it."""
        if not isinstance(result, BaseException):
            raise AssertionError(f"{result} is of type {type(result)}, not an Exception.")
        self._complete(None, result)

    def _complete(self, value, error):
        with self._cond:
            if self._done:
                raise RuntimeError("Attempting to mark a completed Future as complete again. "
                                   "Note that a Future can only be marked completed once.")
            self._value, self._error, self._done = value, error, True
            callbacks, self._callbacks = self._callbacks, []
            self._cond.notify_all()
        for cb in callbacks:
            cb(self)

    def then(self, callback):
        """A new future that holds ``callback(self)`` once this one is done (or the error
        ``callback`` raised, as PyTorch words it)."""
        out = Future()

        def run(fut):
            try:
                result = callback(fut)
            except Exception as e:  # noqa: BLE001 - the callback's error goes to ``out``
                out.set_exception(RuntimeError(_callback_error(e)))
            else:
                out.set_result(result)

        self._on_done(run)
        return out

    def add_done_callback(self, callback) -> None:
        """Run ``callback(self)`` once the future is done; an error it raises is reported on
        stderr and dropped, as in PyTorch."""
        def run(fut):
            try:
                callback(fut)
            except Exception as e:  # noqa: BLE001 - PyTorch logs and goes on
                print(_callback_error(e), file=sys.stderr)

        self._on_done(run)

    def _on_done(self, run):
        with self._cond:
            if not self._done:
                self._callbacks.append(run)
                return
        run(self)


def _callback_error(e):
    where = "".join(traceback.format_tb(e.__traceback__))
    return (f"Got the following error when running the callback: {type(e).__name__}: {e}"
            f"\n\nAt:\n{where}")


def collect_all(futures):
    """A future that is done, holding the list ``futures``, once all of them are done."""
    futures = list(futures)
    out = Future()
    remaining = [len(futures)]
    lock = threading.Lock()

    def one_done(_):
        with lock:
            remaining[0] -= 1
            last = remaining[0] == 0
        if last:
            out.set_result(futures)

    if not futures:
        out.set_result(futures)
    for f in futures:
        f.add_done_callback(one_done)
    return out


def wait_all(futures):
    """Wait for every future and return their values; the first one's exception is raised."""
    return [f.wait() for f in collect_all(futures).wait()]
