"""Process groups: ``ProcessGroup``, ``Backend``, ``ReduceOp``, ``group``/``GroupMember`` and
the registry of the groups this process belongs to.

A ``ProcessGroup`` is a set of ranks (processes) that run collectives together. On JAX it is a
one-dimensional ``jax.sharding.Mesh`` with the device of each of its ranks, per platform (the
CPU device for gloo, the rank's GPU for nccl); a collective is one jitted ``shard_map``
program over that mesh (jtorch/distributed/_programs.py).
"""

from __future__ import annotations

import enum
import itertools
from datetime import timedelta

import numpy as np
from jax.sharding import Mesh

from ._runtime import RUNTIME

__all__ = ["Backend", "GroupMember", "ProcessGroup", "ReduceOp", "group"]

AXIS = "ranks"  # the mesh axis every collective program runs over


class Backend(str):
    """The backends, as lowercase strings: ``Backend.GLOO == "gloo"``; ``Backend("GLOO")``
    parses a name.

    jtorch runs ``gloo`` as JAX's CPU collectives (gloo), ``nccl`` as JAX's GPU collectives
    (NCCL inside XLA); ``mpi``, ``ucc``, ``xccl`` are names only."""

    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    UCC = "ucc"
    MPI = "mpi"
    XCCL = "xccl"
    FAKE = "fake"

    backend_list = [UNDEFINED, GLOO, NCCL, XCCL, UCC, MPI, FAKE]
    default_device_backend_map = {"cpu": GLOO, "cuda": NCCL, "xpu": XCCL, "mps": GLOO}
    backend_capability = {GLOO: ["cpu", "cuda"], NCCL: ["cuda"], XCCL: ["xpu"],
                          UCC: ["cpu", "cuda"], MPI: ["cpu", "cuda"],
                          FAKE: ["cpu", "cuda", "hpu", "xpu"]}

    def __new__(cls, name: str):
        if not isinstance(name, str):
            raise ValueError("Backend constructor parameter must be string-ish")
        value = getattr(Backend, name.upper(), Backend.UNDEFINED)
        if value == Backend.UNDEFINED:
            value = name.lower()
        return value


class _RedOpType(enum.IntEnum):
    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7
    PREMUL_SUM = 8
    UNUSED = 9

    __str__ = enum.Enum.__str__


_RedOpType.__name__ = _RedOpType.__qualname__ = "RedOpType"


class ReduceOp:
    """The reductions of ``all_reduce``, ``reduce`` and ``reduce_scatter``: ``SUM``, ``AVG``,
    ``PRODUCT``, ``MIN``, ``MAX``, ``BAND``, ``BOR``, ``BXOR`` (``PREMUL_SUM`` is NCCL's)."""

    RedOpType = _RedOpType
    SUM = _RedOpType.SUM
    AVG = _RedOpType.AVG
    PRODUCT = _RedOpType.PRODUCT
    MIN = _RedOpType.MIN
    MAX = _RedOpType.MAX
    BAND = _RedOpType.BAND
    BOR = _RedOpType.BOR
    BXOR = _RedOpType.BXOR
    PREMUL_SUM = _RedOpType.PREMUL_SUM
    UNUSED = _RedOpType.UNUSED

    def __init__(self, op=_RedOpType.SUM):
        self.op = _RedOpType(op)

    def __eq__(self, other):
        other = other.op if isinstance(other, ReduceOp) else other
        return self.op == other

    def __hash__(self):
        return hash(self.op)

    def __repr__(self):
        return f"<torch.distributed.distributed_c10d.ReduceOp object ({self.op})>"


class ProcessGroup:
    """A group of ranks that run collectives together.

    ``rank()`` is this process's rank in the group, ``size()`` the number of ranks;
    ``ranks`` (jtorch's) lists the global ranks in group order."""

    _counter = itertools.count()

    def __init__(self, ranks, backend, timeout: timedelta, name: str = "", desc: str = "",
                 store=None, device_id=None):
        self.ranks = list(ranks)
        self._rank = self.ranks.index(RUNTIME.rank)
        self._backend = backend
        self.timeout = timeout
        self.uid = next(ProcessGroup._counter)
        self._name = name or str(self.uid)
        self.group_desc = desc or "undefined"
        self.store = store
        self.bound_device_id = device_id
        self.seq = 0          # collectives run so far (every rank counts the same)
        self.programs = {}    # the collective programs compiled for this group
        self._meshes = {}

    def rank(self) -> int:
        return self._rank

    def size(self) -> int:
        return len(self.ranks)

    def name(self) -> str:
        return self._name

    @property
    def group_name(self) -> str:
        return self._name

    def _get_backend_name(self) -> str:
        return str(self._backend)

    def mesh(self, platform: str) -> Mesh:
        """The one-dimensional mesh of this group's devices on ``platform``."""
        m = self._meshes.get(platform)
        if m is None:
            every = RUNTIME.devices(platform)
            m = self._meshes[platform] = Mesh(np.array([every[r] for r in self.ranks]), (AXIS,))
        return m

    def __repr__(self):
        return (f"<jtorch.distributed.ProcessGroup {self._name} ranks={self.ranks} "
                f"backend={self._backend}>")


class _World:
    """This process's groups: the default one, and each group's global-to-group ranks."""

    def __init__(self):
        self.default_pg = None
        self.group_ranks = {}      # group -> {global rank: group rank}
        self.backend = None
        self.init_method = None
        self.group_count = 0


WORLD = _World()


class _WorldMeta(type):
    @property
    def WORLD(cls):  # noqa: N802 - PyTorch's name
        return WORLD.default_pg

    @WORLD.setter
    def WORLD(cls, pg):  # noqa: N802
        WORLD.default_pg = pg


class group(metaclass=_WorldMeta):  # noqa: N801 - PyTorch's name
    """``group.WORLD``: the default process group (None before init_process_group)."""


class GroupMember(metaclass=_WorldMeta):
    """``GroupMember.WORLD`` (the default group) and ``GroupMember.NON_GROUP_MEMBER`` (what
    new_group returns on ranks outside the new group)."""

    NON_GROUP_MEMBER = -100
