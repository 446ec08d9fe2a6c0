"""``torch.utils.data._utils.pin_memory``: jtorch has no page-locked host memory (tensors are
JAX arrays), so pinning returns the data unchanged; the loop forwards batches as PyTorch's
pin-memory thread does."""

import queue

from .._worker import MP_STATUS_CHECK_INTERVAL, ExceptionWrapper

__all__ = ["pin_memory"]


def pin_memory(data, device=None):
    """``data`` as is: there is no pinned memory to copy it into."""
    return data


def _pin_memory_loop(in_queue, out_queue, device_id, done_event, device=None):
    """Moves ``(idx, data)`` pairs from ``in_queue`` to ``out_queue`` until ``done_event``."""
    while not done_event.is_set():
        try:
            idx, data = in_queue.get(timeout=MP_STATUS_CHECK_INTERVAL)
        except queue.Empty:
            continue
        if not isinstance(data, ExceptionWrapper):
            try:
                data = pin_memory(data, device)
            except Exception:  # noqa: BLE001 - shipped on and re-raised by the loader
                data = ExceptionWrapper(where=f"in pin memory thread for device {device_id}")
        while not done_event.is_set():
            try:
                out_queue.put((idx, data), timeout=MP_STATUS_CHECK_INTERVAL)
                break
            except queue.Full:
                continue
