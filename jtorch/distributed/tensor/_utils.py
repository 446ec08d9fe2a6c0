"""torch.distributed.tensor._utils: the shape and offset of this rank's shard of a global
tensor, which libraries (Hugging Face transformers' sharded loading) compute without making a
DTensor."""

from __future__ import annotations

from ..._core.errors import not_implemented
from .placement_types import Shard, _StridedShard

__all__ = ["compute_local_shape_and_global_offset"]


def compute_local_shape_and_global_offset(global_shape, mesh, placements) -> tuple:
    """``(local_shape, global_offset)`` of this rank's piece of a tensor of ``global_shape``
    laid out over ``mesh`` by ``placements``: each ``Shard(d)`` splits what earlier mesh
    dimensions left of dimension ``d`` as ``torch.chunk`` does. A rank outside the mesh gets
    ``((0,), ())``, as in PyTorch."""
    coordinate = mesh.get_coordinate()
    if coordinate is None:
        return (0,), ()
    shape, offset = list(global_shape), [0] * len(global_shape)
    for mesh_dim, placement in enumerate(placements):
        if isinstance(placement, _StridedShard):
            raise not_implemented("torch.distributed.tensor._utils."
                                  "compute_local_shape_and_global_offset with _StridedShard")
        if isinstance(placement, Shard):
            dim = placement.dim
            if not -len(shape) <= dim < len(shape):
                raise IndexError(f"Sharding dim {dim} greater than tensor ndim {len(shape)}")
            dim %= len(shape)
            size, start = Shard.local_shard_size_and_offset(shape[dim], mesh.size(mesh_dim),
                                                            coordinate[mesh_dim])
            shape[dim] = size
            offset[dim] += start
    return tuple(shape), tuple(offset)
