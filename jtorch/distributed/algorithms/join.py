"""torch.distributed.algorithms.join: stand-ins (see the package's docstring)."""

from ..._core.errors import missing_class

__all__ = ["Join", "JoinHook", "Joinable"]

Join = missing_class("torch.distributed.algorithms.join.Join")
JoinHook = missing_class("torch.distributed.algorithms.join.JoinHook")
Joinable = missing_class("torch.distributed.algorithms.join.Joinable")
