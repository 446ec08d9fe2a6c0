"""First calls of a compiled training step: wall time of calls 1-3 and the compile count.

    python bench/bench_compile_first_call.py            # mlp64, cnn, transformer; 3 runs each
    python bench/bench_compile_first_call.py --eager    # the same steps run eagerly

Each run is a fresh process (JAX's caches are per process); reported are medians of 3 runs.
The workloads are bench/bench_suite.py's (same model, optimizer and batch).
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


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--eager", action="store_true")
    p.add_argument("--only", default=None)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--child", default=None)
    a = p.parse_args()
    if a.child:
        print(json.dumps(one(a.child, a.eager)))
        return
    for kind in [a.only] if a.only else ["mlp64", "cnn", "transformer"]:
        runs = []
        for _ in range(a.repeats):
            cmd = [sys.executable, __file__, "--child", kind] + (["--eager"] if a.eager else [])
            runs.append(json.loads(subprocess.run(cmd, check=True, capture_output=True,
                                                  text=True).stdout.splitlines()[-1]))
        med = [statistics.median(r["times"][i] for r in runs) for i in range(3)]
        print(f"{kind:12s} calls 1/2/3: {med[0]:.2f}s {med[1]:.2f}s {med[2]:.3f}s  "
              f"compiles over 3 calls: {[r['compiles'] for r in runs]}")


if __name__ == "__main__":
    main()
