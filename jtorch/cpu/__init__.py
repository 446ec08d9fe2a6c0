"""torch.cpu: the CPU device module (always available; one device; nothing to synchronize:
JAX's CPU work is waited on when a value is read) and ``torch.cpu.amp``."""

from __future__ import annotations

from contextlib import AbstractContextManager

import jax

from .._core.errors import torch_name_fallback

__all__ = ["is_available", "synchronize", "current_device", "current_stream", "stream",
           "set_device", "device_count", "Stream", "StreamContext", "Event", "is_initialized"]


def is_available() -> bool:
    return True


def is_initialized() -> bool:
    return True


def synchronize(device=None) -> None:
    """Waits for the CPU: every live CPU array is blocked on."""

    for a in jax.live_arrays():
        if all(d.platform == "cpu" for d in a.devices()):
            a.block_until_ready()


def device_count() -> int:
    return 1


def set_device(device) -> None:
    """A no-op, as in PyTorch."""


def current_device() -> str:
    return "cpu"


class Stream:
    """PyTorch's N.B.-only CPU stream: a no-op object."""

    def __init__(self, priority: int = -1):
        pass

    def wait_stream(self, stream) -> None:
        pass

    def record_event(self):
        pass

    def wait_event(self, event) -> None:
        pass


class Event:
    def query(self) -> bool:
        return True

    def record(self, stream=None) -> None:
        pass

    def synchronize(self) -> None:
        pass

    def wait(self, stream=None) -> None:
        pass


_default_stream = Stream()
_current = [_default_stream]


def current_stream(device=None) -> Stream:
    return _current[0]


class StreamContext(AbstractContextManager):
    def __init__(self, stream):
        self.stream = stream
        self.prev_stream = _default_stream

    def __enter__(self):
        if self.stream is None:
            return
        self.prev_stream = _current[0]
        _current[0] = self.stream

    def __exit__(self, *exc):
        if self.stream is not None:
            _current[0] = self.prev_stream


def stream(stream) -> AbstractContextManager:
    return StreamContext(stream)


from . import amp  # noqa: E402 - torch.cpu.amp (deprecated aliases of torch.amp)

# a name PyTorch has here and jtorch lacks raises NotImplementedError naming it
__getattr__ = torch_name_fallback("torch.cpu")
