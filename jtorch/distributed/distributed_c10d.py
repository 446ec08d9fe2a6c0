"""``torch.distributed.distributed_c10d``: the module PyTorch defines the process-group API in,
which libraries import from directly (``from torch.distributed.distributed_c10d import
ProcessGroup, _get_default_group``). Here it re-exports jtorch's implementations (c10d.py,
collectives.py, process_group.py...), the same objects as ``torch.distributed``'s, and the few
private helpers programs reach for; any other name raises NotImplementedError naming it."""

from __future__ import annotations

from .. import distributed as _distributed
from .._core.errors import missing_attribute
from .c10d import (  # noqa: F401 - PyTorch's private helpers, which libraries import from here
    _not_member as _rank_not_in_group,
    default_group as _get_default_group,
)

# torch.distributed's names that PyTorch defines elsewhere (its stores, errors, device mesh,
# rendezvous and constants modules); every other public name of torch.distributed is this
# module's, the same object
_ELSEWHERE = {"DeviceMesh", "DistBackendError", "DistError", "DistNetworkError",
              "DistStoreError", "FileStore", "HashStore", "TCPStore", "constants",
              "init_device_mesh", "is_available", "register_rendezvous_handler", "rendezvous"}
__all__ = [name for name in _distributed.__all__ if name not in _ELSEWHERE]
globals().update((name, getattr(_distributed, name)) for name in __all__)

# PyTorch's deprecated spelling of get_global_rank (older libraries import it)
_get_global_rank = _distributed.get_global_rank


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(
            f"module 'jtorch.distributed.distributed_c10d' has no attribute '{name}'")
    raise missing_attribute(f"torch.distributed.distributed_c10d.{name}")
