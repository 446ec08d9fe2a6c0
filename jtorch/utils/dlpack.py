"""torch.utils.dlpack: ``from_dlpack`` and ``to_dlpack`` (a DLPack capsule of a tensor)."""

from __future__ import annotations

from .._ops.dlpack import dlpack as _dlpack, from_dlpack as from_dlpack

__all__ = ["from_dlpack", "to_dlpack"]


def to_dlpack(tensor):
    """A DLPack capsule holding the tensor's values (consumed once by ``from_dlpack``)."""
    return _dlpack(tensor)
