"""The process-group API of ``torch.distributed``: ``init_process_group``,
``destroy_process_group``, ``new_group``, ``get_rank``, ``get_world_size``, ``get_backend`` and
the queries around them, with PyTorch's signatures, defaults and errors.

``init_process_group`` finds the other processes (``env://``, ``tcp://``, ``file://`` or a
``store``), then starts JAX's multi-process runtime with this rank as JAX process ``rank``
(jtorch/distributed/_runtime.py). Every later collective is an XLA program over a mesh of one
device per rank.

Differences from PyTorch:

- With more than one process, ``init_process_group`` must run while the process holds no
  tensor (JAX can start its multi-process runtime only before its backend starts; a backend
  that holds nothing, started by an accelerator query, is restarted); otherwise it raises a
  ``RuntimeError`` that says so.
- After ``destroy_process_group`` JAX's runtime keeps running (JAX cannot restart it in the same
  process); a later ``init_process_group`` with the same rank and world size reuses it.
- ``backend`` chooses the device the collectives run on: ``gloo`` the CPU, ``nccl`` the GPU
  (``None``: both, the tensor's device decides, as PyTorch's ``cpu:gloo,cuda:nccl``).
"""

from __future__ import annotations

import os
from datetime import timedelta

from .._core import device as _device
from ._runtime import install_excepthook, register_devices, start
from .constants import default_pg_nccl_timeout, default_pg_timeout
from .process_group import WORLD, Backend, GroupMember, ProcessGroup
from .rendezvous import coordinator_from_store, rendezvous
from .store import PrefixStore, TCPStore

__all__ = [
    "destroy_process_group", "get_backend", "get_backend_config",
    "get_default_backend_for_device", "get_global_rank", "get_group_rank",
    "get_node_local_rank", "get_pg_count", "get_process_group_ranks", "get_rank",
    "get_world_size", "init_process_group", "is_available", "is_backend_available",
    "is_gloo_available", "is_initialized", "is_mpi_available", "is_nccl_available",
    "is_torchelastic_launched", "is_ucc_available", "is_xccl_available", "new_group",
    "new_subgroups",
]

_NOT_INITIALIZED = ("Default process group has not been initialized, please make sure to call "
                    "init_process_group.")


def is_available() -> bool:
    """Whether the distributed package is available (always, on JAX)."""
    return True


def is_gloo_available() -> bool:
    return True


def is_nccl_available() -> bool:
    """Whether JAX has a GPU backend (jtorch's NCCL is XLA's GPU collectives)."""
    return bool(_device.jax_devices("cuda"))


def is_mpi_available() -> bool:
    return False


def is_ucc_available() -> bool:
    return False


def is_xccl_available() -> bool:
    return False


def is_backend_available(backend: str) -> bool:
    return {"gloo": True, "nccl": is_nccl_available()}.get(str(backend).lower(), False)


def is_initialized() -> bool:
    """Whether the default process group has been initialized."""
    return WORLD.default_pg is not None


def is_torchelastic_launched() -> bool:
    """Whether this process was started by torchrun (or jtorchrun): ``TORCHELASTIC_RUN_ID``
    is set."""
    return os.getenv("TORCHELASTIC_RUN_ID") is not None


def default_group() -> ProcessGroup:
    if WORLD.default_pg is None:
        raise ValueError(_NOT_INITIALIZED)
    return WORLD.default_pg


def _timeout_for(backend) -> timedelta:
    return default_pg_nccl_timeout if backend == Backend.NCCL else default_pg_timeout


def _check_timeout(timeout):
    if not isinstance(timeout, timedelta):
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, got "
                        f"{timeout}")


def _platforms(backend: str):
    """Which platforms' devices a backend's collectives run on."""
    if backend == Backend.NCCL:
        if not is_nccl_available():
            raise RuntimeError("Distributed package doesn't have NCCL built in")
        return ["gpu"]
    if backend in (Backend.GLOO, Backend.UNDEFINED):
        return ["cpu", "gpu"] if is_nccl_available() else ["cpu"]
    if backend in (Backend.MPI, Backend.UCC, Backend.XCCL):
        raise RuntimeError(f"Distributed package doesn't have {backend.upper()} built in")
    raise AssertionError(f"Unknown backend type {backend}")


