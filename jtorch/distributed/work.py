"""``Work`` (what a collective with ``async_op=True`` returns) and its ``Future``.

jtorch's collectives are XLA programs; a collective returns once its program finished, so a
``Work`` is already complete (``wait()`` returns True at once, ``is_completed()`` is True), and
its future holds the output tensors.

Differences from PyTorch: the collective does not overlap with the Python code that follows
it (JAX still overlaps the computation it dispatches). ``Future`` is ``torch.futures.Future``
(jtorch/futures.py).
"""

from __future__ import annotations

from ..futures import Future

__all__ = ["Future", "Work"]


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
