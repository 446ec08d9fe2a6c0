"""torch.cuda.nvtx: NVTX profiler range markers. jtorch has no NVTX library; with a GPU the
markers are accepted and only their nesting is tracked (PyTorch's return values); without one
each call raises RuntimeError, as on PyTorch's CPU build."""

from __future__ import annotations

from contextlib import contextmanager

from . import is_available

__all__ = ["range_push", "range_pop", "range_start", "range_end", "mark", "range"]

_depth = [0]
_next_id = [0]


def _check():
    if not is_available():
        raise RuntimeError("NVTX functions not installed. Are you sure you have a CUDA build?")


def range_push(msg):
    """Pushes a range onto the stack of nested ranges; returns its zero-based depth."""
    _check()
    _depth[0] += 1
    return _depth[0] - 1


def range_pop():
    """Pops the innermost range; returns its zero-based depth (-1 with none open)."""
    _check()
    if _depth[0] == 0:
        return -1
    _depth[0] -= 1
    return _depth[0]


def range_start(msg) -> int:
    """Starts a range that may span threads; returns its id for ``range_end``."""
    _check()
    _next_id[0] += 1
    return _next_id[0]


def range_end(range_id) -> None:
    """Ends the range ``range_id`` from ``range_start``."""
    _check()


def mark(msg):
    """An instantaneous event."""
    _check()


@contextmanager
def range(msg, *args, **kwargs):
    """A context manager (or decorator) pushing ``msg.format(*args, **kwargs)`` for its
    body."""
    range_push(msg.format(*args, **kwargs))
    try:
        yield
    finally:
        range_pop()
