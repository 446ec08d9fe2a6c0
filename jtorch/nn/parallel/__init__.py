"""torch.nn.parallel: ``DistributedDataParallel`` (one process per replica) and
``DataParallel`` (one process, the batch sharded over its devices)."""

from ..._core.errors import torch_name_fallback
from .data_parallel import DataParallel as DataParallel, data_parallel as data_parallel
from .distributed import DistributedDataParallel as DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel"]

# a name PyTorch has here and jtorch lacks raises NotImplementedError naming it
__getattr__ = torch_name_fallback("torch.nn.parallel")
