"""Single-process parallelism over a mesh of this process's devices, with ``jax.sharding``.

A tensor can hold an array laid out over several devices (a ``NamedSharding``); every jtorch
op is a jitted kernel, so XLA's SPMD partitioner runs it on all the devices at once and
inserts the communication its shardings need. Data parallelism is then: parameters
replicated on every device, the batch split along its batch dimension (the gradients of the
replicated parameters come back summed over the devices by the partitioner, so the maths is
the one-device maths). Fully sharded data parallelism: parameters (and so their gradients and
the optimizer state made from them) split along dim 0.

This is how ``DataParallel``, ``DistributedDataParallel(device_mesh=<a local mesh>)`` and
``fully_shard`` on a local mesh run; under ``jtorch.compile`` the whole step becomes one SPMD
program over the devices.
"""

from __future__ import annotations

import jax
from jax.sharding import NamedSharding, PartitionSpec

from .._ops.creation import place
from .._tensor import Tensor
from .collectives import array

__all__ = ["replicate_tensor", "shard_batch", "shard_dim0"]


def _put(t, sharding):
    """``t`` with its values laid out by ``sharding`` (a new tensor, no autograd history)."""
    return place(jax.device_put(array(t), sharding), t.device)


def replicate_tensor(t, jmesh):
    """Makes ``t`` (a parameter or buffer) hold a copy of its value on every device."""
    t.data = _put(t, NamedSharding(jmesh, PartitionSpec()))


def shard_dim0(t, jmesh, axis):
    """Makes ``t`` hold its rows split over ``axis`` of ``jmesh`` (replicated when dim 0 does
    not divide evenly, or for a 0-d tensor)."""
    n = jmesh.shape[axis]
    spec = PartitionSpec(axis) if t.dim() and t.shape[0] % n == 0 else PartitionSpec()
    t.data = _put(t, NamedSharding(jmesh, spec))


def shard_batch(x, jmesh, axis, dim=0):
    """``x`` split along ``dim`` over ``axis`` (unchanged when it does not divide evenly, or
    when it is not a tensor or requires grad)."""
    if not isinstance(x, Tensor) or x.requires_grad or x.dim() <= dim or \
            x.shape[dim] % jmesh.shape[axis]:
        return x
    spec = PartitionSpec(*([None] * dim), axis)
    return _put(x, NamedSharding(jmesh, spec))


def map_tensors(obj, fn):
    """``obj`` (tensors in lists, tuples and dicts) with ``fn`` applied to each tensor."""
    if isinstance(obj, Tensor):
        return fn(obj)
    if isinstance(obj, (list, tuple)):
        return type(obj)(map_tensors(o, fn) for o in obj)
    if isinstance(obj, dict):
        return {k: map_tensors(v, fn) for k, v in obj.items()}
    return obj
