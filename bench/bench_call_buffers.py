"""What one jitted call costs per array it takes and gives back, on the default JAX device.

    python bench/bench_call_buffers.py

A jitted step donates n small float32 arrays (state) and returns n new ones, as a training
step does with its parameters and optimizer state; printed is the host time per call for n =
5 to 80 (median of 7 blocks). The slope is what each state tensor adds to every compiled step
(docs/benchmarks.md, "Where a GPU step's time goes").
"""

from __future__ import annotations

import statistics
import time

import jax
import jax.numpy as jnp


def per_call(n, calls=500):
    f = jax.jit(lambda xs: [x + 1 for x in xs], donate_argnums=0)
    xs = [jnp.ones(4, jnp.float32) for _ in range(n)]
    for _ in range(20):
        xs = f(xs)
    times = []
    for _ in range(7):
        t = time.perf_counter()
        for _ in range(calls):
            xs = f(xs)
        jax.block_until_ready(xs)
        times.append((time.perf_counter() - t) / calls)
    return statistics.median(times)


def main():
    print(f"jax {jax.__version__} on {jax.devices()[0].device_kind}")
    rows = [(n, per_call(n)) for n in (5, 10, 20, 40, 80)]
    for n, t in rows:
        print(f"{n:3d} arrays in and out: {t * 1e6:7.1f} us per call")
    (n0, t0), (n1, t1) = rows[0], rows[-1]
    print(f"slope: {(t1 - t0) / (n1 - n0) * 1e6:.2f} us per array (in and out)")


if __name__ == "__main__":
    main()
