"""jtorch.cuda: the CUDA queries, answered by JAX's GPU backend.

Without a GPU these behave as PyTorch's CPU-only build: ``is_available()`` is False,
``device_count()`` 0, the memory counters 0, ``empty_cache`` and the seeding functions do
nothing, and what needs a device raises ``AssertionError: Torch not compiled with CUDA
enabled``. (CPU-only PyTorch's ``set_device(i)`` and ``reset_peak_memory_stats`` fail with an
AttributeError about a missing ``torch._C`` binding; jtorch raises that AssertionError there.)
"""

from __future__ import annotations

import collections

import jax

from .._core.device import CURRENT_CUDA as _current, _make, device as _Device, jax_devices, to_jax
from .._core.errors import ALTERNATIVES, missing_class, torch_name_fallback
from .._core.generator import (
    get_rng_state as _get_state,
    initial_seed as _is,
    manual_seed as _ms,
    seed as _seed,
    set_rng_state as _set_state,
)
from .._ops.legacy_types import (  # the legacy *Tensor types
    CudaBFloat16Tensor as BFloat16Tensor,
    CudaBoolTensor as BoolTensor,
    CudaByteTensor as ByteTensor,
    CudaCharTensor as CharTensor,
    CudaDoubleTensor as DoubleTensor,
    CudaFloatTensor as FloatTensor,
    CudaHalfTensor as HalfTensor,
    CudaIntTensor as IntTensor,
    CudaLongTensor as LongTensor,
    CudaShortTensor as ShortTensor,
)
from .._ops.typed_storage import (  # the legacy *Storage classes
    CudaBFloat16Storage as BFloat16Storage,
    CudaBoolStorage as BoolStorage,
    CudaByteStorage as ByteStorage,
    CudaCharStorage as CharStorage,
    CudaComplexDoubleStorage as ComplexDoubleStorage,
    CudaComplexFloatStorage as ComplexFloatStorage,
    CudaDoubleStorage as DoubleStorage,
    CudaFloatStorage as FloatStorage,
    CudaHalfStorage as HalfStorage,
    CudaIntStorage as IntStorage,
    CudaLongStorage as LongStorage,
    CudaShortStorage as ShortStorage,
)

_NO_CUDA = "Torch not compiled with CUDA enabled"


def is_available() -> bool:
    """Whether JAX sees a GPU."""
    return bool(jax_devices("cuda"))


def device_count() -> int:
    return len(jax_devices("cuda"))


def is_initialized() -> bool:
    return is_available()


def _lazy_init():
    if not is_available():
        raise AssertionError(_NO_CUDA)


init = _lazy_init


def _index(dev, optional=False):
    """torch.cuda's _get_device_index: an int, a cuda device or its string."""
    if isinstance(dev, int):
        return dev
    if dev is None:
        if optional:
            return current_device()
        raise ValueError("Expected a torch.device with a specified index or an integer, but "
                         "got:None")
    if isinstance(dev, device):  # the context manager below
        return dev.idx
    dev = _Device(dev)
    if dev.type != "cuda":
        raise ValueError(f"Expected a cuda device, but got: {dev}")
    if dev.index is None:
        if optional:
            return current_device()
        raise ValueError(f"Expected a torch.device with a specified index or an integer, but "
                         f"got:{dev}")
    return dev.index


def current_device() -> int:
    _lazy_init()
    return _current[0]


def set_device(dev) -> None:
    """Sets the current CUDA device; a no-op for a negative index."""
    idx = _index(dev)
    if idx < 0:
        return
    _lazy_init()
    if idx >= device_count():
        raise RuntimeError("CUDA error: invalid device ordinal")
    _current[0] = idx


class device:
    """Context manager that makes ``dev`` the current CUDA device (a no-op for -1/None)."""

    def __init__(self, device):
        self.idx = -1 if device is None else _index(device, optional=True)
        self.prev = -1

    def __enter__(self):
        if self.idx == -1:
            return
        if not is_available():
            raise RuntimeError("PyTorch was compiled without CUDA support")
        self.prev = _current[0]
        set_device(self.idx)

    def __exit__(self, *exc):
        if self.prev != -1:
            _current[0] = self.prev
        return False