def _gpu_index(device_id):
    """Which of this process's GPUs the process group uses: ``device_id``, else the current
    CUDA device if set, else ``LOCAL_RANK`` (one GPU per process, as torchrun lays out)."""

    def choose(count):
        if device_id is not None:
            return device_id.index
        current = _device.CURRENT_CUDA[0]
        if current:
            return current
        local = int(os.environ.get("LOCAL_RANK", "0"))
        return local if local < count else 0

    return choose


def _bind_device(device_id):
    if isinstance(device_id, int):
        if not is_nccl_available():
            raise ValueError("device_id is an int, but no accelerator support is found from "
                             "the current compilation. Please use a different compiled version "
                             "that supports your accelerator.")
        device_id = _device.device("cuda", device_id)
    if device_id is not None and device_id.type != "cpu":
        if device_id.type != "cuda" or not is_nccl_available():
            raise ValueError(f"device_id {device_id} does not match the current compilation's "
                             f"accelerator support: None. Please use a different compiled "
                             f"version that supports your accelerator.")
        if device_id.index is None:
            raise ValueError("Please use a device_id with index.")
    if device_id is not None and device_id.type == "cpu":  # a group binds an accelerator only
        raise ValueError("init_process_group device_id parameter must be an accelerator with an "
                         "index")
    return device_id


def init_process_group(backend: str | None = None, init_method: str | None = None,
                       timeout: timedelta | None = None, world_size: int = -1, rank: int = -1,
                       store=None, group_name: str = "", pg_options=None,
                       device_id=None) -> None:
    """Initializes the default process group (and JAX's multi-process runtime).

    Args:
        backend (str, optional): ``"gloo"`` (CPU collectives), ``"nccl"`` (GPU collectives) or
            None (both: a tensor's device picks).
        init_method (str, optional): ``"env://"`` (the default), ``"tcp://host:port"`` or
            ``"file:///path"``. Exclusive with ``store``.
        timeout (timedelta, optional): how long to wait for the other processes (30 minutes,
            10 for nccl).
        world_size (int, optional): the number of processes (required with ``store``).
        rank (int, optional): this process's rank in ``[0, world_size)`` (required with
            ``store``).
        store (Store, optional): a store all processes reach (``TCPStore``, ``FileStore``,
            ``HashStore`` for one process).
        group_name, pg_options: accepted and ignored, as in PyTorch.
        device_id (device or int, optional): the GPU this process uses.

    Example::

        >>> # each process, with RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT set (jtorchrun)
        >>> dist.init_process_group("gloo")
        >>> dist.get_rank(), dist.get_world_size()
    """
    if WORLD.default_pg is not None:
        raise ValueError("trying to initialize the default process group twice!")
    if store is not None and init_method is not None:
        raise AssertionError("Cannot specify both init_method and store.")
    if store is not None:
        if not world_size > 0:
            raise AssertionError("world_size must be positive if using store")
        if not rank >= 0:
            raise AssertionError("rank must be non-negative if using store")
    elif init_method is None:
        init_method = "env://"
    if isinstance(device_id, _device.device) and device_id.type == "cuda" and backend is None:
        backend = Backend.NCCL
    backend = Backend(backend if backend is not None else "undefined")
    if backend not in Backend.backend_list:
        raise AssertionError(f"Unknown backend type {backend}")
    if timeout is None:
        timeout = _timeout_for(backend)
    _check_timeout(timeout)

    if store is None:
        store, rank, world_size, coordinator = next(rendezvous(init_method, rank, world_size,
                                                               timeout=timeout))
        store.set_timeout(timeout)
    elif isinstance(store, TCPStore):
        coordinator = f"{store.host}:{store.port}"
    elif world_size > 1:
        coordinator = coordinator_from_store(store, rank)
    else:
        coordinator = None
    if rank >= world_size:
        raise RuntimeError(f"[enforce fail at gloo/context.cc:23] rank < size. {rank} vs "
                           f"{world_size}")
    start(rank, world_size, coordinator, timeout.total_seconds())
    # what needs JAX's backend runs after its multi-process runtime started
    device_id = _bind_device(device_id)
    choice = {"cpu": 0, "gpu": _gpu_index(device_id)}
    register_devices({p: choice[p] for p in _platforms(backend)})
    store = PrefixStore("default_pg", store)
    pg = ProcessGroup(range(world_size), backend, timeout, name="0", desc="default_pg",
                      store=store, device_id=device_id)
    WORLD.default_pg = pg
    WORLD.group_ranks = {pg: {i: i for i in range(world_size)}}
    WORLD.backend = backend
    WORLD.init_method = init_method
    WORLD.group_count = 1
    install_excepthook(rank)


