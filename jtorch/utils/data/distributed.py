"""DistributedSampler: each of ``num_replicas`` ranks reads its own slice of the indices.

``num_replicas`` and ``rank`` default to the default process group's world size and rank
(``jtorch.distributed``; an error if it is not initialized, as in PyTorch). With
``shuffle=True`` the permutation is seeded by ``seed + epoch`` (NumPy's PCG64, so the order
differs from PyTorch's, but every rank with the same seed and epoch agrees); padding and
``drop_last`` follow PyTorch exactly.
"""

from __future__ import annotations

import math

import numpy as np

from ...distributed.c10d import get_rank, get_world_size, is_available
from .dataset import T_co
from .sampler import Sampler

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler[T_co]):
    """Restricts data loading to a subset of the dataset, one per replica."""

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0,
                 drop_last=False):
        if num_replicas is None:
            if not is_available():
                raise RuntimeError("Requires distributed package to be available")
            num_replicas = get_world_size()
        if rank is None:
            if not is_available():
                raise RuntimeError("Requires distributed package to be available")
            rank = get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval "
                             f"[0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(self.dataset)
        if self.drop_last and n % self.num_replicas != 0:
            self.num_samples = math.ceil((n - self.num_replicas) / self.num_replicas)
        else:
            self.num_samples = math.ceil(n / self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:
            rng = np.random.default_rng(self.seed + self.epoch)
            indices = rng.permutation(n).tolist()
        else:
            indices = list(range(n))
        if not self.drop_last:
            padding_size = self.total_size - len(indices)
            if padding_size <= len(indices):
                indices += indices[:padding_size]
            else:
                indices += (indices * math.ceil(padding_size / len(indices)))[:padding_size]
        else:
            indices = indices[: self.total_size]
        return iter(indices[self.rank: self.total_size: self.num_replicas])

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Sets the epoch: with ``shuffle=True`` each epoch gets another order."""
        self.epoch = epoch
