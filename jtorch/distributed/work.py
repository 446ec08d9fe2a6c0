"""``Work`` (what a collective with ``async_op=True`` returns) and its ``Future``.

jtorch's collectives are XLA programs; a collective returns once its program finished, so a
``Work`` is already complete (``wait()`` returns True at once, ``is_completed()`` is True), and
its future holds the output tensors.

Differences from PyTorch: the collective does not overlap with the Python code that follows
it (JAX still overlaps the computation it dispatches); ``Future`` is a minimal
``torch.futures.Future`` (``wait``, ``value``, ``done``, ``then``, ``set_result``).
"""

from __future__ import annotations

__all__ = ["Future", "Work"]


class Future:
    """The result of an asynchronous operation (``torch.futures.Future``'s core)."""

    def __init__(self):
        self._value = None
        self._done = False
        self._callbacks = []

    def done(self) -> bool:
        return self._done

    def wait(self):
        if not self._done:
            raise RuntimeError("jtorch.distributed: this Future has no result yet")
        return self._value

    def value(self):
        return self.wait()

    def set_result(self, result) -> None:
        self._value, self._done = result, True
        for cb in self._callbacks:
            cb(self)
        self._callbacks = []

    def then(self, callback):
        """A future that holds ``callback(self)`` once this one is done."""
        out = Future()

        def run(fut):
            out.set_result(callback(fut))

        if self._done:
            run(self)
        else:
            self._callbacks.append(run)
        return out

    def add_done_callback(self, callback) -> None:
        if self._done:
            callback(self)
        else:
            self._callbacks.append(callback)


class Work:
    """A finished collective: ``wait()``, ``is_completed()``, ``is_success()``,
    ``result()`` (its output tensors), ``get_future()``."""

    def __init__(self, outputs=()):
        self._outputs = list(outputs)

    def wait(self, timeout=None) -> bool:
        return True

    def is_completed(self) -> bool:
        return True

    def is_success(self) -> bool:
        return True

    def exception(self):
        return None

    def synchronize(self) -> None:
        pass

    def result(self) -> list:
        return self._outputs

    def get_future(self) -> Future:
        fut = Future()
        fut.set_result(self._outputs)
        return fut
