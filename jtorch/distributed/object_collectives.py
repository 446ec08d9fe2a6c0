"""Collectives of picklable Python objects: ``all_gather_object``, ``gather_object``,
``broadcast_object_list``, ``scatter_object_list``, ``send_object_list``,
``recv_object_list``.

As in PyTorch, each object is pickled to bytes; the byte counts are exchanged first, then the
bytes (padded to the longest) in a second collective; receivers unpickle. Unpickling runs
arbitrary code: use these only with trusted peers (PyTorch's warning).
"""

from __future__ import annotations

import io
import pickle

import jax
import jax.numpy as jnp
import numpy as np

from .._ops.creation import place
from . import _programs
from .collectives import group_rank, resolve_group, select_body
from .p2p import irecv, isend
from .process_group import AXIS

__all__ = ["all_gather_object", "broadcast_object_list", "gather_object", "recv_object_list",
           "scatter_object_list", "send_object_list"]


def _to_bytes(obj) -> np.ndarray:
    buf = io.BytesIO()
    pickle.Pickler(buf).dump(obj)
    return np.frombuffer(buf.getvalue(), np.uint8)


def _from_bytes(data) -> object:
    return pickle.Unpickler(io.BytesIO(np.asarray(data, np.uint8).tobytes())).load()


def _gather_bytes(group, data: np.ndarray, kind: str):
    """Every rank's byte string (a list, in group-rank order)."""
    (sizes,) = _programs.run(group, kind, ("object_sizes",),
                             lambda v: (jax.lax.all_gather(v, AXIS),),
                             [jnp.asarray(np.array([data.size], np.int64))])
    sizes = np.asarray(sizes).reshape(-1)
    padded = np.zeros(int(sizes.max()), np.uint8)
    padded[:data.size] = data
    (every,) = _programs.run(group, kind, ("object_bytes",),
                             lambda v: (jax.lax.all_gather(v, AXIS),), [jnp.asarray(padded)])
    every = np.asarray(every)
    return [every[i, :int(sizes[i])] for i in range(len(sizes))]


def all_gather_object(object_list, obj, group=None) -> None:
    """Fills ``object_list`` (one slot per rank) with every rank's ``obj``."""
    group = resolve_group(group, "all_gather_object")
    if group is None:
        return
    for i, data in enumerate(_gather_bytes(group, _to_bytes(obj), "ALLGATHER")):
        object_list[i] = _from_bytes(data)


def gather_object(obj, object_gather_list=None, dst=None, group=None, group_dst=None) -> None:
    """Rank ``dst`` receives every rank's ``obj`` in ``object_gather_list``."""
    group = resolve_group(group, "gather_object")
    if group is None:
        return
    root = group_rank(group, dst, group_dst, "dst")
    me = group.rank()
    if me == root and object_gather_list is None:
        raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
    if me != root and object_gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination "
                         "ranks.")
    every = _gather_bytes(group, _to_bytes(obj), "GATHER")
    if me == root:
        for i, data in enumerate(every):
            object_gather_list[i] = _from_bytes(data)


def _broadcast_bytes(group, data, root):
    (size,) = _programs.run(group, "BROADCAST", ("object_size", root),
                            lambda v: (select_body(v, root),),
                            [jnp.asarray(np.array([data.size], np.int64))], extra=root)
    n = int(np.asarray(size)[0])
    buf = np.zeros(n, np.uint8)
    if group.rank() == root:
        buf[:] = data
    (out,) = _programs.run(group, "BROADCAST", ("object_bytes", root),
                           lambda v: (select_body(v, root),), [jnp.asarray(buf)], extra=root)
    return np.asarray(out)


def broadcast_object_list(object_list, src=None, group=None, device=None,
                          group_src=None) -> None:
    """Rank ``src``'s ``object_list`` items replace every other rank's (same length)."""
    group = resolve_group(group, "broadcast_object_list")
    if group is None:
        return
    root = group_rank(group, src, group_src, "src")
    payload = _to_bytes(list(object_list)) if group.rank() == root else np.zeros(0, np.uint8)
    received = _from_bytes(_broadcast_bytes(group, payload, root))
    if group.rank() != root:
        object_list[:] = received[:len(object_list)]


def scatter_object_list(scatter_object_output_list, scatter_object_input_list=None, src=None,
                        group=None, group_src=None) -> None:
    """Rank ``src`` sends ``scatter_object_input_list[i]`` to rank ``i``, which receives it
    in ``scatter_object_output_list[0]``."""
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise ValueError("Expected argument scatter_object_output_list to be a list of size at "
                         "least 1.")
    group = resolve_group(group, "scatter_object_list")
    if group is None:
        return
    root = group_rank(group, src, group_src, "src")
    payload = _to_bytes(list(scatter_object_input_list)) if group.rank() == root \
        else np.zeros(0, np.uint8)
    every = _from_bytes(_broadcast_bytes(group, payload, root))
    scatter_object_output_list[0] = every[group.rank()]


def send_object_list(object_list, dst=None, group=None, device=None, group_dst=None,
                     use_batch: bool = False) -> None:
    """Sends ``object_list`` to rank ``dst`` (which calls :func:`recv_object_list`)."""
    data = _to_bytes(list(object_list))
    _send_array(jnp.asarray(np.array([data.size], np.int64)), dst, group, group_dst)
    _send_array(jnp.asarray(data), dst, group, group_dst)


def recv_object_list(object_list, src=None, group=None, device=None, group_src=None,
                     use_batch: bool = False) -> int:
    """Receives the objects a :func:`send_object_list` of rank ``src`` sent into
    ``object_list``; returns ``src``."""
    size = _recv_array(np.zeros(1, np.int64), src, group, group_src)
    data = _recv_array(np.zeros(int(size[0]), np.uint8), src, group, group_src)
    object_list[:] = _from_bytes(data)[:len(object_list)]
    return src


def _send_array(arr, dst, group, group_dst):
    isend(place(arr), dst, group, 0, group_dst).wait()


def _recv_array(buf, src, group, group_src):
    t = place(jnp.asarray(buf))
    irecv(t, src, group, 0, group_src).wait()
    return np.asarray(t.__jax_array__())


