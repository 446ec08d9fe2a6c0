"""Collectives as XLA programs: one jitted ``shard_map`` per (group, collective, shapes).

Each process holds its own tensor on its own device. A collective wraps that array as this
process's piece of a global array over the group's mesh (one device per rank, every piece
given as the full local value: ``PartitionSpec()`` with ``check_vma=False``, so each device's
block is exactly its process's array, with no copy and no reshape), runs the program, and
takes its own device's block of the result. Inside the program, the body sees the local
arrays and uses ``jax.lax`` collectives over the axis ``ranks``.

Checked programs first all-gather a fingerprint of the call (a sequence number, the kind of
collective, its reduction or root, the shapes and dtypes) and run the collective only if every
rank's fingerprint is equal: ranks that call different collectives, or the same one with
different shapes, all raise an error instead of hanging or exchanging garbage.

Inside a ``jtorch.compile`` trace of a DDP/FSDP step (jtorch/distributed/_spmd.py), the step
already runs in a ``shard_map`` over the group's mesh and the body is called inline.
"""

from __future__ import annotations

import zlib

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import PartitionSpec

from .._core import dtypes as _dtypes, xla_options
from .._core.errors import TraceError
from . import _spmd
from ._errors import backend_failure, is_backend_failure
from ._runtime import mark_failed
from .process_group import AXIS

__all__ = ["run"]

# PyTorch's OpType names, in the fingerprint as their index here
KINDS = ("BROADCAST", "ALLREDUCE", "ALLREDUCE_COALESCED", "REDUCE", "ALLGATHER",
         "_ALLGATHER_BASE", "ALLGATHER_COALESCED", "GATHER", "SCATTER", "REDUCE_SCATTER",
         "ALLTOALL_BASE", "ALLTOALL", "SEND", "RECV", "RECVANYSOURCE", "BARRIER",
         "_REDUCE_SCATTER_BASE", "COALESCED", "_ALLREDUCE_SPARSE", "UNKNOWN")

_FP_LEN = 16
_MAX_DIMS = 8
_REPLICATED = PartitionSpec()


def _dtype_code(dtype) -> int:
    return zlib.crc32(np.dtype(dtype).str.encode()) & 0xFFFF


def _fingerprint(seq, kind, extra, arrays):
    fp = np.zeros(_FP_LEN, np.int64)
    fp[0], fp[1], fp[2], fp[3] = seq, KINDS.index(kind), extra, len(arrays)
    if arrays:
        first = arrays[0]
        fp[4] = _dtype_code(first.dtype)
        fp[5] = first.ndim
        dims = list(first.shape)[:_MAX_DIMS]
        fp[6:6 + len(dims)] = dims
    sig = repr([(a.shape, np.dtype(a.dtype).str) for a in arrays]).encode()
    fp[14] = zlib.crc32(sig)
    return fp


def _describe(fp, arrays_dtype_names):
    kind = KINDS[int(fp[1])] if 0 <= fp[1] < len(KINDS) else "UNKNOWN"
    ndim = int(fp[5])
    shape = [int(d) for d in fp[6:6 + min(ndim, _MAX_DIMS)]]
    if ndim > _MAX_DIMS:
        shape.append("...")
    dtype = arrays_dtype_names.get(int(fp[4]), f"dtype#{int(fp[4])}")
    return (f"CollectiveFingerPrint(SequenceNumber={int(fp[0])}, OpType={kind}, "
            f"TensorShape={shape}, TensorDtypes={dtype})")


_DTYPE_NAMES = {_dtype_code(d.np): d.scalar_name for d in _dtypes.ALL}


