"""Samplers: Sequential, Random, SubsetRandom, WeightedRandom and Batch, as in PyTorch.

Random samplers draw ONE key from a jtorch generator (``generator=``, the default generator
when None) per permutation and run NumPy's PCG64 from it on the host, so
``jtorch.manual_seed`` reproduces the order; the orders differ from PyTorch's (other RNG).
"""

from __future__ import annotations

import warnings
from typing import Generic

import numpy as np

from ..._core.dtypes import float64
from ..._ops.creation import as_tensor
from ..._tensor import Tensor
from .dataset import T_co, _seed_from

__all__ = ["BatchSampler", "RandomSampler", "Sampler", "SequentialSampler",
           "SubsetRandomSampler", "WeightedRandomSampler"]


def _rng(generator):
    return np.random.default_rng(_seed_from(generator))


class Sampler(Generic[T_co]):
    """Base class: iterate indices (or lists of indices) of a dataset."""

    def __init__(self, data_source=None):
        if data_source is not None:

            warnings.warn("`data_source` argument is not used and will be removed in 2.2.0."
                          "You may still have custom implementation that utilizes it.",
                          stacklevel=2)

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler[int]):
    """Samples elements sequentially, always in the same order."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler[int]):
    """Samples elements randomly: a permutation, or ``num_samples`` draws with replacement."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError("replacement should be a boolean value, but got "
                            f"replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        rng = _rng(self.generator)
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from rng.integers(0, n, size=32).tolist()
            yield from rng.integers(0, n, size=self.num_samples % 32).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from rng.permutation(n).tolist()
            yield from rng.permutation(n).tolist()[: self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """Samples the given indices in a random order (without replacement)."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for i in _rng(self.generator).permutation(len(self.indices)).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler[int]):
    """Samples ``range(len(weights))`` with probabilities proportional to ``weights``."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if (not isinstance(num_samples, int) or isinstance(num_samples, bool)
                or num_samples <= 0):
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError("replacement should be a boolean value, but got "
                             f"replacement={replacement}")
        w = np.asarray(weights._value if isinstance(weights, Tensor) else weights, np.float64)
        if w.ndim != 1:
            raise ValueError("weights should be a 1d sequence but given weights have shape "
                             f"{tuple(w.shape)}")
        self.weights = as_tensor(w, dtype=float64)
        self._w = w
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        w = self._w
        if np.any(w < 0) or not np.all(np.isfinite(w)):
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        if w.sum() <= 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        if not self.replacement and self.num_samples > np.count_nonzero(w):
            raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                               "replacement")
        rng = _rng(self.generator)
        yield from rng.choice(len(w), size=self.num_samples, replace=self.replacement,
                              p=w / w.sum()).tolist()

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler[list[int]]):
    """Wraps a sampler to yield lists of ``batch_size`` indices."""

    def __init__(self, sampler, batch_size, drop_last):
        if (not isinstance(batch_size, int) or isinstance(batch_size, bool)
                or batch_size <= 0):
            raise ValueError("batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        it = iter(self.sampler)
        if self.drop_last:
            yield from (list(b) for b in zip(*([it] * self.batch_size)))
            return
        batch = []
        for idx in it:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch:
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
