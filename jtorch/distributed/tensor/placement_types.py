"""Placements of a ``DTensor`` on a mesh dimension: ``Shard(dim)``, ``Replicate()``,
``Partial()``."""

from __future__ import annotations

import dataclasses

__all__ = ["Partial", "Placement", "Replicate", "Shard"]


class Placement:
    """How a tensor lies along one mesh dimension."""

    def is_shard(self, dim=None) -> bool:
        return False

    def is_replicate(self) -> bool:
        return False

    def is_partial(self) -> bool:
        return False


@dataclasses.dataclass(frozen=True)
class Shard(Placement):
    """Split along tensor dimension ``dim`` (equal chunks, the last ones padded)."""

    dim: int = 0

    def is_shard(self, dim=None) -> bool:
        return dim is None or dim == self.dim


@dataclasses.dataclass(frozen=True)
class Replicate(Placement):
    """A full copy on every device."""

    def is_replicate(self) -> bool:
        return True


@dataclasses.dataclass(frozen=True)
class Partial(Placement):
    """Each device holds a partial value; the tensor is their reduction (``reduce_op``)."""

    reduce_op: str = "sum"

    def is_partial(self) -> bool:
        return True

    def __repr__(self):
        return f"Partial({self.reduce_op})"
