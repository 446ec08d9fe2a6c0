"""jtorch.cuda: the CUDA device queries, answered by JAX's GPU backend."""

from __future__ import annotations

import jax

from ._device import device, jax_devices, to_jax

_current = [0]


def is_available() -> bool:
    return bool(jax_devices("cuda"))


def device_count() -> int:
    return len(jax_devices("cuda"))


def _check():
    if not is_available():
        raise AssertionError("Torch not compiled with CUDA enabled")


def current_device() -> int:
    _check()
    return _current[0]


def set_device(dev) -> None:
    idx = dev if isinstance(dev, int) else device(dev).index or 0
    if idx < 0:
        return
    _check()
    if idx >= device_count():
        raise RuntimeError("CUDA error: invalid device ordinal")
    _current[0] = idx


def _jdev(dev):
    if dev is None:
        return to_jax(device("cuda", current_device()))
    return to_jax(device("cuda", dev) if isinstance(dev, int) else device(dev))


def get_device_name(dev=None) -> str:
    return _jdev(dev).device_kind


def synchronize(dev=None) -> None:
    """Waits for all work on the device: JAX has no streams to wait on, so this blocks on
    every live array of that device."""
    d = _jdev(dev)
    for a in jax.live_arrays():
        if d in a.devices():
            a.block_until_ready()


def _stats(dev):
    return _jdev(dev).memory_stats() or {}


def memory_allocated(dev=None) -> int:
    return int(_stats(dev).get("bytes_in_use", 0))


def max_memory_allocated(dev=None) -> int:
    return int(_stats(dev).get("peak_bytes_in_use", 0))


def memory_reserved(dev=None) -> int:
    return int(_stats(dev).get("bytes_reserved", _stats(dev).get("bytes_limit", 0)))


def empty_cache() -> None:
    """Releases cached memory: JAX frees buffers when arrays die, so this only clears JAX's
    compilation caches' references; it is a no-op when CUDA is absent, as in PyTorch."""


def manual_seed(seed) -> None:
    from ._random import manual_seed as _ms

    _ms(seed)


manual_seed_all = manual_seed
