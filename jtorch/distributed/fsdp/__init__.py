"""torch.distributed.fsdp: FSDP2's ``fully_shard`` (jtorch/distributed/fsdp/_fully_shard.py)
and FSDP1's configuration types.

FSDP1's wrapper ``FullyShardedDataParallel`` is in
jtorch/distributed/fsdp/fully_sharded_data_parallel.py.
"""

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
from .fully_sharded_data_parallel import FullyShardedDataParallel as FullyShardedDataParallel

__all__ = ["BackwardPrefetch", "CPUOffload", "CPUOffloadPolicy", "FSDPModule",
           "FullOptimStateDictConfig", "FullStateDictConfig", "FullyShardedDataParallel",
           "LocalOptimStateDictConfig", "LocalStateDictConfig", "MixedPrecision",
           "MixedPrecisionPolicy", "OffloadPolicy", "OptimStateDictConfig", "OptimStateKeyType",
           "ShardedOptimStateDictConfig", "ShardedStateDictConfig", "ShardingStrategy",
           "StateDictConfig", "StateDictSettings", "StateDictType", "UnshardHandle",
           "fully_shard", "register_fsdp_forward_method"]
