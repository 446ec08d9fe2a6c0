"""``DTensor``: a tensor laid out over a ``DeviceMesh`` (the form FSDP's sharded parameters
take), and ``distribute_tensor``.

On a mesh over processes, a ``DTensor`` sharded on dim 0 holds this rank's rows: the full
tensor's rows split into ``world_size`` chunks of ``ceil(rows / world_size)`` rows, the last
chunks padded with zeros, so every rank holds the same shape and every program over the
ranks is the same. ``full_tensor()`` all-gathers the chunks and drops the padding;
``to_local()`` is this rank's chunk.

On a mesh over one process's devices, a ``DTensor`` holds one JAX array laid out over the
devices (``jax.sharding``): its shape is the global shape, and ``full_tensor()`` is the same
values as a plain tensor.

Differences from PyTorch: a ``DTensor`` is a ``Parameter`` subclass whose ``shape`` is that of
the array it holds (this rank's padded chunk on a mesh over processes; PyTorch's reports the
global shape, which jtorch keeps in ``global_shape``); only ``Shard(0)`` and ``Replicate()``
over one mesh dimension of processes are supported (any placements on a local mesh);
``redistribute`` and DTensor operator dispatch are not implemented (ops on a DTensor run on
its local values).
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec

from ..._core.errors import not_implemented
from ..._core.tensor_base import Size
from ..._ops.creation import place
from ...nn.parameter import Parameter
from .. import _programs
from .._grad_sync import broadcast_arrays
from ..collectives import array
from ..device_mesh import DeviceMesh, init_device_mesh
from ..process_group import AXIS
from .placement_types import Replicate, Shard, _StridedShard

__all__ = ["DTensor", "distribute_tensor", "gather_rows", "shard_rows"]


def chunk_rows(rows: int, n: int) -> int:
    """The rows every rank holds of a tensor of ``rows`` rows split over ``n`` ranks."""
    return max(1, math.ceil(rows / n))


def shard_rows(full, n: int, rank: int):
    """Rank ``rank``'s chunk (``chunk_rows`` rows, zero-padded) of array ``full``."""
    c = chunk_rows(full.shape[0], n)
    pad = n * c - full.shape[0]
    if pad:
        full = jnp.concatenate([full, jnp.zeros((pad,) + full.shape[1:], full.dtype)])
    return jax.lax.dynamic_slice_in_dim(full, rank * c, c, 0)


def gather_rows(group, chunks, rows):
    """The full arrays of ``chunks`` (each rank's chunk of tensors of ``rows[i]`` rows), in one
    all-gather over ``group``."""
    outs = _programs.run(group, "_ALLGATHER_BASE", ("gather_rows",),
                         lambda *xs: tuple(jax.lax.all_gather(x, AXIS, tiled=True)
                                           for x in xs), list(chunks), check=False)
    return [o[:r] for o, r in zip(outs, rows)]


class DTensor(Parameter):
    """A tensor laid out over a device mesh (see the module docstring)."""

    def __new__(cls, local, device_mesh=None, placements=(), global_shape=None, group=None,
                requires_grad=False):
        p = Parameter.__new__(cls, local, requires_grad)
        p._dt_mesh = device_mesh
        p._dt_placements = tuple(placements)
        p._dt_shape = Size(global_shape if global_shape is not None else local.shape)
        p._dt_group = group
        return p

    def __init__(self, *args, **kwargs):
        pass

    @property
    def device_mesh(self) -> DeviceMesh:
        return self._dt_mesh

    @property
    def placements(self) -> tuple:
        return self._dt_placements

    @property
    def global_shape(self):
        return self._dt_shape

    def _is_row_sharded(self):
        return self._dt_group is not None and any(isinstance(p, Shard)
                                                  for p in self._dt_placements)

    def to_local(self, *, grad_placements=None):
        """This rank's values (its chunk on a mesh over processes)."""
        return place(array(self), self.device)

    def full_tensor(self, *, grad_placements=None):
        """The whole tensor on every rank (an all-gather on a mesh over processes)."""
        if not self._is_row_sharded():
            return place(array(self), self.device)
        (full,) = gather_rows(self._dt_group, [array(self)], [self._dt_shape[0]])
        return place(full, self.device)

    def redistribute(self, device_mesh=None, placements=None, *, async_op=False):
        raise not_implemented("torch.distributed.tensor.DTensor.redistribute")

    def __repr__(self, *, tensor_contents=None):
        return (f"DTensor(local_tensor={self.to_local()}, device_mesh={self._dt_mesh}, "
                f"placements={self._dt_placements})")

    __str__ = __repr__


def _spec(mesh, placements, ndim):
    axes = [None] * ndim
    for name, p in zip(mesh.axis_names, placements):
        if isinstance(p, Shard):
            axes[p.dim] = name if axes[p.dim] is None else (*(
                axes[p.dim] if isinstance(axes[p.dim], tuple) else (axes[p.dim],)), name)
    return PartitionSpec(*axes)


def distribute_tensor(tensor, device_mesh=None, placements=None, *, src_data_rank=0):
    """``tensor`` laid out over ``device_mesh`` by ``placements`` (one per mesh dimension;
    replicated by default). On a mesh over processes, rank ``src_data_rank``'s values are the
    ones distributed."""
    mesh = device_mesh if device_mesh is not None else init_device_mesh("cpu", (1,))
    placements = tuple(placements) if placements is not None else (Replicate(),) * mesh.ndim
    if any(isinstance(p, _StridedShard) for p in placements):
        raise not_implemented("torch.distributed.tensor.distribute_tensor with _StridedShard "
                              "placements")
    if len(placements) != mesh.ndim:
        raise ValueError(f"`placements` must have the same length as `device_mesh.ndim`! "
                         f"Found placements length: {len(placements)}, and device_mesh.ndim: "
                         f"{mesh.ndim}.")
    if mesh.is_local:
        sharding = NamedSharding(mesh.jax_mesh, _spec(mesh, placements, tensor.dim()))
        local = place(jax.device_put(array(tensor), sharding), tensor.device)
        return DTensor(local, mesh, placements, tensor.shape,
                       requires_grad=tensor.requires_grad)
    if mesh.ndim != 1 or any(isinstance(p, Shard) and p.dim != 0 for p in placements):
        raise not_implemented("torch.distributed.tensor.distribute_tensor over several mesh "
                              "dimensions or on dim != 0 across processes")
    group = mesh.get_group()
    values = array(tensor)
    if src_data_rank is not None:
        (values,) = broadcast_arrays(group, [values], root=src_data_rank)
    if isinstance(placements[0], Shard):
        values = shard_rows(values, group.size(), group.rank())
    return DTensor(place(values, tensor.device), mesh, placements, tensor.shape, group=group,
                   requires_grad=tensor.requires_grad)
