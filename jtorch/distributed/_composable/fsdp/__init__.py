"""torch.distributed._composable.fsdp: FSDP2 under its older name; the very objects of
``torch.distributed.fsdp`` (jtorch/distributed/fsdp/_fully_shard.py), whose ``__all__`` is
this module's."""

from ...fsdp._fully_shard import *  # noqa: F403
from ...fsdp._fully_shard import __all__ as __all__
