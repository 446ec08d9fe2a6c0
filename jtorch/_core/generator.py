"""The one PRNG seam: ``Generator`` (a JAX threefry key held in a tensor), seeding and state.

Every random op asks its generator (``generator=``, default :data:`default_generator`) for ONE
fresh key per call with :meth:`Generator.next_key`, which splits the generator's key: one half
becomes the new state, the other goes to the op's jitted kernel as an ordinary array argument.
Same seed, same calls -> same numbers.

Differences from PyTorch:
    - Bit-equality with PyTorch's random streams (Mersenne Twister on CPU, Philox on CUDA) is
      NOT a goal: jtorch draws from JAX's threefry, so a seed gives other numbers than in
      PyTorch. Distributions, shapes, dtypes and reproducibility under a seed are the contract.
    - ``get_state()`` is a 16-byte ``uint8`` tensor (8 bytes of key, then the 64-bit initial
      seed, little-endian), not PyTorch's 5056 bytes; states do not move between the libraries.
    - One generator serves every device: ``manual_seed`` seeds "all devices" by construction.

Compiling: the key lives in ``Generator._key``, a ``uint32[2]`` Tensor. When its value is a
tracer (``jtorch.compile`` lifting it into the traced state), ``next_key`` splits it inside the
trace and stores the new tracer back, so the compiled step advances the stream on every call.
When a random op runs under a plain ``jax.jit`` trace while the key is a concrete array, the
split runs at trace time (``jax.ensure_compile_time_eval``): the generator advances once per
trace, the compiled function replays those numbers on each call, and no tracer leaks into the
generator.
"""

from __future__ import annotations

import contextlib
import math
import os

import jax
import jax.numpy as jnp
import numpy as np

from . import dtypes
from .device import device as Device, to_jax
from .state import STATE
from .tensor_base import TensorBase

try:  # a cheap "are we inside a trace?" test (0.2 us; ensure_compile_time_eval costs 80 us)
    from jax._src.core import trace_state_clean as _trace_clean
except ImportError:  # pragma: no cover - older/newer JAX without it: always take the safe path
    def _trace_clean():
        return False

_DEFAULT_SEED = 67280421310721
# The key tensor reports cpu but its array is left uncommitted, on JAX's default device (a
# GPU's, on a GPU machine; TensorBase._make commits device-less CPU arrays to the host when
# given no device): one key serves every device. JAX moves an uncommitted key to the device of
# the tensors a random op reads; a key a compiled program gave back is committed to that
# program's device, and is moved where it is used next (dispatch's and jtorch.compile's
# retries on a device mismatch, for arrays that are not tensors and for _device_neutral ones).
_UNPLACED = Device("cpu")
_NO_CUDA_GENERATOR = (  # PyTorch's text, one line
    "Cannot get CUDA generator without ATen_cuda library. PyTorch splits its backend into two "
    "shared libraries: a CPU library and a CUDA library; this error has occurred because you "
    "are trying to use some CUDA functionality, but the CUDA library has not been loaded by "
    "the dynamic linker for some reason.  The CUDA library MUST be loaded, EVEN IF you don't "
    "directly use any symbols from the CUDA library! One common culprit is a lack of "
    "-Wl,--no-as-needed in your link arguments; many dynamic linkers will delete dynamic "
    "library dependencies if you don't depend on any of their symbols.  You can check if this "
    "has occurred by using ldd on your binary to see if there is a dependency on *_cuda.so "
    "library.")
_STATE_BYTES = 16


def _key_data(seed):
    """threefry2x32 key data of a 64-bit seed (what ``jax.random.PRNGKey(seed)`` builds)."""
    return np.array([(seed >> 32) & 0xFFFFFFFF, seed & 0xFFFFFFFF], np.uint32)


def wrap(key):
    """A typed JAX key from the raw ``uint32[2]`` key data that ``next_key`` hands out."""
    return jax.random.wrap_key_data(key, impl="threefry2x32")


