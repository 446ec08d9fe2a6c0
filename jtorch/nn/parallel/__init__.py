"""torch.nn.parallel: ``DistributedDataParallel`` (one process per replica) and
``DataParallel`` (one process, the batch sharded over its devices)."""

from .data_parallel import DataParallel as DataParallel, data_parallel as data_parallel
from .distributed import DistributedDataParallel as DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel"]
