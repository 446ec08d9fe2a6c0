"""The worker manager behind ``jtorchrun`` / ``python -m jtorch.distributed.run``.

``launch_agent(config, entrypoint, args)`` starts ``config.nproc_per_node`` worker processes
on this node with torchrun's environment (``RANK``, ``LOCAL_RANK``, ``WORLD_SIZE``,
``LOCAL_WORLD_SIZE``, ``GROUP_RANK``, ``ROLE_RANK``, ``MASTER_ADDR``, ``MASTER_PORT``,
``TORCHELASTIC_*``), watches them, and when one fails stops the others (SIGTERM to each
worker's process group, SIGKILL after ``config.stop_grace`` seconds), restarts them up to
``max_restarts`` times, and finally raises :class:`ChildFailedError` naming the first failure
with its traceback (from the worker's error file if it used ``@record``, else the end of its
stderr). The workers' ``init_process_group`` maps that environment onto
``jax.distributed.initialize`` (jtorch/distributed/rendezvous.py).
"""

from __future__ import annotations

import collections
import dataclasses
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid

from ..elastic.multiprocessing.errors import ChildFailedError

__all__ = ["LaunchConfig", "elastic_launch", "launch_agent"]

_TAIL_LINES = 200


@dataclasses.dataclass
class LaunchConfig:
    """What to launch: ``nnodes`` nodes of ``nproc_per_node`` workers; this is node
    ``node_rank``; rank 0 reaches the others at ``master_addr:master_port``."""

    min_nodes: int = 1
    max_nodes: int = 1
    nproc_per_node: int = 1
    node_rank: int = 0
    master_addr: str = "127.0.0.1"
    master_port: int = 29500
    run_id: str = ""
    role: str = "default"
    max_restarts: int = 0
    monitor_interval: float = 0.1
    stop_grace: float = 30.0
    log_dir: str | None = None
    tee_stderr: bool = True
    local_ranks_filter: tuple = ()


