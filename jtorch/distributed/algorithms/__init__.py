"""torch.distributed.algorithms: ``Join`` (uneven inputs across DDP ranks) and the DDP
communication hooks. jtorch implements neither: the names import (libraries such as accelerate
import ``Join`` at module level) and using them raises NotImplementedError naming them."""

from .join import Join as Join, Joinable as Joinable, JoinHook as JoinHook

__all__ = ["Join", "JoinHook", "Joinable"]
