"""The collectives data parallelism runs on every step: averaging a model's gradients over the
ranks, and copying rank 0's parameters and buffers to every rank.

Both take a list of arrays and run one program for the whole list (eagerly, or inline in a
compiled SPMD step): gradients are divided by the world size (in their dtype, as PyTorch's DDP
does before its all-reduce), concatenated per dtype into buckets of at most ``bucket_bytes``,
summed with one ``psum`` per bucket, and split back. A sum is taken element by element, so the
bucketing does not change any value. Their callers (DDP, FSDP) check the ranks' parameter
shapes once at construction, so these programs skip the per-call fingerprint check.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from . import _programs
from .collectives import select_body
from .process_group import AXIS

__all__ = ["average_gradients", "broadcast_arrays"]

DEFAULT_BUCKET_BYTES = 25 * 1024 * 1024


def _buckets(arrays, bucket_bytes):
    """Index lists: arrays of one dtype, in order, each list at most ``bucket_bytes``."""
    by_dtype = {}
    for i, a in enumerate(arrays):
        by_dtype.setdefault(np.dtype(a.dtype).str, []).append(i)
    out = []
    for idx in by_dtype.values():
        current, size = [], 0
        for i in idx:
            nbytes = arrays[i].size * arrays[i].dtype.itemsize
            if current and size + nbytes > bucket_bytes:
                out.append(current)
                current, size = [], 0
            current.append(i)
            size += nbytes
        out.append(current)
    return [tuple(b) for b in out]


def average_gradients(group, grads, used=None, bucket_bytes=DEFAULT_BUCKET_BYTES):
    """``(averaged, used_anywhere)``: each of ``grads`` averaged over ``group``'s ranks, and,
    given ``used`` (a bool per gradient: whether this rank's forward used the parameter), a
    list saying whether any rank used each (None without ``used``, or inside a compiled step,
    where it is not known on the host)."""
    n = group.size()
    buckets = _buckets(grads, bucket_bytes)
    shapes = [g.shape for g in grads]

    def body(*xs):
        out = [None] * len(shapes)
        for bucket in buckets:
            flat = jnp.concatenate([(xs[i] / n).astype(xs[i].dtype).reshape(-1)
                                    for i in bucket])
            summed = jax.lax.psum(flat, AXIS)
            start = 0
            for i in bucket:
                size = int(np.prod(shapes[i], dtype=np.int64))
                out[i] = summed[start:start + size].reshape(shapes[i])
                start += size
        if used is not None:
            out.append(jax.lax.pmax(xs[-1], AXIS))
        return tuple(out)

    arrays = list(grads)
    if used is not None:
        arrays.append(jnp.asarray(np.asarray(used, np.int32)))
    outs = _programs.run(group, "ALLREDUCE", ("ddp_average", tuple(buckets), used is not None),
                         body, arrays, check=False)
    if used is None:
        return list(outs), None
    if isinstance(outs[-1], jax.core.Tracer):
        return list(outs[:-1]), None
    return list(outs[:-1]), [bool(u) for u in np.asarray(outs[-1])]


def broadcast_arrays(group, arrays, root=0):
    """Rank ``root``'s value of each of ``arrays`` on every rank, bit for bit."""
    if not arrays:
        return []
    return list(_programs.run(group, "BROADCAST", ("coalesced_broadcast", root),
                              lambda *xs: tuple(select_body(x, root) for x in xs),
                              list(arrays), extra=root, check=False))