def destroy_process_group(group: ProcessGroup | None = None) -> None:
    """Destroys ``group`` (all groups, and de-initializes the package, for None or
    ``group.WORLD``). JAX's runtime keeps running (see the module docstring)."""
    if group == GroupMember.NON_GROUP_MEMBER:
        return
    pg = WORLD.default_pg if group is None else group
    if pg is None:
        raise AssertionError("Process group cannot be None")
    if pg not in WORLD.group_ranks:
        raise ValueError("Invalid process group specified")
    if group is None or pg is WORLD.default_pg:
        WORLD.default_pg = None
        WORLD.group_ranks = {}
        WORLD.group_count = 0
    else:
        del WORLD.group_ranks[pg]


def _not_member(group) -> bool:
    return group is not None and group == GroupMember.NON_GROUP_MEMBER


def get_rank(group: ProcessGroup | None = None) -> int:
    """This process's rank in ``group`` (the default group if None); -1 outside it."""
    if _not_member(group):
        return -1
    pg = default_group()
    if group is None or group is pg:
        return pg.rank()
    return get_group_rank(group, pg.rank())


def get_world_size(group: ProcessGroup | None = None) -> int:
    """The number of processes in ``group`` (the default group if None); -1 outside it."""
    if _not_member(group):
        return -1
    if group is None or group is WORLD.default_pg:
        return default_group().size()
    return group.size()


def get_backend(group: ProcessGroup | None = None) -> Backend:
    """The backend of ``group`` as a lower-case string."""
    pg = group or default_group()
    if _not_member(pg):
        raise ValueError("Invalid process group specified")
    if pg not in WORLD.group_ranks:
        raise ValueError(f"Process group {pg} is not initialized in the world group map. "
                         f"Please initialize the group first.")
    return Backend(pg._get_backend_name())


def get_backend_config(group: ProcessGroup | None = None) -> str:
    backend = get_backend(group)
    if backend == Backend.UNDEFINED:
        return "cpu:gloo,cuda:nccl" if is_nccl_available() else "cpu:gloo"
    return ",".join(f"{d}:{backend}" for d in Backend.backend_capability.get(backend, ["cpu"]))


def get_default_backend_for_device(device) -> str:
    dev_type = device.type if isinstance(device, _device.device) else _device.device(device).type
    backend = Backend.default_device_backend_map.get(dev_type)
    if backend is None:
        raise ValueError(f"Default backend not registered for device : {device}")
    return backend


def _registered_ranks(group: ProcessGroup):
    """``group``'s ``{global rank: group rank}`` map; ValueError if ``group`` is unknown."""
    if group not in WORLD.group_ranks:
        raise ValueError(f"Group {group} is not registered, please create group with "
                         f"torch.distributed.new_group API")
    return WORLD.group_ranks[group]


def get_group_rank(group: ProcessGroup, global_rank: int) -> int:
    """The rank in ``group`` of global rank ``global_rank``."""
    if group is WORLD.default_pg:
        return global_rank
    ranks = _registered_ranks(group)
    if global_rank not in ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {group}")
    return ranks[global_rank]


