"""The launcher (``python -m jtorch.distributed.run``) and ``jtorch.multiprocessing.spawn``
with real processes on 127.0.0.1."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time

import pytest
from data_helpers import mnist_dir
from distributed_launch import ROOT, TESTS, free_ports, run_workers, worker_env

pytestmark = pytest.mark.distributed


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _kill_group(pid):
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def test_launcher_env_and_failure_path(tmp_path):
    """Every worker gets torchrun's environment; when rank 1 raises, the launcher stops rank 0
    (SIGTERM, then SIGKILL after --stop-grace) and exits 1 with rank 1's traceback."""
    (port,) = free_ports(1)
    start = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "jtorch.distributed.run", "--nproc_per_node", "2",
         "--master_port", str(port), "--stop-grace", "2",
         os.path.join(TESTS, "distributed_launched.py"), str(tmp_path)],
        env=worker_env(cpu_devices=1), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, start_new_session=True)
    try:
        _, stderr = proc.communicate(timeout=90)
        alive = [_alive(json.loads((tmp_path / f"env{r}.json").read_text())["pid"])
                 for r in (0, 1)]
    finally:  # the launcher's group, and the workers (each in its own session)
        _kill_group(proc.pid)
        for r in (0, 1):
            env_file = tmp_path / f"env{r}.json"
            if env_file.exists():
                _kill_group(json.loads(env_file.read_text())["pid"])
    elapsed = time.monotonic() - start
    assert proc.returncode == 1, stderr
    assert "ValueError: boom from rank 1" in stderr
    assert elapsed < 60  # rank 0 would sleep 120 s if it were not stopped
    envs = [json.loads((tmp_path / f"env{r}.json").read_text()) for r in (0, 1)]
    assert alive == [False, False]
    for r, env in enumerate(envs):
        assert (env["RANK"], env["LOCAL_RANK"], env["GROUP_RANK"]) == (str(r), str(r), "0")
        assert (env["WORLD_SIZE"], env["LOCAL_WORLD_SIZE"]) == ("2", "2")
        assert (env["MASTER_ADDR"], env["MASTER_PORT"]) == ("127.0.0.1", str(port))
        assert env["TORCHELASTIC_RUN_ID"]


def _port_pair():
    """A free port whose successor is free too (torchrun's agent holds the port, jtorch's
    coordinator the next)."""
    for _ in range(20):
        (port,) = free_ports(1)
        if port + 1 < 2**16:
            try:
                with socket.socket() as s:
                    s.bind(("127.0.0.1", port + 1))
                return port
            except OSError:
                continue
    raise RuntimeError("no two consecutive free ports")


def test_script_runs_under_pytorchs_torchrun(tmp_path):
    """``python -m torch.distributed.run`` (real PyTorch's launcher) starts a script that
    imports jtorch as torch: init_process_group("gloo") from torchrun's environment and an
    all_reduce (values worked out by hand: arange(3) * 1 + arange(3) * 2). The accelerator
    queries before it (no accelerator here: False, 0, as PyTorch's CPU build answers) start
    JAX's backend, which init_process_group restarts for the multi-process runtime."""
    port = _port_pair()
    proc = subprocess.Popen(
        [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "2",
         "--master_addr", "127.0.0.1", "--master_port", str(port),
         os.path.join(TESTS, "distributed_torchrun.py"), str(tmp_path)],
        env=worker_env(cpu_devices=1), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=90)
    finally:   # torchrun's agent, and its workers (each in its own session)
        _kill_group(proc.pid)
        proc.wait()
        for r in (0, 1):
            pid_file = tmp_path / f"pid{r}"
            if pid_file.exists():
                _kill_group(int(pid_file.read_text()))
    assert proc.returncode == 0, out[-4000:]
    for r in (0, 1):
        got = json.loads((tmp_path / f"torchrun{r}.json").read_text())
        assert got == {"rank": r, "world_size": 2, "all_reduce": [0.0, 3.0, 6.0],
                       "accelerator": [False, 0], "agent_store": "True"}


def test_spawn_with_env_rendezvous(tmp_path):
    """jtorch.multiprocessing.spawn, init_process_group("gloo") from MASTER_ADDR/MASTER_PORT,
    an all_reduce (values worked out by hand: arange(3) * 1 + arange(3) * 2)."""
    (port,) = free_ports(1)
    codes, outputs = run_workers([("distributed_spawned.py", port, tmp_path)],
                                 worker_env(cpu_devices=1), 120, tmp_path)
    assert codes == [0], outputs[0][-4000:]
    for r in (0, 1):
        got = json.loads((tmp_path / f"spawned{r}.json").read_text())
        assert got == {"rank": r, "world_size": 2, "all_reduce": [0.0, 3.0, 6.0]}


def test_ddp_mnist_example_trains_through_the_launcher(tmp_path):
    """examples/ddp_mnist.py as the README runs it (the launcher, 2 processes), 100 steps on
    the real MNIST: it exits 0, only rank 0 shows a progress bar and prints, and the model
    reaches 90% test accuracy (91.8% here)."""
    mnist = mnist_dir()
    if mnist is None:
        pytest.skip("MNIST not found in ../shared/data/mnist or $JTORCH_MNIST")
    (port,) = free_ports(1)
    proc = subprocess.Popen(
        [sys.executable, "-m", "jtorch.distributed.run", "--nproc_per_node", "2",
         "--master_port", str(port), os.path.join(ROOT, "examples", "ddp_mnist.py"),
         "--data", str(mnist), "--max-steps", "100"],
        cwd=tmp_path, env=worker_env(cpu_devices=1), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        stdout, stderr = proc.communicate(timeout=180)
    finally:
        _kill_group(proc.pid)
    assert proc.returncode == 0, stderr[-3000:]
    (line,) = [ln for ln in stdout.splitlines() if "test accuracy" in ln]
    assert "(2 processes)" in line
    assert float(line.split("test accuracy")[1].split("%")[0]) >= 90.0, line
    starts = re.findall(r"epoch 1: +0%\|[^|]*\| 0/\d+ ", stderr)   # a bar's first frame
    assert len(starts) == 1, stderr[-3000:]   # rank 0's bar only
