"""torch._C._distributed_rpc: the RRef class libraries test objects against (torchrl's
``isinstance(self, torch._C._distributed_rpc.PyRRef)``). jtorch has no RPC
(``torch.distributed.rpc.is_available()`` is False), so nothing is one and making one raises
NotImplementedError."""

from __future__ import annotations

from .._core.errors import stand_in_class

__all__ = ["PyRRef"]

PyRRef = stand_in_class("torch._C._distributed_rpc.PyRRef")