def mismatch_error(fps, group) -> RuntimeError:
    """PyTorch's ProcessGroupWrapper message for ranks running different collectives."""
    first = fps[0]
    for r in range(1, len(fps)):
        if not np.array_equal(fps[r], first):
            mine, theirs = _describe(first, _DTYPE_NAMES), _describe(fps[r], _DTYPE_NAMES)
            note = (" (they differ in the reduction op, the root rank or the shapes of further "
                    "tensors)" if mine == theirs else "")
            return RuntimeError(
                f"Detected mismatch between collectives on ranks. Rank {group.ranks[0]} is "
                f"running collective: {mine}, but Rank {group.ranks[r]} is running collective: "
                f"{theirs}.{note}")
    return RuntimeError("Detected mismatch between collectives on ranks.")


def _checked(body):
    def program(fp, *xs):
        fps = jax.lax.all_gather(fp, AXIS)
        ok = jnp.all(fps == fps[0])
        shapes = jax.eval_shape(body, *xs)
        outs = jax.lax.cond(
            ok, lambda a: body(*a),
            lambda a: jax.tree.map(lambda s: jnp.zeros(s.shape, s.dtype), shapes), xs)
        return fps, outs
    return program


def _unchecked(body):
    def program(*xs):
        return None, body(*xs)
    return program


def _compile(mesh, body, checked):
    fn = _checked(body) if checked else _unchecked(body)
    return xla_options.jit(jax.shard_map(fn, mesh=mesh, in_specs=_REPLICATED,
                                         out_specs=_REPLICATED, check_vma=False), kernel=True)


def _local(out):
    return out.addressable_data(0)


def run(group, kind: str, key, body, arrays, *, extra: int = 0, check: bool = True,
        platform: str | None = None, block: bool = True):
    """Runs ``body(*arrays)`` (local arrays in, a tuple of local arrays out) as a collective
    over ``group``; returns this rank's outputs.

    ``key`` (hashable) names the body's static parameters (the reduction, the root...);
    ``extra`` (an int) goes into the fingerprint with them. ``check`` compares every rank's
    fingerprint first (public collectives); internal callers whose shapes agree by
    construction (DDP's gradient buckets) skip it. ``block`` waits for the result, so that a
    failure raises here (``async_op`` callers wait in ``Work.wait``)."""
    if any(isinstance(a, jax.core.Tracer) for a in arrays):
        return _traced(group, kind, body, arrays)
    group.seq += 1
    if platform is None:
        platform = _spmd.platform_of(arrays[0]) if arrays else "cpu"
    mesh = group.mesh(platform)
    device = mesh.devices[group.rank()]
    sig = (platform, kind, key, check,
           tuple((a.shape, np.dtype(a.dtype).str) for a in arrays))
    program = group.programs.get(sig)
    if program is None:
        program = group.programs[sig] = _compile(mesh, body, check)
    inputs = [_spmd.as_global(a, mesh, device) for a in arrays]
    try:
        if check:
            fp = jax.device_put(_fingerprint(group.seq, kind, extra, arrays), device)
            fps, outs = program(_spmd.as_global(fp, mesh, device), *inputs)
            fps = np.asarray(_local(fps))
            if not (fps == fps[0]).all():
                raise mismatch_error(fps, group)
        else:
            _, outs = program(*inputs)
        outs = tuple(_local(o) for o in outs)
        if block:
            jax.block_until_ready(outs)
    except Exception as e:
        if is_backend_failure(e):
            mark_failed()
            raise backend_failure(kind.lower(), group.ranks[group.rank()], e) from e
        raise
    return outs


def _traced(group, kind, body, arrays):
    """A collective met while ``jtorch.compile`` traces: inline in an SPMD trace over this
    group's mesh, else an error that makes the compiled function run eagerly."""
    if not _spmd.active_for(group):
        raise TraceError(
            f"jtorch.distributed: {kind.lower()} ran inside a traced function (jtorch.compile, "
            "jax.jit...) that is not a compiled DistributedDataParallel/FSDP step. Collectives "
            "are traced into the program only when the compiled function's state holds a "
            "DistributedDataParallel or fully_shard module of the same process group; "
            "otherwise run the collective outside the compiled function.")
    return body(*arrays)

