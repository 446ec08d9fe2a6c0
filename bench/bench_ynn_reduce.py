"""XLA:CPU's YNNPACK reduce fusion on or off: the suite's hand-written JAX steps and eager
reduction kernels compiled both ways, interleaved in one process.

    python bench/bench_ynn_reduce.py            # prints a markdown table, writes docs/benchmarks.md
    python bench/bench_ynn_reduce.py --no-write

jtorch compiles its programs with ``xla_cpu_experimental_ynn_fusion_type`` naming the YNNPACK
fusions it keeps (jtorch/_core/xla_options.py). With ``LIBRARY_FUSION_TYPE_REDUCE`` among them,
jaxlib 0.10.2 crashes (a segmentation fault) compiling some reductions of broadcast products
(``jnp.sum(g * b, axis=0)`` with g of shape (2,2,9,4,4,3,4) and b of (2,2,9,1,1,3,4)); this
measures what leaving it out costs. Each row runs the same function compiled with the two
option sets, alternating blocks; the ratio is the median time with REDUCE over the median time
without (above 1: leaving REDUCE out is faster).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_enable_x64", True)   # as under jtorch (handjax's dropout bits are uint64)
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import handjax  # noqa: E402
from _page import write_section  # noqa: E402

OPTION = "xla_cpu_experimental_ynn_fusion_type"
WITH = {OPTION: "LIBRARY_FUSION_TYPE_INDIVIDUAL_DOT,LIBRARY_FUSION_TYPE_REDUCE"}
WITHOUT = {OPTION: "LIBRARY_FUSION_TYPE_INDIVIDUAL_DOT"}
KERNEL = {"xla_cpu_use_fusion_emitters": False}   # eager op kernels' extra option


def _steps():
    rng = np.random.default_rng(0)
    data = {
        "mlp64": (rng.standard_normal((64, 784), np.float32), rng.integers(0, 10, 64)),
        "mlp512": (rng.standard_normal((512, 784), np.float32), rng.integers(0, 10, 512)),
        "cnn": (rng.standard_normal((64, 1, 28, 28), np.float32), rng.integers(0, 10, 64)),
        "transformer": (rng.integers(0, 256, (32, 64)), rng.integers(0, 256, (32, 64))),
    }
    for name, (x, y) in data.items():
        kind = name.rstrip("0123456789")
        step, state = handjax.make(kind, x.shape[0])
        fun = step.__wrapped__
        runs = []
        for opts in (WITH, WITHOUT):
            jitted = jax.jit(fun, donate_argnums=(0,), compiler_options=opts)
            box = [jax.tree.map(jnp.copy, state)]

            def run(n, jitted=jitted, box=box, x=jnp.asarray(x), y=jnp.asarray(y)):
                for _ in range(n):
                    box[0], loss = jitted(box[0], x, y)
                loss.block_until_ready()
            runs.append(run)
        yield f"{name} training step (hand-written JAX)", runs, 20


def _kernels():
    rng = np.random.default_rng(1)
    cases = [("sum, (64, 256) over dim 0", (64, 256), lambda a: jnp.sum(a, axis=0)),
             ("sum, (64, 256) over dim 1", (64, 256), lambda a: jnp.sum(a, axis=1)),
             ("mean, (512, 1024) all", (512, 1024), jnp.mean),
             ("amax, (512, 1024) over dim 1", (512, 1024), lambda a: jnp.max(a, axis=1)),
             ("sum of a broadcast product, (32, 64, 64) x (32, 1, 64) over dim 0",
              (32, 64, 64), lambda a: jnp.sum(a * a[:, :1], axis=0)),
             ("softmax, (512, 1024) over dim 1", (512, 1024),
              lambda a: jax.nn.softmax(a, axis=1))]
    for name, shape, f in cases:
        a = jnp.asarray(rng.standard_normal(shape, np.float32))
        runs = []
        for opts in (WITH, WITHOUT):
            jitted = jax.jit(f, compiler_options={**opts, **KERNEL})

            def run(n, jitted=jitted, a=a):
                for _ in range(n):
                    out = jitted(a)
                out.block_until_ready()
            runs.append(run)
        yield f"{name} (eager kernel)", runs, 200


def machine_line():
    return (f"{platform.machine()}, {os.cpu_count()} cores, CPU, jax {jax.__version__}, "
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--repeats", type=int, default=9)
    a = ap.parse_args()
    rows = []
    for name, runs, block in [*_steps(), *_kernels()]:
        times = [[], []]
        for run in runs:
            run(3)   # compile and warm up
        for _ in range(a.repeats):
            for i, run in enumerate(runs):
                t0 = time.perf_counter()
                run(block)
                times[i].append((time.perf_counter() - t0) / block)
        with_, without = (statistics.median(t) for t in times)
        rows.append(f"| {name} | {1e3 * with_:.3f} | {1e3 * without:.3f} | "
                    f"{with_ / without:.2f}x |")
        print(rows[-1], flush=True)
    text = "\n".join([
        "## YNNPACK's reduce fusion (bench/bench_ynn_reduce.py)", "",
        f"`python bench/bench_ynn_reduce.py` on {machine_line()}. Median ms per call, the two "
        "option sets alternating in blocks; kernels also with `xla_cpu_use_fusion_emitters` "
        "off, as jtorch's op kernels are.", "",
        "| program | with REDUCE (ms) | without (ms) | with / without |",
        "|---|---|---|---|", *rows])
    print(text)
    if not a.no_write:
        write_section("ynn-reduce", text)


if __name__ == "__main__":
    main()
