"""Starting the worker processes of the distributed tests: free ports on 127.0.0.1, one
process group (session) per worker so that a ``finally`` can kill everything it started, an
outer timeout, and the workers' output kept for the failure message."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

TESTS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(TESTS)


def free_ports(n):
    """``n`` distinct free TCP ports on 127.0.0.1 (held open together while picking)."""
    socks = []
    try:
        for _ in range(n):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def worker_env(cpu_devices):
    """The environment of a worker: this checkout's jtorch, CPU only, ``cpu_devices`` JAX CPU
    devices, one thread per library (the machine has 2 cores)."""
    env = dict(os.environ)
    env.update(PYTHONPATH=ROOT + os.pathsep + env.get("PYTHONPATH", ""), JAX_PLATFORMS="cpu",
               XLA_FLAGS=f"--xla_force_host_platform_device_count={cpu_devices}",
               OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1")
    for var in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT",
                "JAX_NUM_CPU_DEVICES"):
        env.pop(var, None)
    return env


def run_workers(argvs, env, timeout, log_dir):
    """Runs ``python tests/<argv...>`` for each argv at once; returns their exit codes and
    their output (stdout and stderr together). Every process group started here is killed
    before returning, finished or not."""
    procs, logs = [], []
    try:
        for i, argv in enumerate(argvs):
            log = open(os.path.join(log_dir, f"worker{i}.log"), "w+")
            logs.append(log)
            procs.append(subprocess.Popen([sys.executable, os.path.join(TESTS, argv[0]),
                                           *map(str, argv[1:])], env=env, stdout=log,
                                          stderr=subprocess.STDOUT, start_new_session=True))
        codes, deadline = [], time.monotonic() + timeout
        for p in procs:
            try:
                codes.append(p.wait(timeout=max(0.1, deadline - time.monotonic())))
            except subprocess.TimeoutExpired:
                codes.append("timeout")
        outputs = []
        for log in logs:
            log.seek(0)
            outputs.append(log.read())
        return codes, outputs
    finally:
        for p in procs:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait()
        for log in logs:
            log.close()