def get_global_rank(group: ProcessGroup, group_rank: int) -> int:
    """The global rank of rank ``group_rank`` of ``group``."""
    if group is WORLD.default_pg:
        return group_rank
    for g, r in _registered_ranks(group).items():
        if r == group_rank:
            return g
    raise ValueError(f"Group rank {group_rank} is not part of group {group}")


def get_process_group_ranks(group: ProcessGroup | None) -> list:
    """The global ranks of ``group``, in group-rank order."""
    return list(WORLD.group_ranks[group or default_group()].keys())


def get_pg_count() -> int:
    return WORLD.group_count


def get_node_local_rank(fallback_rank: int | None = None) -> int:
    """``LOCAL_RANK`` from the environment (set by torchrun/jtorchrun), else
    ``fallback_rank``."""
    if "LOCAL_RANK" in os.environ:
        return int(os.environ["LOCAL_RANK"])
    if fallback_rank is not None:
        return int(fallback_rank)
    raise RuntimeError(
        "LOCAL_RANK is not in the environment. Consider passing fallback_rank to allow "
        "`get_node_local_rank` to work, assuming you are not running in a multi-device context "
        "and want the code to run locally instead.")


def new_group(ranks=None, timeout=None, backend=None, pg_options=None,
              use_local_synchronization: bool = False, group_desc=None, device_id=None,
              sort_ranks: bool = True):
    """A new group of the given global ``ranks`` (all ranks if None). Every process calls it,
    members or not, in the same order; non-members get ``GroupMember.NON_GROUP_MEMBER``.

    Its collectives run over a mesh of its members' devices only."""
    default = default_group()
    backend = Backend(backend) if backend else Backend(default._get_backend_name())
    if timeout is None:
        timeout = _timeout_for(backend)
    _check_timeout(timeout)
    world_size = default.size()
    if ranks is not None:
        ranks = sorted(ranks) if sort_ranks else list(ranks)
        if len(set(ranks)) != len(ranks):
            raise ValueError(f"ranks list must not contain duplicate entries, got {ranks}")
        if len(ranks) > world_size:
            raise ValueError("the new group's world size should be less or equal to the world "
                             "size set by init_process_group")
        for r in ranks:
            if r < 0 or r >= world_size:
                raise ValueError(f"Rank {r} is out of range. Valid ranks are 0 to "
                                 f"{world_size - 1} (world_size={world_size})")
    else:
        ranks = list(range(world_size))
    name = str(WORLD.group_count)
    WORLD.group_count += 1
    if default.rank() not in ranks:
        return GroupMember.NON_GROUP_MEMBER
    pg = ProcessGroup(ranks, backend, timeout, name=name, desc=group_desc or "undefined",
                      store=PrefixStore(f"{name}/", default.store.underlying_store),
                      device_id=default.bound_device_id)
    WORLD.group_ranks[pg] = {g: i for i, g in enumerate(ranks)}
    return pg


def new_subgroups(group_size=None, group=None, timeout=None, backend=None, pg_options=None,
                  group_desc=None):
    """Splits the world into equal groups of ``group_size`` consecutive ranks; returns
    ``(this rank's subgroup, all subgroups)``."""
    world_size = get_world_size()
    if group_size is None:
        if not is_nccl_available():
            raise ValueError("Default group size only takes effect when CUDA is available. If "
                             "your subgroup using a backend that does not depend on CUDA, "
                             "please specify 'group_size' correctly.")
        group_size = len(_device.jax_devices("cuda"))
    if group_size <= 0:
        raise ValueError(f"The arg 'group_size' ({group_size}) must be positive")
    if world_size % group_size != 0:
        raise ValueError(f"The world size ({world_size}) must be divisible by 'group_size="
                         f"{group_size}'")
    mine, subgroups = None, []
    for start_rank in range(0, world_size, group_size):
        ranks = list(range(start_rank, start_rank + group_size))
        g = new_group(ranks, timeout=timeout, backend=backend, group_desc=group_desc)
        subgroups.append(g)
        if get_rank() in ranks:
            mine = g
    return mine, subgroups
