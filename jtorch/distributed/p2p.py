"""Point-to-point communication: ``send``, ``recv``, ``isend``, ``irecv``,
``batch_isend_irecv`` and ``P2POp``.

A message between two ranks is a ``jax.lax.ppermute`` in a program that both run over a mesh of
their two devices. ``isend``/``irecv`` queue the message; waiting on any of them (or ``send``/
``recv``, which wait at once) runs every message queued between the two ranks as one program,
so the usual exchange (both ranks ``isend`` then ``irecv``, then wait) works. Messages in each
direction match in the order they were posted, and their tags must agree.

Differences from PyTorch: ``recv`` needs ``src`` (receiving from any source is not supported);
two ranks that both call the blocking ``send`` before ``recv`` each run a one-message program
the other does not run: both raise the collective-mismatch error instead of completing (use
``isend``/``irecv`` or ``batch_isend_irecv``).
"""

from __future__ import annotations

import jax

from .._core.errors import not_implemented
from . import _programs
from .collectives import array, check_single_tensor, resolve_group, write
from .process_group import AXIS, ProcessGroup
from .work import Work

__all__ = ["P2POp", "batch_isend_irecv", "irecv", "isend", "recv", "send"]

_PENDING = {}   # (group uid, peer group rank) -> [(is_send, tensor, tag)]
_PAIRS = {}     # (group uid, low, high) -> the two ranks' ProcessGroup


def _peer(group, rank, group_rank, what):
    if rank is not None and group_rank is not None:
        raise ValueError(f"Can't specify both {what} and group_{what}")
    if group_rank is None:
        if rank is None:
            raise ValueError(f"Must specify {what} or group_{what}")
        if rank not in group.ranks:
            raise ValueError(f"Global rank {rank} is not part of group {group}")
        group_rank = group.ranks.index(rank)
    if group_rank == group.rank():
        raise ValueError(f"Invalid {what} rank: should not be the same as the rank of the "
                         f"current process.")
    return group_rank


class _P2PWork(Work):
    def __init__(self, group, peer, tensor):
        super().__init__([tensor])
        self._key = (group, peer)

    def wait(self, timeout=None):
        _flush(*self._key)
        return True

    def is_completed(self):
        return (self._key[0].uid, self._key[1]) not in _PENDING


def _post(is_send, tensor, group, peer, tag):
    _PENDING.setdefault((group.uid, peer), []).append((is_send, tensor, tag))
    return _P2PWork(group, peer, tensor)


def _pair(group, peer):
    low, high = sorted((group.rank(), peer))
    key = (group.uid, low, high)
    pg = _PAIRS.get(key)
    if pg is None:
        pg = _PAIRS[key] = ProcessGroup([group.ranks[low], group.ranks[high]],
                                        group._get_backend_name(), group.timeout,
                                        name=f"{group.name()}:p2p:{low}-{high}")
    return pg


def _flush(group, peer):
    ops = _PENDING.pop((group.uid, peer), None)
    if not ops:
        return
    pair = _pair(group, peer)
    me_low = group.rank() < peer
    outgoing = [(t, tag) for s, t, tag in ops if s]
    incoming = [(t, tag) for s, t, tag in ops if not s]
    up, down = (outgoing, incoming) if me_low else (incoming, outgoing)  # low->high, high->low
    arrays = [array(t) for t, _ in up] + [array(t) for t, _ in down]
    n_up = len(up)

    def body(*xs):
        return tuple(jax.lax.ppermute(x, AXIS, [(0, 1)] if i < n_up else [(1, 0)])
                     for i, x in enumerate(xs))

    tags = tuple(tag for _, tag in up + down)
    # the same kind on both sides (up and down are the same on both): SEND names the exchange
    outs = _programs.run(pair, "SEND", ("p2p", n_up, len(down), tags), body, arrays,
                         extra=n_up * 4096 + len(down) * 16 + (hash(tags) % 16))
    received = outs[n_up:] if me_low else outs[:n_up]
    for (t, _), value in zip(incoming, received):
        write(t, value)


def isend(tensor, dst=None, group=None, tag: int = 0, group_dst=None):
    """Queues ``tensor`` to be sent to rank ``dst``; returns a Work (see the module
    docstring)."""
    check_single_tensor(tensor, "tensor")
    group = resolve_group(group, "isend")
    if group is None:
        return None
    return _post(True, tensor, group, _peer(group, dst, group_dst, "dst"), tag)


def irecv(tensor, src=None, group=None, tag: int = 0, group_src=None):
    """Queues a receive from rank ``src`` into ``tensor``; returns a Work."""
    check_single_tensor(tensor, "tensor")
    group = resolve_group(group, "irecv")
    if group is None:
        return None
    if src is None and group_src is None:
        raise not_implemented("torch.distributed.irecv from any source (src=None)",
                              "an explicit src")
    return _post(False, tensor, group, _peer(group, src, group_src, "src"), tag)


def send(tensor, dst=None, group=None, tag: int = 0, group_dst=None) -> None:
    """Sends ``tensor`` to rank ``dst`` (returns when the matching receive ran)."""
    work = isend(tensor, dst, group, tag, group_dst)
    if work is not None:
        work.wait()


def recv(tensor, src=None, group=None, tag: int = 0, group_src=None) -> int:
    """Receives into ``tensor`` from rank ``src``; returns ``src``."""
    if src is None and group_src is None:
        raise not_implemented("torch.distributed.recv from any source (src=None)",
                              "an explicit src")
    work = irecv(tensor, src, group, tag, group_src)
    if work is None:
        return -1
    work.wait()
    g = resolve_group(group, "recv")
    return src if src is not None else g.ranks[group_src]


class P2POp:
    """One point-to-point operation for :func:`batch_isend_irecv`: ``op`` is ``isend`` or
    ``irecv``."""

    def __init__(self, op, tensor, peer=None, group=None, tag: int = 0, group_peer=None):
        if op not in (isend, irecv):
            raise ValueError("Invalid ``op``. Expected ``op`` to be of type "
                             "``torch.distributed.isend`` or ``torch.distributed.irecv``.")
        check_single_tensor(tensor, "tensor")
        self.op, self.tensor, self.tag = op, tensor, tag
        self.group = resolve_group(group, "P2POp")
        self.peer, self.group_peer = peer, group_peer


def batch_isend_irecv(p2p_op_list) -> list:
    """Posts every operation, then runs them (one program per peer); returns their Works."""
    if not p2p_op_list or not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise ValueError("Invalid ``p2p_op_list``. Each op is expected to to be of type "
                         "``torch.distributed.P2POp``.")
    works = []
    for p in p2p_op_list:
        if p.op is isend:
            works.append(isend(p.tensor, p.peer, p.group, p.tag, p.group_peer))
        else:
            works.append(irecv(p.tensor, p.peer, p.group, p.tag, p.group_peer))
    return works
