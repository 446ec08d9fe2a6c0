"""torch.distributed._tensor: the old home of DTensor, kept by PyTorch as an alias of
``torch.distributed.tensor`` (its ``experimental`` and ``device_mesh`` are the same modules);
Opacus imports ``implicit_replication`` from here."""

import sys

from .. import device_mesh
from ..tensor import (  # noqa: F401
    DeviceMesh as DeviceMesh,
    DTensor as DTensor,
    Partial as Partial,
    Placement as Placement,
    Replicate as Replicate,
    Shard as Shard,
    distribute_tensor as distribute_tensor,
    experimental,
    init_device_mesh as init_device_mesh,
)

sys.modules[__name__ + ".experimental"] = experimental
sys.modules[__name__ + ".device_mesh"] = device_mesh

__all__ = ["DTensor", "DeviceMesh", "Partial", "Placement", "Replicate", "Shard",
           "distribute_tensor", "init_device_mesh"]
