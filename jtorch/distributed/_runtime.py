"""The JAX multi-process runtime under torch.distributed: starting it, its key-value store,
which device each rank computes on, and what happens at exit after a failure.

A process group of more than one process is JAX's multi-controller runtime
(``jax.distributed.initialize``): rank ``r`` of ``world_size`` is JAX process ``r``, the
coordinator (rank 0 hosts it) gives every process the global device list and a key-value
store, and collectives are XLA programs over a mesh with one device per rank (gloo between
CPUs, NCCL between GPUs). A process group of one process needs no coordinator.

JAX can start its multi-process runtime only before its backend starts (before the first
array is made), hence the error in :func:`start`.
"""

from __future__ import annotations

import atexit
import io
import os
import sys

import jax
from jax._src import (
    distributed as _jax_distributed,  # the coordinator's key-value client
    xla_bridge as _xla_bridge,  # whether JAX's backend has started
)
from jax.extend.backend import clear_backends

from .._core.device import forget_jax_devices
from ._errors import DistNetworkError, DistStoreError

__all__ = ["RUNTIME", "register_devices", "start"]


class _Runtime:
    """What this process knows about the multi-process runtime."""

    def __init__(self):
        self.rank = 0
        self.world_size = 1
        self.coordinator = None      # "host:port" of JAX's coordinator (None: one process)
        self.device_ids = {}         # platform -> [global device id of each rank]
        self.failed = False          # a collective failed or an exception went uncaught
        self.timeout_s = 1800.0

    @property
    def multi_process(self):
        return self.coordinator is not None

    # ------------------------------------------------------------ the key-value store
    def client(self):
        """JAX's coordinator client (the key-value store and barriers)."""
        client = _jax_distributed.global_state.client
        if client is None:
            raise RuntimeError("jtorch.distributed: the JAX distributed runtime is not running "
                               "(call init_process_group with world_size > 1 first)")
        return client

    def kv_set(self, key: str, value: bytes):
        self.client().key_value_set_bytes(key, value, allow_overwrite=True)

    def kv_get(self, key: str, timeout_s: float) -> bytes:
        try:
            return self.client().blocking_key_value_get_bytes(key, _ms(timeout_s))
        except Exception as e:  # JAX raises its own error types for timeouts
            raise DistStoreError(f"Timed out after {timeout_s:g} s waiting for key '{key}' "
                                 f"in the store (rank {self.rank}): {_first_line(e)}") from e

    def barrier(self, name: str, timeout_s: float, ranks=None):
        try:
            self.client().wait_at_barrier(name, _ms(timeout_s), ranks)
        except Exception as e:
            raise DistStoreError(f"barrier '{name}' did not complete within {timeout_s:g} s on "
                                 f"rank {self.rank}: {_first_line(e)}") from e

    # ------------------------------------------------------------ devices
    def devices(self, platform: str):
        """The device of every rank on ``platform`` (one per rank, in rank order)."""
        ids = self.device_ids.get(platform)
        if ids is None:
            raise RuntimeError(f"jtorch.distributed: no {_NAMES.get(platform, platform)} "
                               f"device was registered for this process group")
        by_id = {d.id: d for d in jax.devices(platform)}
        return [by_id[i] for i in ids]


RUNTIME = _Runtime()

_NAMES = {"cpu": "CPU", "gpu": "GPU", "tpu": "TPU"}


def _ms(seconds: float) -> int:
    return max(1, int(seconds * 1000))


def _first_line(err):
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__


def backend_started() -> bool:
    return _xla_bridge.backends_are_initialized()


BACKEND_STARTED = (
    "jtorch.distributed.init_process_group must run before this process makes tensors (or "
    "keeps any JAX array): with {world_size} processes it starts JAX's multi-process runtime "
    "(jax.distributed.initialize), which JAX allows only before its backend starts, and this "
    "process holds arrays on the running backend (a tensor or a module made before; "
    "jtorch.manual_seed and accelerator queries are fine). Call init_process_group first, at "
    "the top of the script or of the function each worker runs, then build the model and "
    "data.")


def _restart_backend_for_runtime(world_size):
    """JAX's backend started before the multi-process runtime. If nothing lives on it (it was
    started by a query: ``torch.accelerator.is_available()``, ``torch.cuda.device_count()``,
    as pytorch/examples' FSDP2 example does before init_process_group), it is shut down so
    the runtime can start, as PyTorch allows; a tensor made already is a clear error."""
    if jax.live_arrays():
        raise RuntimeError(BACKEND_STARTED.format(world_size=world_size))
    clear_backends()
    forget_jax_devices()


