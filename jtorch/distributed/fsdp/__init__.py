"""torch.distributed.fsdp: FSDP2's ``fully_shard`` (jtorch/distributed/fsdp/_fully_shard.py)
and FSDP1's configuration types.

Differences from PyTorch: FSDP1's wrapper class ``FullyShardedDataParallel`` is not
implemented (making one raises NotImplementedError): use ``fully_shard``.
"""

from ..._core.errors import missing_class
from ._fully_shard import (
    CPUOffloadPolicy as CPUOffloadPolicy,
    FSDPModule as FSDPModule,
    MixedPrecisionPolicy as MixedPrecisionPolicy,
    OffloadPolicy as OffloadPolicy,
    UnshardHandle as UnshardHandle,
    fully_shard as fully_shard,
    register_fsdp_forward_method as register_fsdp_forward_method,
)
from .api import (
    BackwardPrefetch as BackwardPrefetch,
    CPUOffload as CPUOffload,
    FullOptimStateDictConfig as FullOptimStateDictConfig,
    FullStateDictConfig as FullStateDictConfig,
    LocalOptimStateDictConfig as LocalOptimStateDictConfig,
    LocalStateDictConfig as LocalStateDictConfig,
    MixedPrecision as MixedPrecision,
    OptimStateDictConfig as OptimStateDictConfig,
    OptimStateKeyType as OptimStateKeyType,
    ShardedOptimStateDictConfig as ShardedOptimStateDictConfig,
    ShardedStateDictConfig as ShardedStateDictConfig,
    ShardingStrategy as ShardingStrategy,
    StateDictConfig as StateDictConfig,
    StateDictSettings as StateDictSettings,
    StateDictType as StateDictType,
)

FullyShardedDataParallel = missing_class(
    "torch.distributed.fsdp.FullyShardedDataParallel",
    "torch.distributed.fsdp.fully_shard (FSDP2)")

__all__ = ["BackwardPrefetch", "CPUOffload", "CPUOffloadPolicy", "FSDPModule",
           "FullOptimStateDictConfig", "FullStateDictConfig", "FullyShardedDataParallel",
           "LocalOptimStateDictConfig", "LocalStateDictConfig", "MixedPrecision",
           "MixedPrecisionPolicy", "OffloadPolicy", "OptimStateDictConfig", "OptimStateKeyType",
           "ShardedOptimStateDictConfig", "ShardedStateDictConfig", "ShardingStrategy",
           "StateDictConfig", "StateDictSettings", "StateDictType", "UnshardHandle",
           "fully_shard", "register_fsdp_forward_method"]