class _Worker:
    """One worker process, its stderr forwarded to ours with its last lines kept."""

    def __init__(self, local_rank, rank, cmd, env, show):
        self.local_rank, self.rank = local_rank, rank
        self.error_file = env["TORCHELASTIC_ERROR_FILE"]
        self.tail = collections.deque(maxlen=_TAIL_LINES)
        self.proc = subprocess.Popen(cmd, env=env, stderr=subprocess.PIPE,
                                     stdout=None if show else subprocess.DEVNULL,
                                     start_new_session=True)
        self.started = time.time()
        self._reader = threading.Thread(target=self._forward, args=(show,), daemon=True)
        self._reader.start()

    def _forward(self, show):
        for raw in iter(self.proc.stderr.readline, b""):
            line = raw.decode(errors="replace")
            self.tail.append(line)
            if show:
                sys.stderr.write(line)
                sys.stderr.flush()

    def signal(self, sig):
        try:
            os.killpg(self.proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    def finish(self):
        self._reader.join(timeout=5)

    def traceback(self):
        """The worker's traceback: its ``@record`` error file, else the last traceback in its
        stderr, else its last stderr lines."""
        try:
            with open(self.error_file) as f:
                data = json.load(f)
            return data["message"]["extraInfo"]["py_callstack"]
        except (OSError, ValueError, KeyError, TypeError):
            pass
        lines = list(self.tail)
        starts = [i for i, s in enumerate(lines) if "Traceback (most recent call last)" in s]
        if starts:
            return "".join(lines[starts[-1]:]).rstrip()
        return "".join(lines[-20:]).rstrip() or "<N/A>"


def _command(entrypoint, args):
    if isinstance(entrypoint, (list, tuple)):
        return list(entrypoint) + list(args)
    return [entrypoint] + list(args)


def _entrypoint_name(cmd):
    """What torchrun names a run in its failure summary: the script (or module) of a Python
    command, else the program."""
    if os.path.basename(cmd[0]).startswith("python") or cmd[0] == sys.executable:
        rest = [a for a in cmd[1:] if not a.startswith("-")]
        return rest[0] if rest else cmd[0]
    return cmd[0]


def _worker_env(config, local_rank, attempt, error_dir):
    nproc = config.nproc_per_node
    world_size = config.max_nodes * nproc
    rank = config.node_rank * nproc + local_rank
    env = dict(os.environ)
    env.update({
        "RANK": str(rank), "LOCAL_RANK": str(local_rank), "WORLD_SIZE": str(world_size),
        "LOCAL_WORLD_SIZE": str(nproc), "GROUP_RANK": str(config.node_rank),
        "GROUP_WORLD_SIZE": str(config.max_nodes), "ROLE_RANK": str(rank),
        "ROLE_WORLD_SIZE": str(world_size), "ROLE_NAME": config.role,
        "MASTER_ADDR": config.master_addr, "MASTER_PORT": str(config.master_port),
        "TORCHELASTIC_RESTART_COUNT": str(attempt),
        "TORCHELASTIC_MAX_RESTARTS": str(config.max_restarts),
        "TORCHELASTIC_RUN_ID": config.run_id, "TORCHELASTIC_USE_AGENT_STORE": "False",
        "TORCHELASTIC_ERROR_FILE": os.path.join(error_dir, f"error_{local_rank}.json"),
        "PYTHONUNBUFFERED": "1",
    })
    if "OMP_NUM_THREADS" not in os.environ and nproc > 1:
        env["OMP_NUM_THREADS"] = "1"
    return env, rank


def _run_once(config, entrypoint, args, attempt):
    """Runs the workers once; returns None on success, else the first failed worker."""
    error_dir = tempfile.mkdtemp(prefix="jtorchrun_")
    workers = []
    for local_rank in range(config.nproc_per_node):
        env, rank = _worker_env(config, local_rank, attempt, error_dir)
        show = not config.local_ranks_filter or local_rank in config.local_ranks_filter
        workers.append(_Worker(local_rank, rank, _command(entrypoint, args), env, show))
    failed = None
    try:
        while True:
            running = False
            for w in workers:
                code = w.proc.poll()
                if code is None:
                    running = True
                elif code != 0 and failed is None:
                    failed = w
            if failed is not None or not running:
                break
            time.sleep(config.monitor_interval)
    except KeyboardInterrupt:
        _stop(workers, config.stop_grace)
        raise
    if failed is not None:
        _stop(workers, config.stop_grace)
    for w in workers:
        w.finish()
    return failed


def _stop(workers, grace):
    """SIGTERM to every live worker's process group, SIGKILL to those still alive after
    ``grace`` seconds."""
    for w in workers:
        if w.proc.poll() is None:
            w.signal(signal.SIGTERM)
    deadline = time.time() + grace
    for w in workers:
        while w.proc.poll() is None and time.time() < deadline:
            time.sleep(0.05)
        if w.proc.poll() is None:
            w.signal(signal.SIGKILL)
            w.proc.wait()


def launch_agent(config: LaunchConfig, entrypoint, args) -> dict:
    """Runs the workers (restarting them up to ``max_restarts`` times after a failure);
    returns ``{local_rank: 0}`` on success, raises :class:`ChildFailedError` otherwise."""
    if not config.run_id:
        config.run_id = str(uuid.uuid4())
    failed = None
    for attempt in range(config.max_restarts + 1):
        failed = _run_once(config, entrypoint, args, attempt)
        if failed is None:
            return dict.fromkeys(range(config.nproc_per_node), 0)
    name = _entrypoint_name(_command(entrypoint, args))
    code = failed.proc.returncode
    raise ChildFailedError(name, {failed.rank: {
        "time": time.strftime("%Y-%m-%d_%H:%M:%S", time.localtime()),
        "host": socket.gethostname(), "rank": failed.rank, "local_rank": failed.local_rank,
        "exitcode": code, "pid": failed.proc.pid,
        "error_file": failed.error_file if os.path.exists(failed.error_file) else "<N/A>",
        "traceback": failed.traceback() if code > 0 else
        f"Signal {-code} ({signal.Signals(-code).name}) received by PID {failed.proc.pid}"}})


class elastic_launch:  # noqa: N801 - PyTorch's name
    """``elastic_launch(config, entrypoint)(*args)``: :func:`launch_agent` as a callable."""

    def __init__(self, config: LaunchConfig, entrypoint):
        self._config, self._entrypoint = config, entrypoint

    def __call__(self, *args):
        return launch_agent(self._config, self._entrypoint, list(args))
