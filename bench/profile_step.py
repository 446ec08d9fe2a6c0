"""Where the host time of one training step goes: a suite workload's step profiled in Python.

    python bench/profile_step.py --kind mlp --batch 64 --mode eager --device gpu
    python bench/profile_step.py --kind transformer --batch 32 --mode compiled --top 30
    python bench/profile_step.py --kind mlp --mode handjax          # the floor, same model

For one implementation of a bench_suite.py workload (``--mode`` eager, compiled or handjax),
prints:
- the first and second calls' wall time and the XLA programs compiled for them;
- steps/s with one sync at the end of a block (what the suite measures: host and device
  overlap), and with a sync after every step (host + device + the round trip);
- the time to enqueue a step (the host's share, measured without syncing);
- cProfile's top functions by own time over the steady state.
On a GPU, a step whose enqueue time is close to its async step time is host-bound: its
Python and dispatch, not its kernels, set the speed.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import logging
import pstats
import re
import statistics
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_suite  # noqa: E402
import handjax  # noqa: E402

import jtorch  # noqa: E402

_FINISHED = re.compile(r"Finished XLA compilation of .* in ([0-9.e-]+) sec")


class _CompileCounter(logging.Handler):
    """Counts the XLA compilations JAX logs with ``jax_log_compiles``, and their seconds."""

    def __init__(self):
        super().__init__()
        self.n, self.seconds = 0, 0.0

    def emit(self, record):
        m = _FINISHED.search(record.getMessage())
        if m:
            self.n += 1
            self.seconds += float(m.group(1))


def make(kind, batch, mode, device):
    xn, yn = bench_suite.data(kind, batch)
    if mode == "handjax":
        step, state = handjax.make(kind, batch)
        box = {"s": state}

        def run(x, y):
            box["s"], loss = step(box["s"], x, y)
            return loss

        return run, jnp.asarray(xn), jnp.asarray(yn), float
    lib_device = "cuda" if device == "gpu" else "cpu"
    jtorch.manual_seed(0)
    _, step = bench_suite.build(jtorch, kind, None, lib_device)
    f = jtorch.compile(step) if mode == "compiled" else step
    return (f, jtorch.tensor(xn, device=lib_device), jtorch.tensor(yn, device=lib_device),
            lambda o: o.item())


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--kind", default="mlp", choices=["mlp", "cnn", "transformer"])
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--mode", default="eager", choices=["eager", "compiled", "handjax"])
    p.add_argument("--device", default="cpu", choices=["cpu", "gpu"])
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--top", type=int, default=25)
    a = p.parse_args()

    counter = _CompileCounter()
    logging.getLogger("jax").addHandler(counter)
    jax.config.update("jax_log_compiles", True)
    logging.getLogger("jax").setLevel(logging.WARNING)
    for h in logging.getLogger().handlers:
        h.setLevel(logging.ERROR)   # (the records are counted, not printed)
    run, x, y, sync = make(a.kind, a.batch, a.mode, a.device)
    for i in (1, 2):
        n0, s0, t = counter.n, counter.seconds, time.perf_counter()
        sync(run(x, y))
        print(f"call {i}: {time.perf_counter() - t:.3f} s, {counter.n - n0} XLA compilations "
              f"taking {counter.seconds - s0:.3f} s")
    jax.config.update("jax_log_compiles", False)
    for _ in range(10):
        sync(run(x, y))

    n = max(1, a.steps // 5)
    times = {"async": [], "synced": [], "enqueue": []}
    for _ in range(5):   # interleaved blocks: medians of 5
        t = time.perf_counter()
        for _ in range(n):
            out = run(x, y)
        sync(out)
        times["async"].append((time.perf_counter() - t) / n)
        t = time.perf_counter()
        for _ in range(n):
            sync(run(x, y))
        times["synced"].append((time.perf_counter() - t) / n)
        enqueue = 0.0
        for _ in range(n):
            t = time.perf_counter()
            out = run(x, y)
            enqueue += time.perf_counter() - t
            sync(out)
        times["enqueue"].append(enqueue / n)
    asynchronous, synced, enqueue = (statistics.median(times[k])
                                     for k in ("async", "synced", "enqueue"))
    print(f"{a.kind} batch {a.batch} {a.mode} on {jax.devices()[0].device_kind}: "
          f"{1 / asynchronous:.1f} steps/s async ({asynchronous * 1e6:.0f} us), "
          f"{1 / synced:.1f} synced ({synced * 1e6:.0f} us), "
          f"enqueue {enqueue * 1e6:.0f} us")

    prof = cProfile.Profile()
    prof.enable()
    for _ in range(a.steps):
        out = run(x, y)
    sync(out)
    prof.disable()
    s = io.StringIO()
    pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(a.top)
    print(s.getvalue())


if __name__ == "__main__":
    main()
