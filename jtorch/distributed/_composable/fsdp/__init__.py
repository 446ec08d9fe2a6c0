"""torch.distributed._composable.fsdp: FSDP2 under its older name; the very objects of
``torch.distributed.fsdp`` (jtorch/distributed/fsdp/_fully_shard.py)."""

from ...fsdp import (
    CPUOffloadPolicy as CPUOffloadPolicy,
    FSDPModule as FSDPModule,
    MixedPrecisionPolicy as MixedPrecisionPolicy,
    OffloadPolicy as OffloadPolicy,
    UnshardHandle as UnshardHandle,
    fully_shard as fully_shard,
    register_fsdp_forward_method as register_fsdp_forward_method,
)

__all__ = ["CPUOffloadPolicy", "FSDPModule", "MixedPrecisionPolicy", "OffloadPolicy",
           "UnshardHandle", "fully_shard", "register_fsdp_forward_method"]
