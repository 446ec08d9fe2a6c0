"""First calls of a compiled training step: wall time of calls 1-3 and the compile count,
against hand-written JAX's first steps, each in a fresh process.

    python bench/bench_compile_first_call.py            # mlp64, cnn, transformer; 3 runs each
    python bench/bench_compile_first_call.py --eager    # the same steps run eagerly

Each run is a fresh process (JAX's caches are per process, so nothing is warm: issue 11's
"first call at most 1.0x hand-written JAX" in the setting a user meets first); the jtorch and
hand-written JAX processes alternate, and reported are medians of ``--repeats`` runs. The
workloads are bench/bench_suite.py's (same model, optimizer and batch); the hand-written JAX
step is bench/handjax.py's, timed from the same point (model built, data on the device).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def one(kind, eager):
    sys.path.insert(0, str(ROOT / "bench"))
    import bench_suite  # noqa: E402  (a fresh process per measurement)

    import jtorch

    spec = bench_suite.WORKLOADS[kind]
    if eager == "handjax":
        return one_handjax(bench_suite, spec)
    jtorch.manual_seed(0)
    _, step = bench_suite.build(jtorch, spec["kind"])
    x, y = bench_suite.data(spec["kind"], spec["batch"])
    x, y = jtorch.tensor(x), jtorch.tensor(y)
    f = step if eager else jtorch.compile(step)
    jtorch.compiler.reset()
    times = []
    for _ in range(3):
        t = time.perf_counter()
        float(f(x, y))  # reading the loss waits for the step
        times.append(time.perf_counter() - t)
    return {"times": times, "compiles": jtorch.compiler.counters()["compiles"]}


def one_handjax(bench_suite, spec):
    import handjax
    import jax.numpy as jnp

    step, state = handjax.make(spec["kind"], spec["batch"])
    x, y = (jnp.asarray(a) for a in bench_suite.data(spec["kind"], spec["batch"]))
    times = []
    for _ in range(3):
        t = time.perf_counter()
        state, loss = step(state, x, y)
        float(loss)
        times.append(time.perf_counter() - t)
    return {"times": times, "compiles": step._cache_size()}


def _run(kind, mode):
    cmd = [sys.executable, __file__, "--child", kind, "--mode", mode]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.splitlines()[-1])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--eager", action="store_true")
    p.add_argument("--only", default=None)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--child", default=None)
    p.add_argument("--mode", default="compiled", choices=["compiled", "eager", "handjax"])
    a = p.parse_args()
    if a.child:
        mode = {"compiled": False, "eager": True, "handjax": "handjax"}[a.mode]
        print(json.dumps(one(a.child, mode)))
        return
    mode = "eager" if a.eager else "compiled"
    for kind in [a.only] if a.only else ["mlp64", "cnn", "transformer"]:
        runs, hand = [], []
        for _ in range(a.repeats):   # alternating, so a slow spell of the machine hits both
            runs.append(_run(kind, mode))
            hand.append(_run(kind, "handjax"))
        med = [statistics.median(r["times"][i] for r in runs) for i in range(3)]
        first_hand = statistics.median(r["times"][0] for r in hand)
        print(f"{kind:12s} jtorch {mode} calls 1/2/3: {med[0]:.2f}s {med[1]:.2f}s "
              f"{med[2]:.3f}s  compiles over 3 calls: {[r['compiles'] for r in runs]}; "
              f"hand-written JAX first call {first_hand:.2f}s "
              f"(jtorch / hand JAX {med[0] / first_hand:.2f}x)", flush=True)


if __name__ == "__main__":
    main()
