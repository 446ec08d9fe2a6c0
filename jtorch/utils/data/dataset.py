"""Datasets: Dataset, IterableDataset, TensorDataset, Subset, ConcatDataset, ChainDataset,
StackDataset and random_split, with PyTorch's semantics and error texts.

jtorch's datasets know how to serve samples without JAX (``_jtorch_fork_safe`` /
``_jtorch_prepare_host``): inside DataLoader workers and the default-collate fetch path,
TensorDataset indexes NumPy copies of its tensors (see ``_worker``).
"""

from __future__ import annotations

import bisect
import itertools
import math
import warnings
from collections.abc import Iterable
from typing import Generic, TypeVar

import numpy as np

from ..._core.generator import next_key
from ..._tensor import Tensor
from . import _worker as worker

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset",
           "ChainDataset", "Subset", "random_split"]

# PyTorch's type parameters: its dataset, sampler and loader classes are generic
# (``Dataset[int]``, ``Sampler[list[int]]``), and libraries subclass them subscripted
T_co = TypeVar("T_co", covariant=True)
T_stack = TypeVar("T_stack", tuple, dict)


class Dataset(Generic[T_co]):
    """A map-style dataset: implement ``__getitem__`` (and usually ``__len__``)."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset[T_co], Iterable[T_co]):
    """An iterable-style dataset: implement ``__iter__``."""

    def __iter__(self):
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other):
        return ChainDataset([self, other])


def _children_safe(datasets):
    return all(worker.fork_safe(d) for d in datasets)


class TensorDataset(Dataset[tuple[Tensor, ...]]):
    """Wraps tensors sharing their first dimension; sample ``i`` is ``(t[i] for t in tensors)``."""

    def __init__(self, *tensors):
        if not all(tensors[0].size(0) == t.size(0) for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors
        self._host = None

    def _jtorch_fork_safe(self):
        return all(isinstance(t, Tensor) for t in self.tensors)

    def _jtorch_prepare_host(self):
        """NumPy copies of the tensors (refreshed when a tensor was written to)."""
        key = tuple((id(t), t._version) for t in self.tensors)
        if self._host is None or self._host[0] != key:
            self._host = (key, tuple(worker.host_value(t) for t in self.tensors))
        return self._host[1]

    def __getitem__(self, index):
        if worker.host_mode():
            return tuple(_host_index(a, index) for a in self._jtorch_prepare_host())
        return tuple(tensor[index] for tensor in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)

    def _jtorch_fetch_batch(self, indices):
        """The default-collated batch for ``indices`` (one fancy index per tensor)."""
        idx = np.asarray(indices, dtype=np.int64)
        return [worker.host_tensor(a[idx]) for a in self._jtorch_prepare_host()]

    def __getstate__(self):  # ship NumPy copies (cheap, and no JAX in the pickle)
        return {"_np": self._jtorch_prepare_host()}

    def __setstate__(self, state):
        arrs = state["_np"]
        self.tensors = tuple(worker.host_tensor(a) for a in arrs)
        self._host = (tuple((id(t), t._version) for t in self.tensors), arrs)


def _host_index(arr, index):
    out = arr[index]
    return worker.host_tensor(out if isinstance(out, np.ndarray) else np.asarray(out))


class StackDataset(Dataset[T_stack]):
    """Stacks datasets of equal length: samples are tuples (positional) or dicts (keywords)."""

    def __init__(self, *args, **kwargs):
        if args:
            if kwargs:
                raise ValueError("Supported either ``tuple``- (via ``args``) or"
                                 "``dict``- (via ``kwargs``) like input/output, but both types "
                                 "are given.")
            self._length = len(args[0])
            if any(self._length != len(d) for d in args):
                raise ValueError("Size mismatch between datasets")
            self.datasets = args
        elif kwargs:
            tmp = list(kwargs.values())
            self._length = len(tmp[0])
            if any(self._length != len(d) for d in tmp):
                raise ValueError("Size mismatch between datasets")
            self.datasets = kwargs
        else:
            raise ValueError("At least one dataset should be passed")

    def _jtorch_children(self):
        return tuple(self.datasets.values() if isinstance(self.datasets, dict) else self.datasets)

    def _jtorch_fork_safe(self):
        return _children_safe(self._jtorch_children())

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __getitems__(self, indices):
        if isinstance(self.datasets, dict):
            out = [{} for _ in indices]
            for k, d in self.datasets.items():
                items = _getitems(d, indices, "dict")
                for data, item in zip(out, items):
                    data[k] = item
            return out
        out = [[] for _ in indices]
        for d in self.datasets:
            for data, item in zip(out, _getitems(d, indices, "tuple")):
                data.append(item)
        return [tuple(x) for x in out]

    def __len__(self):
        return self._length


def _getitems(dataset, indices, kind):
    if callable(getattr(dataset, "__getitems__", None)):
        items = dataset.__getitems__(indices)
        if len(items) != len(indices):
            raise ValueError("Nested dataset's output size mismatch. Expected "
                             f"{len(indices)}, got {len(items)}")
        return items
    return [dataset[i] for i in indices]


class ConcatDataset(Dataset[T_co]):
    """Concatenation of map-style datasets."""

    @staticmethod
    def cumsum(sequence):
        r, s = [], 0
        for e in sequence:
            s += len(e)
            r.append(s)
        return r

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def _jtorch_children(self):
        return tuple(self.datasets)

    def _jtorch_fork_safe(self):
        return _children_safe(self.datasets)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        d = bisect.bisect_right(self.cumulative_sizes, idx)
        sample_idx = idx if d == 0 else idx - self.cumulative_sizes[d - 1]
        return self.datasets[d][sample_idx]

    @property
    def cummulative_sizes(self):
        warnings.warn("cummulative_sizes attribute is renamed to cumulative_sizes",
                      DeprecationWarning, stacklevel=2)
        return self.cumulative_sizes


class ChainDataset(IterableDataset):
    """Chains iterable-style datasets."""

    def __init__(self, datasets):
        super().__init__()
        self.datasets = datasets

    def _jtorch_children(self):
        return tuple(self.datasets)

    def _jtorch_fork_safe(self):
        return _children_safe(self.datasets)

    def __iter__(self):
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self):
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)
        return total


class Subset(Dataset[T_co]):
    """The samples of ``dataset`` at ``indices``."""

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def _jtorch_children(self):
        return (self.dataset,)

    def _jtorch_fork_safe(self):
        return worker.fork_safe(self.dataset)

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def _jtorch_fetch_batch(self, indices):
        inner = getattr(self.dataset, "_jtorch_fetch_batch", None)
        if inner is None or not isinstance(self.indices, (list, tuple, range, np.ndarray)):
            return NotImplemented
        return inner([self.indices[i] for i in indices])

    def __getitems__(self, indices):
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__([self.indices[idx] for idx in indices])
        return [self.dataset[self.indices[idx]] for idx in indices]

    def __len__(self):
        return len(self.indices)


def _seed_from(generator):
    """A 64-bit NumPy seed drawn from a jtorch generator (the default one when None)."""
    key = np.asarray(next_key(generator)).astype(np.uint64)
    return int((key[0] << np.uint64(32)) | key[1])


def randperm_host(n, generator=None):
    """A permutation of range(n) as a list, seeded by one key of a jtorch generator."""
    return np.random.default_rng(_seed_from(generator)).permutation(n).tolist()


def random_split(dataset, lengths, generator=None):
    """Splits ``dataset`` into non-overlapping Subsets of the given lengths or fractions.

    Fractions summing to 1 are floored and the remainder is handed out round-robin, as in
    PyTorch. The permutation comes from ``generator`` (jtorch's default generator when None).
    """
    lengths = list(lengths)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        subset_lengths = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            subset_lengths.append(math.floor(len(dataset) * frac))
        remainder = len(dataset) - sum(subset_lengths)
        for i in range(remainder):
            subset_lengths[i % len(subset_lengths)] += 1
        lengths = subset_lengths
        for i, length in enumerate(lengths):
            if length == 0:
                warnings.warn(f"Length of split at index {i} is 0. "
                              f"This might result in an empty dataset.", stacklevel=2)
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    indices = randperm_host(sum(lengths), generator)
    return [Subset(dataset, indices[offset - length: offset])
            for offset, length in zip(itertools.accumulate(lengths), lengths)]
