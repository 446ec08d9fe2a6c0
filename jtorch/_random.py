"""The one PRNG seam. A Generator holds a JAX key; every random op splits it once.

Bit-equality with PyTorch's Philox/MT streams is not a goal; distributions, shapes, dtypes
and reproducibility under a seed are.
"""

from __future__ import annotations

import time

import jax
import jax.numpy as jnp
import numpy as np

from ._device import device as Device


def _key(seed):
    return jax.random.key_data(jax.random.key(int(seed) % (2**64)))


class Generator:
    """torch.Generator: a seedable source of random keys."""

    def __init__(self, device="cpu"):
        self.device = Device(device)
        self._seed = 67280421310721
        self._state = _key(self._seed)

    def manual_seed(self, seed):
        seed = int(seed)
        if not -0x8000_0000_0000_0000 <= seed <= 0xFFFF_FFFF_FFFF_FFFF:
            raise RuntimeError("Overflow when unpacking long long")
        self._seed = seed % (2**64)
        self._state = _key(self._seed)
        return self

    def seed(self):
        s = int(time.time_ns()) % (2**63)
        self.manual_seed(s)
        return s

    def initial_seed(self):
        return self._seed

    def next_key(self):
        """Split the state: keep one half, hand out the other (a raw uint32 key)."""
        self._state, sub = _split(self._state)
        return sub

    def get_state(self):
        from ._creation import tensor

        raw = np.concatenate([np.asarray(self._state, np.uint32).view(np.uint8),
                              np.frombuffer(np.uint64(self._seed).tobytes(), np.uint8)])
        return tensor(raw)

    def set_state(self, new_state):
        raw = np.asarray(new_state._value if hasattr(new_state, "_value") else new_state,
                         np.uint8)
        if raw.shape != (16,):
            raise RuntimeError("Expected a ByteTensor of 16 elements as the generator state "
                               "(jtorch's state format)")
        self._state = jnp.asarray(raw[:8].view(np.uint32))
        self._seed = int(raw[8:].view(np.uint64)[0])
        return self

    def clone_state(self):
        return self.get_state()


@jax.jit
def _split(state):
    k = jax.random.wrap_key_data(state)
    a, b = jax.random.split(k)
    return jax.random.key_data(a), jax.random.key_data(b)


default_generator = Generator()


def manual_seed(seed):
    """Seeds the default generator (and every device's, which is the same one in jtorch)."""
    return default_generator.manual_seed(seed)


def seed():
    return default_generator.seed()


def initial_seed():
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(new_state):
    default_generator.set_state(new_state)


def next_key(generator=None):
    return (generator or default_generator).next_key()
