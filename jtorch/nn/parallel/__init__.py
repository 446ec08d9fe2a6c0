"""torch.nn.parallel: ``DistributedDataParallel`` (one process per replica) and
``DataParallel`` (one process, the batch sharded over its devices)."""

from ..._core.errors import torch_name_fallback
from .data_parallel import DataParallel as DataParallel, data_parallel as data_parallel
from .distributed import DistributedDataParallel as DistributedDataParallel
from .scatter_gather import gather as gather, scatter as scatter

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel", "gather", "scatter"]

# a name PyTorch has here and jtorch lacks raises NotImplementedError naming it
__getattr__ = torch_name_fallback("torch.nn.parallel")