# ------------------------------------------------------------------ drawing from a key
# Every random op of jtorch draws its bits here. XLA:CPU computes threefry's 32-bit draws
# several times slower than its 64-bit draws of the same key (4M values: 43 vs 8.6 ms, the
# 32-bit path hashes a counter per value and keeps half of each hash), so 32-bit words are
# the two halves of 64-bit draws.
def bits32(key, shape):
    """``uint32`` random bits of ``shape`` from a typed threefry ``key``."""
    n = math.prod(shape)
    words = jax.random.bits(key, ((n + 1) // 2,), jnp.uint64)
    return jax.lax.bitcast_convert_type(words, jnp.uint32).reshape(-1)[:n].reshape(shape)


def uniform_from_bits(bits, shape, dtype):
    """Uniform floats in [0, 1) of ``shape`` and floating ``dtype`` from flat ``uint32``
    ``bits`` (at least one word per value, two for float64): the top mantissa bits of a random
    word (``jax.random.uniform``'s construction). Dtypes shorter than float32 round a float32
    draw and stay below 1."""
    n = math.prod(shape)
    dtype = np.dtype(dtype)
    if dtype == np.float64:
        w = bits[: 2 * n].reshape(n, 2).astype(jnp.uint64)
        mant = ((w[:, 0] << np.uint64(32)) | w[:, 1]) >> np.uint64(12)
        u = jax.lax.bitcast_convert_type(mant | np.uint64(0x3FF0000000000000), jnp.float64) - 1.0
    else:
        mant = bits[:n] >> np.uint32(9)
        u = jax.lax.bitcast_convert_type(mant | np.uint32(0x3F800000), jnp.float32) - 1.0
        if dtype != np.float32:
            below_one = jnp.nextafter(jnp.array(1, dtype), jnp.array(0, dtype))
            u = jnp.minimum(u.astype(dtype), below_one)
    return u.reshape(shape)


def uniform_words(shape, dtype):
    """How many ``uint32`` words :func:`uniform_from_bits` reads for ``shape`` and ``dtype``."""
    return math.prod(shape) * (2 if np.dtype(dtype) == np.float64 else 1)


def uniform01(key, shape, dtype):
    """Uniform floats in [0, 1) of ``shape`` and floating ``dtype`` from a typed ``key``."""
    return uniform_from_bits(bits32(key, (uniform_words(shape, dtype),)), shape, dtype)


def keep_mask(key, keep_prob, shape, dtype):
    """Bernoulli(``keep_prob``) booleans of ``shape``: a uniform draw in ``dtype`` (float32, or
    float64 for float64 data, as PyTorch's dropout) below ``keep_prob``."""
    dt = np.float64 if np.dtype(dtype) == np.float64 else np.float32
    return uniform01(key, shape, dt) < jnp.asarray(keep_prob, dt)


def _concrete(fn, *args):
    """``fn(*args)`` evaluated now, even under a foreign trace (for concrete inputs)."""
    if _trace_clean():
        return fn(*args)
    with jax.ensure_compile_time_eval():
        return fn(*args)


@jax.jit
def _split(state):
    new, sub = jax.random.split(wrap(state))
    return jax.random.key_data(new), jax.random.key_data(sub)


class Generator:
    """torch.Generator: a seedable source of random numbers.

    Args:
        device: the device the generator is for (``"cpu"`` by default). jtorch keeps one key
            for every device; a ``cuda`` generator needs a GPU, as in PyTorch.
    """

    def __init__(self, device="cpu"):
        dev = Device("cpu" if device is None else device)
        if dev.type == "cpu":
            dev = Device("cpu")
        elif dev.type == "cuda" and not _has(dev):
            raise RuntimeError(_NO_CUDA_GENERATOR)
        self.device = dev
        self._seed = _DEFAULT_SEED
        self._key_tensor = None

    def __repr__(self):
        return f"<jtorch.Generator object at {hex(id(self))}>"

    @property
    def _key(self):
        """The state: a ``uint32[2]`` key tensor, made on first use (so that creating a
        generator, e.g. the default one at ``import jtorch``, starts no JAX backend)."""
        k = self._key_tensor
        if k is None:
            k = self._key_tensor = TensorBase._make(_concrete(jnp.asarray, _key_data(self._seed)),
                                                    _UNPLACED)
            k._device_neutral = True
        return k

    def _write(self, key):
        k = self._key
        k._array = key
        k._version_counter += 1

    def manual_seed(self, seed):
        """Seeds the generator; returns it. Accepts any integer in [-2**63, 2**64)."""
        seed = int(seed)
        if not -0x8000_0000_0000_0000 <= seed <= 0xFFFF_FFFF_FFFF_FFFF:
            raise ValueError("Overflow when unpacking long long")
        self._seed = seed % (2**64)
        if self._key_tensor is not None:   # else the key is made from the seed on first use
            self._write(_concrete(jnp.asarray, _key_data(self._seed)))
        return self

    def seed(self):
        """Seeds from a non-deterministic source; returns the 64-bit seed used."""
        s = int.from_bytes(os.urandom(8), "little") >> 1
        self.manual_seed(s)
        return s

    def initial_seed(self):
        """The seed last set by ``manual_seed``/``seed`` (the default seed otherwise)."""
        return self._seed

    def next_key(self):
        """Split the state once: keep one half, return the other (raw ``uint32[2]`` data)."""
        state = self._key._value
        if isinstance(state, jax.core.Tracer):  # lifted into a trace (jtorch.compile)
            new, sub = _split(state)
        else:  # concrete, even under a foreign trace: advance now, leak no tracer
            if STATE.trace is not None:  # jtorch.compile met a generator it did not lift
                STATE.trace.touched(self._key)
            new, sub = _concrete(_split, state)
        self._write(new)
        return sub

    def get_state(self):
        """The state as a ``uint8`` tensor of 16 bytes (key, then initial seed)."""
        key = self._key._value
        seed = np.asarray([self._seed], "<u8").view(np.uint8)
        if isinstance(key, jax.core.Tracer):
            raw = jax.lax.bitcast_convert_type(key, jnp.uint8).reshape(-1)
            return TensorBase._make(jnp.concatenate([raw, jnp.asarray(seed)]))
        raw = np.asarray(key).astype("<u4").view(np.uint8)
        return TensorBase._make(_concrete(jnp.asarray, np.concatenate([raw, seed])))

    def set_state(self, new_state):
        """Restores a state from ``get_state``; returns the generator."""
        if not isinstance(new_state, TensorBase):
            raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
        if new_state.dtype is not dtypes.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        n = new_state.numel()
        if n != _STATE_BYTES:
            raise RuntimeError(f"Expected a jtorch generator state of size {_STATE_BYTES} but "
                               f"found the input RNG state size to be {n}")
        raw = new_state._value
        if isinstance(raw, jax.core.Tracer):
            key = raw.reshape(-1)[:8].reshape(2, 4)
            self._write(jax.lax.bitcast_convert_type(key, jnp.uint32))
            return self
        raw = np.asarray(raw).reshape(-1)
        self._write(_concrete(jnp.asarray, raw[:8].view("<u4").astype(np.uint32)))
        self._seed = int(raw[8:].view("<u8")[0])
        return self

    def clone_state(self):
        """A new Generator with this one's state."""
        g = Generator(self.device)
        g._seed = self._seed
        g._write(self._key._value)
        return g

    def __getstate__(self):
        return {"device": str(self.device), "state": np.asarray(self.get_state()._value)}

    def __setstate__(self, d):
        self.__init__(d["device"])
        self.set_state(TensorBase._make(jnp.asarray(d["state"])))


def _has(dev):
    try:
        to_jax(dev)
    except (AssertionError, RuntimeError):
        return False
    return True


default_generator = Generator()


def manual_seed(seed):
    """Sets the seed for generating random numbers on all devices; returns the generator."""
    return default_generator.manual_seed(seed)


def seed():
    """Seeds the default generator non-deterministically; returns the seed."""
    return default_generator.seed()


def initial_seed():
    """The initial seed of the default generator."""
    return default_generator.initial_seed()


def get_rng_state():
    """The default generator's state as a ``uint8`` tensor (jtorch's 16-byte format)."""
    return default_generator.get_state()


def set_rng_state(new_state):
    """Restores the default generator's state from ``get_rng_state()``."""
    if isinstance(new_state, TensorBase) and new_state.dtype is not dtypes.uint8:
        raise TypeError("RNG state must be a torch.ByteTensor")
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices",
             device_type="cuda"):
    """Forks the RNG: on exit the default generator's state is what it was on entry.

    ``devices`` and ``device_type`` are accepted for PyTorch compatibility; jtorch's one
    generator covers every device.
    """
    if not enabled:
        yield
        return
    state = default_generator.get_state()
    try:
        yield
    finally:
        default_generator.set_state(state)


def next_key(generator=None):
    """One fresh raw key (``uint32[2]``) from ``generator`` (default: the default generator)."""
    return (generator if generator is not None else default_generator).next_key()
