"""torch.distributed.tensor: ``DTensor``, its placements and ``distribute_tensor`` (the
subset FSDP needs; see _dtensor.py). Tensor parallelism (``torch.distributed.tensor.
parallel``) is not implemented."""

from ..device_mesh import DeviceMesh as DeviceMesh, init_device_mesh as init_device_mesh
from ._dtensor import DTensor as DTensor, distribute_tensor as distribute_tensor
from .placement_types import (
    Partial as Partial,
    Placement as Placement,
    Replicate as Replicate,
    Shard as Shard,
)

__all__ = ["DTensor", "DeviceMesh", "Partial", "Placement", "Replicate", "Shard",
           "distribute_tensor", "init_device_mesh"]
