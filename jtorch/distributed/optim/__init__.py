"""torch.distributed.optim: ZeroRedundancyOptimizer (optimizer state sharded over ranks), the
RPC DistributedOptimizer, PostLocalSGDOptimizer and ``as_functional_optim``. jtorch implements
none of them; the names import (pytorch-ignite imports ``ZeroRedundancyOptimizer`` at module
level for an ``isinstance`` check) and using one raises NotImplementedError naming it. A
single-process or data-parallel run uses a plain ``torch.optim`` optimizer instead."""

from ..._core.errors import missing_class, missing_function
from ...optim.optimizer import Optimizer

__all__ = ["as_functional_optim", "DistributedOptimizer", "PostLocalSGDOptimizer",
           "ZeroRedundancyOptimizer"]

_INSTEAD = "a torch.optim optimizer on every rank"
ZeroRedundancyOptimizer = missing_class("torch.distributed.optim.ZeroRedundancyOptimizer",
                                        _INSTEAD, bases=(Optimizer,))
PostLocalSGDOptimizer = missing_class("torch.distributed.optim.PostLocalSGDOptimizer",
                                      _INSTEAD, bases=(Optimizer,))
DistributedOptimizer = missing_class("torch.distributed.optim.DistributedOptimizer", _INSTEAD)
as_functional_optim = missing_function("torch.distributed.optim.as_functional_optim")
