"""Data-parallel cost on this machine: time per training step of the MNIST MLP (784-256-128-10,
Adam, cross-entropy, random data) in three layouts, eager and under jtorch.compile:

- one process, batch 128;
- DistributedDataParallel over 2 processes on 127.0.0.1 (gloo), batch 64 per rank;
- one process over 2 CPU devices (DataParallel: the batch of 128 split on a mesh).

Each runs 20 warm-up steps, then the median of 5 blocks of 20 steps.

    python bench/bench_ddp_step.py

Prints a Markdown table (paste it into docs/benchmarks.md).
"""

from __future__ import annotations

import json
import os
import socket
import statistics
import subprocess
import sys
import time

import jtorch as torch
import jtorch.distributed as dist

STEPS, BLOCKS, WARMUP = 20, 5, 20


def _model():
    nn = torch.nn
    return nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128),
                         nn.ReLU(), nn.Linear(128, 10))


def _measure(layout, compiled):
    """Runs in a worker: the per-step milliseconds of ``layout``."""
    if layout == "ddp":
        dist.init_process_group("gloo")
    torch.manual_seed(0)
    model = _model()
    batch = 64 if layout == "ddp" else 128
    if layout == "ddp":
        model = torch.nn.parallel.DistributedDataParallel(model)
    elif layout == "mesh":
        model = torch.nn.DataParallel(model)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = torch.nn.CrossEntropyLoss()
    x, y = torch.randn(batch, 1, 28, 28), torch.randint(0, 10, (batch,))

    def step(x, y):
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss

    if compiled:
        step = torch.compile(step, fullgraph=True)
    for _ in range(WARMUP):
        step(x, y).item()
    times = []
    for _ in range(BLOCKS):
        start = time.perf_counter()
        for _ in range(STEPS):
            loss = step(x, y)
        loss.item()
        times.append((time.perf_counter() - start) / STEPS * 1000)
    return statistics.median(times)


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run(layout, compiled):
    env = dict(os.environ, OMP_NUM_THREADS="1", JAX_PLATFORMS="cpu",
               XLA_FLAGS="--xla_force_host_platform_device_count="
               + ("2" if layout == "mesh" else "1"))
    argv = [sys.executable, __file__, "--worker", layout, str(int(compiled))]
    if layout != "ddp":
        out = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
        return json.loads(out.stdout.strip().splitlines()[-1])
    port = _free_port()
    procs = [subprocess.Popen(argv, env=dict(env, RANK=str(r), WORLD_SIZE="2",
                                             MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port)),
                              stdout=subprocess.PIPE, text=True) for r in range(2)]
    outs = [p.communicate(timeout=600)[0] for p in procs]
    return max(json.loads(o.strip().splitlines()[-1]) for o in outs)


def main():
    if sys.argv[1:2] == ["--worker"]:
        print(json.dumps(_measure(sys.argv[2], sys.argv[3] == "1")))
        return
    names = {"one": "1 process, batch 128", "ddp": "DDP, 2 processes x batch 64",
             "mesh": "DataParallel, 1 process x 2 CPU devices, batch 128"}
    print("| layout | eager ms/step | compiled ms/step |\n| --- | --- | --- |")
    for layout, name in names.items():
        eager, comp = _run(layout, False), _run(layout, True)
        print(f"| {name} | {eager:.2f} | {comp:.2f} |", flush=True)


if __name__ == "__main__":
    main()
