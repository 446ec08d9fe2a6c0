"""torch.utils.data: datasets, samplers, collation and the DataLoader (with worker processes).

See docs/data.md for how workers avoid JAX's fork deadlock and what differs from PyTorch.
"""

from ..._core.errors import torch_name_fallback
from ._collate import default_collate, default_convert
from ._worker import get_worker_info
from .dataloader import DataLoader, _DatasetKind
from .dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    random_split,
)
from .distributed import DistributedSampler
from .sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

__all__ = ["BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset",
           "DistributedSampler", "IterableDataset", "RandomSampler", "Sampler",
           "SequentialSampler", "StackDataset", "Subset", "SubsetRandomSampler", "TensorDataset",
           "WeightedRandomSampler", "default_collate", "default_convert", "get_worker_info",
           "random_split"]

from . import _utils  # noqa: E402 - after the modules it re-exports

# a name PyTorch has here and jtorch lacks raises NotImplementedError naming it
__getattr__ = torch_name_fallback("torch.utils.data")