def start(rank: int, world_size: int, coordinator: str, timeout_s: float) -> None:
    """Start JAX's runtime for ``rank`` of ``world_size`` (coordinator ``host:port``)."""
    RUNTIME.rank, RUNTIME.world_size = rank, world_size
    RUNTIME.timeout_s = timeout_s
    if world_size == 1:
        RUNTIME.coordinator = None
        return
    state = _jax_distributed.global_state
    if state.client is not None:  # a second init_process_group (after destroy) reuses it
        if (state.process_id, state.num_processes) != (rank, world_size):
            raise RuntimeError(
                f"jtorch.distributed: this process already ran JAX's multi-process runtime as "
                f"rank {state.process_id} of {state.num_processes}; JAX cannot restart it as "
                f"rank {rank} of {world_size} in the same process")
    else:
        if backend_started():
            _restart_backend_for_runtime(world_size)
        if jax.config.jax_cpu_collectives_implementation is None:
            jax.config.update("jax_cpu_collectives_implementation", "gloo")
        heartbeat = int(os.environ.get("JTORCH_DIST_HEARTBEAT_TIMEOUT", "100"))
        try:
            jax.distributed.initialize(
                coordinator, num_processes=world_size, process_id=rank,
                initialization_timeout=max(1, int(timeout_s)),
                heartbeat_timeout_seconds=heartbeat,
                shutdown_timeout_seconds=max(300, int(timeout_s)))
        except Exception as e:
            raise DistNetworkError(
                f"jtorch.distributed: rank {rank} could not join the {world_size} processes at "
                f"JAX's coordinator {coordinator} within {timeout_s:g} s: {_first_line(e)}\n"
                "Check that every process was started with the same MASTER_ADDR/MASTER_PORT "
                "and WORLD_SIZE, each with its own RANK in [0, WORLD_SIZE), and that the port "
                "is free on rank 0's host.") from e
        _install_exit_handling()
    RUNTIME.coordinator = coordinator


def register_devices(local_device: dict) -> None:
    """Record the device every rank computes on, per platform (``local_device``: platform ->
    index among this process's devices of that platform, or a callable of their count giving
    it); with several processes, exchanged through the coordinator's store."""
    mine = _local_devices(local_device)
    if not RUNTIME.multi_process:
        RUNTIME.device_ids = {p: [d.id] for p, d in mine.items()}
        return
    for platform, dev in mine.items():
        RUNTIME.kv_set(f"jtorch/device/{platform}/{RUNTIME.rank}", str(dev.id).encode())
    RUNTIME.device_ids = {
        platform: [int(RUNTIME.kv_get(f"jtorch/device/{platform}/{r}", RUNTIME.timeout_s))
                   for r in range(RUNTIME.world_size)]
        for platform in mine}


def _local_devices(choice: dict):
    out = {}
    for platform, index in choice.items():
        try:
            local = jax.local_devices(backend=platform)
        except RuntimeError:
            continue
        if callable(index):
            index = index(len(local))
        out[platform] = local[index]
    return out


# ------------------------------------------------------------ exit after a failure
def mark_failed():
    """This process saw a collective fail or an uncaught exception: at exit it skips JAX's
    shutdown barrier (which would wait for the other processes, then abort)."""
    RUNTIME.failed = True


def _exit_now():
    if RUNTIME.failed:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(1)


def _install_exit_handling():
    """Runs at exit before JAX's own clean-up (atexit runs handlers last-in first-out, and JAX
    registered its own at import)."""
    atexit.register(_exit_now)


def install_excepthook(rank: int):
    """As PyTorch's init_process_group: uncaught exceptions print with a ``[rank<r>]: `` prefix
    on every line; jtorch also marks the process failed (see :func:`mark_failed`)."""
    previous = sys.excepthook

    def excepthook(*args):
        mark_failed()
        old_stderr = sys.stderr
        sys.stderr = buf = io.StringIO()
        try:
            previous(*args)
        finally:
            sys.stderr = old_stderr
        text = "\n".join(f"[rank{rank}]: {s}" if s else "" for s in buf.getvalue().split("\n"))
        sys.stderr.write(text)
        sys.stderr.flush()

    sys.excepthook = excepthook