def _jdev(dev):
    _lazy_init()
    idx = _index(dev, optional=True)
    if not 0 <= idx < device_count():
        raise AssertionError("Invalid device id")
    return to_jax(_make("cuda", idx))


def get_device_name(device=None) -> str:
    return _jdev(device).device_kind


def get_device_capability(device=None) -> tuple:
    cc = getattr(_jdev(device), "compute_capability", "0.0")
    major, _, minor = str(cc).partition(".")
    return int(major), int(minor or 0)


def synchronize(device=None) -> None:
    """Waits for the device's pending work: JAX has no streams to wait on, so this blocks on
    every live array of that device."""
    d = _jdev(device)
    for a in jax.live_arrays():
        if d in a.devices():
            a.block_until_ready()


def memory_stats(device=None) -> collections.OrderedDict:
    """JAX's allocator statistics of the device (empty without CUDA, as in PyTorch)."""
    if not is_available():
        return collections.OrderedDict()
    return collections.OrderedDict(sorted((_jdev(device).memory_stats() or {}).items()))


def _stat(device, key):
    return int(memory_stats(device).get(key, 0))


def memory_allocated(device=None) -> int:
    return _stat(device, "bytes_in_use")


def max_memory_allocated(device=None) -> int:
    return _stat(device, "peak_bytes_in_use")


def memory_reserved(device=None) -> int:
    return _stat(device, "bytes_reserved") or _stat(device, "bytes_in_use")


def max_memory_reserved(device=None) -> int:
    return _stat(device, "peak_bytes_reserved") or _stat(device, "peak_bytes_in_use")


def reset_peak_memory_stats(device=None) -> None:
    """JAX cannot reset its peak counters: this only checks that CUDA is there."""
    _lazy_init()


def empty_cache() -> None:
    """Releases cached memory. JAX frees a buffer when its last array dies, so there is
    nothing to release; a no-op, as in PyTorch without CUDA."""


def mem_get_info(device=None) -> tuple:
    stats = _jdev(device).memory_stats() or {}
    total = int(stats.get("bytes_limit", 0))
    return total - int(stats.get("bytes_in_use", 0)), total


def is_bf16_supported(including_emulation=True) -> bool:
    return is_available()


def get_arch_list() -> list:
    return []


def manual_seed(seed) -> None:
    """Seeds the generator GPU tensors draw from (jtorch has one generator for all devices);
    a no-op without CUDA, as in PyTorch."""
    if is_available():
        _ms(seed)


manual_seed_all = manual_seed


def seed() -> None:
    if is_available():
        _seed()


seed_all = seed


def initial_seed() -> int:
    _lazy_init()
    return _is()


def get_rng_state(device="cuda"):
    """The state of the generator GPU tensors draw from (jtorch's one generator) as a uint8
    tensor; without CUDA, PyTorch's AssertionError."""
    _lazy_init()
    return _get_state()


def get_rng_state_all() -> list:
    """One state per GPU (an empty list without CUDA)."""
    return [get_rng_state(i) for i in range(device_count())]


def set_rng_state(new_state, device="cuda") -> None:
    """Restores the GPU generator's state; without CUDA nothing happens (PyTorch queues the
    call until CUDA initialises, which it never does)."""
    if is_available():
        _set_state(new_state)


def set_rng_state_all(new_states) -> None:
    for i, state in enumerate(new_states):
        set_rng_state(state, i)


# a class programs name in annotations at definition time (``-> torch.cuda.CUDAGraph | None``):
# it exists, and making one raises NotImplementedError
CUDAGraph = missing_class("torch.cuda.CUDAGraph", ALTERNATIVES["torch.cuda.CUDAGraph"])

from . import amp, nvtx, random  # noqa: E402 - torch.cuda.amp (deprecated aliases), .nvtx, .random

# a name PyTorch has here and jtorch lacks raises NotImplementedError naming it
_fallback = torch_name_fallback("torch.cuda")


def __getattr__(name):
    """``torch.cuda._initialized``, PyTorch's flag that CUDA is set up (read by libraries
    that save CUDA's RNG state, e.g. performer-pytorch's reversible layers), as
    :func:`is_initialized` answers; any other missing name as ``torch_name_fallback``."""
    if name == "_initialized":
        return is_initialized()
    return _fallback(name)
