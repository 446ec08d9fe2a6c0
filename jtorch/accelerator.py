"""torch.accelerator: the machine's accelerator, device-generic (PyTorch 2.6+).

jtorch's accelerator is JAX's: its GPUs (``cuda``), else its TPUs (``tpu``). Without one, as
in PyTorch's CPU build, ``is_available()`` is False, ``current_accelerator()`` None,
``device_count()`` 0, and the functions that need a device raise PyTorch's "Cannot access
accelerator device when none is available.". On a GPU they are ``jtorch.cuda``'s.

Differences from PyTorch:
    - Streams and graphs (``current_stream``, ``set_stream``, ``Graph``),
      ``reset_accumulated_memory_stats`` and ``empty_host_cache`` raise NotImplementedError
      where an accelerator exists: XLA owns its streams, graphs and host memory.
    - On a TPU only ``is_available``, ``current_accelerator`` and ``device_count`` work; the
      others raise NotImplementedError.
"""

from __future__ import annotations

import warnings

from . import cuda
from ._core.device import _NO_ACCELERATOR, device, jax_devices
from ._core.errors import not_implemented, torch_name_fallback

__all__ = ["Graph", "current_accelerator", "current_device_idx", "current_device_index",
           "get_device_capability", "current_stream", "device_count", "device_index",
           "empty_cache", "empty_host_cache", "get_memory_info", "is_available",
           "max_memory_allocated", "max_memory_reserved", "memory_allocated", "memory_reserved",
           "memory_stats", "reset_accumulated_memory_stats", "reset_peak_memory_stats",
           "set_device_idx", "set_device_index", "set_stream", "synchronize"]


def _kind():
    for kind in ("cuda", "tpu"):
        if jax_devices(kind):
            return kind
    return None


def is_available() -> bool:
    """Whether JAX has an accelerator (a GPU or a TPU)."""
    return _kind() is not None


def current_accelerator(check_available=False):
    """The accelerator's device type as a device (``device('cuda')``), or None without one."""
    kind = _kind()
    return None if kind is None else device(kind)


def device_count() -> int:
    """How many accelerator devices JAX has (0 without one)."""
    kind = _kind()
    return 0 if kind is None else len(jax_devices(kind))


def _cuda(api):
    """jtorch.cuda, where the accelerator is a GPU; PyTorch's error without one."""
    kind = _kind()
    if kind is None:
        raise RuntimeError(_NO_ACCELERATOR)
    if kind != "cuda":
        raise not_implemented(f"torch.accelerator.{api} on a TPU")
    return cuda


def _index(dev):
    if isinstance(dev, int):
        return dev
    if isinstance(dev, (str, device)):
        dev = device(dev)
        if dev.type != _kind():
            raise RuntimeError("Accelerator expected")
        if dev.index is not None:
            return dev.index
    raise ValueError(f"Expected a torch.device with a specified index or an integer, but got:"
                     f"{dev}")


def current_device_index() -> int:
    """The index of the current accelerator device."""
    return _cuda("current_device_index").current_device()


def set_device_index(device, /) -> None:
    """Make ``device`` (an index, or a device with one) the current accelerator device."""
    index = _index(device)
    _cuda("set_device_index").set_device(index)


def current_device_idx() -> int:
    """Deprecated alias of :func:`current_device_index` (warns as PyTorch's)."""
    warnings.warn("Use `current_device_index` instead.", FutureWarning, stacklevel=2)
    return current_device_index()


def set_device_idx(device, /) -> None:
    """Deprecated alias of :func:`set_device_index` (warns as PyTorch's)."""
    warnings.warn("Use `set_device_index` instead.", FutureWarning, stacklevel=2)
    set_device_index(device)


class device_index:  # noqa: N801 - PyTorch's name
    """Context manager: ``device`` (an index, or None for no change) is the current accelerator
    device in the block."""

    def __init__(self, device, /):
        self.idx = device
        self.prev_idx = -1

    def __enter__(self):
        if self.idx is not None:
            self.prev_idx = current_device_index()
            set_device_index(self.idx)

    def __exit__(self, *exc):
        if self.idx is not None:
            set_device_index(self.prev_idx)
        return False


def synchronize(device=None, /) -> None:
    """Wait for the accelerator's queued work."""
    _cuda("synchronize").synchronize(device)


def _on_accelerator(api, cuda_name=None):
    """``torch.accelerator.<api>``: ``jtorch.cuda.<cuda_name>`` on a GPU, PyTorch's error
    without an accelerator; with no ``cuda_name`` not implemented (XLA owns it)."""
    def fn(*args, **kwargs):
        cuda_module = _cuda(api)
        if cuda_name is None:
            raise not_implemented(f"torch.accelerator.{api}")
        return getattr(cuda_module, cuda_name)(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = api
    fn.__doc__ = (f"``torch.accelerator.{api}``: " + (f"``jtorch.cuda.{cuda_name}`` on a GPU."
                                                       if cuda_name else "not implemented."))
    return fn


memory_allocated = _on_accelerator("memory_allocated", "memory_allocated")
max_memory_allocated = _on_accelerator("max_memory_allocated", "max_memory_allocated")
memory_reserved = _on_accelerator("memory_reserved", "memory_reserved")
max_memory_reserved = _on_accelerator("max_memory_reserved", "max_memory_reserved")
memory_stats = _on_accelerator("memory_stats", "memory_stats")
reset_peak_memory_stats = _on_accelerator("reset_peak_memory_stats", "reset_peak_memory_stats")
get_device_capability = _on_accelerator("get_device_capability", "get_device_capability")
get_memory_info = _on_accelerator("get_memory_info", "mem_get_info")
empty_cache = _on_accelerator("empty_cache", "empty_cache")
current_stream = _on_accelerator("current_stream")
set_stream = _on_accelerator("set_stream")
reset_accumulated_memory_stats = _on_accelerator("reset_accumulated_memory_stats")
empty_host_cache = _on_accelerator("empty_host_cache")
Graph = _on_accelerator("Graph")

# a name PyTorch has here and jtorch lacks raises NotImplementedError naming it
__getattr__ = torch_name_fallback("torch.accelerator")
