"""Placements of a ``DTensor`` on a mesh dimension: ``Shard(dim)``, ``Replicate()``,
``Partial()``; ``_StridedShard`` exists for code that names it (jtorch's DTensor does not lay
tensors out by it)."""

from __future__ import annotations

import dataclasses

__all__ = ["Partial", "Placement", "Replicate", "Shard", "_StridedShard"]


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

    @staticmethod
    def local_shard_size_and_offset(curr_local_size: int, num_chunks: int,
                                    rank: int) -> tuple[int, int]:
        """The size and start of chunk ``rank`` of ``num_chunks`` along a dimension of
        ``curr_local_size`` (``torch.chunk``'s split: ceil-sized chunks, the last ones short
        or empty; an empty chunk starts at the end)."""
        full = -(-curr_local_size // num_chunks)
        start = full * rank
        if start >= curr_local_size:
            return 0, curr_local_size
        return min(curr_local_size, start + full) - start, start

    _local_shard_size_and_offset = local_shard_size_and_offset  # PyTorch 2.8/2.9's name


@dataclasses.dataclass(frozen=True)
class _StridedShard(Shard):
    """PyTorch's private placement for a dimension sharded twice in a row (``split_factor``
    groups, each split over the mesh dimension). jtorch's ``distribute_tensor`` raises
    NotImplementedError for it."""

    split_factor: int = 1


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
