"""The random draws of the random transforms, without a JAX call per sample.

Workers draw from NumPy's global RNG (seeded per worker from the loader's jtorch generator);
the main process draws from a NumPy stream seeded from ONE key of jtorch's default generator and
re-seeded whenever that generator changed (``manual_seed``, other random ops): reproducible
under ``jtorch.manual_seed``. The streams differ from PyTorch's, so random transforms draw
other values than torchvision's (same distributions).
"""

from __future__ import annotations

import numpy as np

from ..._core.generator import default_generator
from ...utils.data import _worker as worker
from ...utils.data.dataset import _seed_from

_HOST_RNG = [None, None]  # (the default generator's key version when seeded, NumPy Generator)


def _rng():
    if worker.get_worker_info() is not None:
        return np.random
    g = default_generator
    if _HOST_RNG[0] != (id(g._key), g._key._version_counter):
        seed = _seed_from(g)
        _HOST_RNG[:] = [(id(g._key), g._key._version_counter), np.random.default_rng(seed)]
    return _HOST_RNG[1]


def uniform(low=0.0, high=1.0) -> float:
    """One float drawn uniformly from ``[low, high)``."""
    return float(low + (high - low) * _rng().random())


def randint(low, high) -> int:
    """One int drawn uniformly from ``[low, high)``."""
    r = _rng()
    return int(r.randint(low, high) if r is np.random else r.integers(low, high))


def randperm(n) -> list[int]:
    """A random permutation of ``range(n)``."""
    return [int(i) for i in _rng().permutation(n)]


def choice(n, weights=None) -> int:
    """An index in ``range(n)``, drawn with probabilities proportional to ``weights``."""
    if weights is None:
        return randint(0, n)
    cum = np.cumsum(np.asarray(weights, dtype=np.float64))
    return min(int(np.searchsorted(cum, uniform() * cum[-1], side="right")), n - 1)


def rand(shape) -> np.ndarray:
    """A float32 array of ``shape`` drawn uniformly from ``[0, 1)``."""
    return np.asarray(_rng().random(shape), dtype=np.float32)


def normal(shape) -> np.ndarray:
    """A float32 array of ``shape`` drawn from the standard normal distribution."""
    return np.asarray(_rng().standard_normal(shape), dtype=np.float32)


def beta(a, b) -> float:
    """One float drawn from the Beta(``a``, ``b``) distribution."""
    return float(_rng().beta(a, b))


def dirichlet(alpha) -> np.ndarray:
    """One float32 draw from the Dirichlet distribution with concentrations ``alpha``."""
    return np.asarray(_rng().dirichlet(alpha), dtype=np.float32)
