"""Eager-mode benchmark: per-op host overhead and an MLP's forward+backward.

Runs jtorch eager, PyTorch eager and hand-written JAX (the same MLP step under one jax.jit)
in one process, interleaved, and writes docs/benchmarks.md.

    python bench/bench_eager.py            # writes docs/benchmarks.md
    python bench/bench_eager.py --quick    # fewer repeats, prints only
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np
import torch

import jtorch

torch.set_num_threads(os.cpu_count() or 1)


def timeit(fn, number, repeat):
    """Median, min and max seconds per call over ``repeat`` runs of ``number`` calls."""
    fn()
    fn()
    runs = []
    for _ in range(repeat):
        t = time.perf_counter()
        for _ in range(number):
            fn()
        runs.append((time.perf_counter() - t) / number)
    return statistics.median(runs), min(runs), max(runs)


def interleave(cases, number, repeat):
    """Time several implementations of one thing, alternating them repeat by repeat."""
    results = {name: [] for name in cases}
    for fn in cases.values():
        fn()
        fn()
    for _ in range(repeat):
        for name, fn in cases.items():
            t = time.perf_counter()
            for _ in range(number):
                fn()
            results[name].append((time.perf_counter() - t) / number)
    return {k: (statistics.median(v), min(v), max(v)) for k, v in results.items()}


# ------------------------------------------------------------------------ per-op overhead
def op_cases(size):
    rng = np.random.default_rng(0)
    a_np = rng.standard_normal(size).astype(np.float32)
    b_np = rng.standard_normal(size).astype(np.float32)
    ta, tb = torch.tensor(a_np), torch.tensor(b_np)
    ja, jb = jtorch.tensor(a_np), jtorch.tensor(b_np)
    tg = torch.tensor(a_np, requires_grad=True)
    jg = jtorch.tensor(a_np, requires_grad=True)
    xa, xb = jnp.asarray(a_np), jnp.asarray(b_np)
    jit_add = jax.jit(lambda x, y: x + y)
    return {
        "add": {"torch": lambda: ta + tb, "jtorch": lambda: ja + jb,
                "jax.jit": lambda: jit_add(xa, xb), "jnp (no jit)": lambda: xa + xb},
        "mul by Python float": {"torch": lambda: ta * 1.5, "jtorch": lambda: ja * 1.5},
        "relu": {"torch": lambda: ta.relu(), "jtorch": lambda: ja.relu()},
        "sum": {"torch": lambda: ta.sum(), "jtorch": lambda: ja.sum()},
        "mul, recording grad": {"torch": lambda: tg * tb, "jtorch": lambda: jg * jb},
        "mul + sum + backward": {
            "torch": lambda: (tg * tb).sum().backward(),
            "jtorch": lambda: (jg * jb).sum().backward()},
    }


# ------------------------------------------------------------------------ MLP
def init_mlp(sizes=(784, 256, 128, 10), seed=0):
    rng = np.random.default_rng(seed)
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        bound = 1 / np.sqrt(fan_in)
        params.append(rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32))
        params.append(rng.uniform(-bound, bound, (fan_out,)).astype(np.float32))
    return params


def mlp_loss(T, params, x, y):
    """The same code for torch and jtorch: 784-256-128-10 MLP and cross-entropy."""
    w1, b1, w2, b2, w3, b3 = params
    h = (x @ w1.t() + b1).relu()
    h = (h @ w2.t() + b2).relu()
    logits = h @ w3.t() + b3
    logp = logits.log_softmax(1)
    return -logp.gather(1, y[:, None]).mean()


def jax_loss(params, x, y):
    w1, b1, w2, b2, w3, b3 = params
    h = jax.nn.relu(x @ w1.T + b1)
    h = jax.nn.relu(h @ w2.T + b2)
    logits = h @ w3.T + b3
    logp = jax.nn.log_softmax(logits, axis=1)
    return -jnp.take_along_axis(logp, y[:, None], 1).mean()


def mlp_cases(batch):
    rng = np.random.default_rng(1)
    x_np = rng.standard_normal((batch, 784)).astype(np.float32)
    y_np = rng.integers(0, 10, batch).astype(np.int64)
    p_np = init_mlp()
    tp = [torch.tensor(p, requires_grad=True) for p in p_np]
    jp = [jtorch.tensor(p, requires_grad=True) for p in p_np]
    tx, ty = torch.tensor(x_np), torch.tensor(y_np)
    jx, jy = jtorch.tensor(x_np), jtorch.tensor(y_np)
    xp = [jnp.asarray(p) for p in p_np]
    xx, xy = jnp.asarray(x_np), jnp.asarray(y_np)
    grad_fn = jax.jit(jax.value_and_grad(jax_loss))

    def torch_step():
        for p in tp:
            p.grad = None
        mlp_loss(torch, tp, tx, ty).backward()

    def jtorch_step():
        for p in jp:
            p.grad = None
        mlp_loss(jtorch, jp, jx, jy).backward()
        jp[0].grad._value.block_until_ready()

    def jax_step():
        loss, g = grad_fn(xp, xx, xy)
        g[0].block_until_ready()

    return {"torch eager": torch_step, "jtorch eager": jtorch_step,
            "hand-written JAX (jax.jit)": jax_step}


def check_same_loss(batch=64):
    """The benchmarked code computes the same numbers in both libraries."""
    rng = np.random.default_rng(1)
    x_np = rng.standard_normal((batch, 784)).astype(np.float32)
    y_np = rng.integers(0, 10, batch).astype(np.int64)
    p_np = init_mlp()
    lt = mlp_loss(torch, [torch.tensor(p) for p in p_np], torch.tensor(x_np),
                  torch.tensor(y_np)).item()
    lj = mlp_loss(jtorch, [jtorch.tensor(p) for p in p_np], jtorch.tensor(x_np),
                  jtorch.tensor(y_np)).item()
    assert abs(lt - lj) < 1e-4, (lt, lj)
    return lt, lj


def fmt(sec):
    return f"{sec * 1e6:.1f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    repeat = 5 if args.quick else 15
    lines = []
    lt, lj = check_same_loss()
    print(f"same loss: torch {lt:.6f} jtorch {lj:.6f}")

    lines.append("## Eager per-op host overhead (microseconds per call, median of "
                 f"{repeat} interleaved runs; min-max in brackets)\n")
    lines.append("| op | tensor size | " + " | ".join(["torch", "jtorch", "jtorch / torch"])
                 + " | other |")
    lines.append("|---|---|---|---|---|---|")
    for size in (8, (64, 256)):
        for name, cases in op_cases(size).items():
            res = interleave(cases, 300 if not args.quick else 100, repeat)
            t, j = res["torch"], res["jtorch"]
            other = "; ".join(f"{k}: {fmt(v[0])}" for k, v in res.items()
                              if k not in ("torch", "jtorch"))
            lines.append(f"| {name} | {size} | {fmt(t[0])} [{fmt(t[1])}-{fmt(t[2])}] | "
                         f"{fmt(j[0])} [{fmt(j[1])}-{fmt(j[2])}] | {j[0] / t[0]:.1f}x | "
                         f"{other} |")
            print(lines[-1])

    lines.append("\n## MLP 784-256-128-10, forward + backward (cross-entropy), eager\n")
    lines.append("Milliseconds per step, median of interleaved runs (min-max). jtorch and "
                 "PyTorch run the same Python code; hand-written JAX is the same model as one "
                 "`jax.jit(jax.value_and_grad(...))` call, the floor for a JAX-backed "
                 "framework.\n")
    lines.append("| batch | torch eager | jtorch eager | hand-written JAX | jtorch / torch "
                 "| jtorch / JAX |")
    lines.append("|---|---|---|---|---|---|")
    for batch in (64,):
        res = interleave(mlp_cases(batch), 20 if not args.quick else 5, repeat)
        t, j, x = (res["torch eager"], res["jtorch eager"], res["hand-written JAX (jax.jit)"])

        def ms(v):
            return f"{v[0] * 1e3:.3f} ({v[1] * 1e3:.3f}-{v[2] * 1e3:.3f})"

        lines.append(f"| {batch} | {ms(t)} | {ms(j)} | {ms(x)} | {j[0] / t[0]:.2f}x | "
                     f"{j[0] / x[0]:.2f}x |")
        print(lines[-1])

    header = [
        "## Eager overhead (bench/bench_eager.py)\n",
        "Generated by `python bench/bench_eager.py`; all numbers in this section come from "
        "one run of that command.\n",
        f"- machine: {platform.machine()}, {os.cpu_count()} cores, {platform.system()} "
        f"{platform.release()}",
        f"- Python {sys.version.split()[0]}, jax {jax.__version__}, torch {torch.__version__}, "
        f"numpy {np.__version__}, jtorch {jtorch.__version__}",
        f"- date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n",
    ]
    if not args.quick:
        from _page import write_section

        write_section("eager", "\n".join(header + lines).replace("\n## ", "\n### "))


if __name__ == "__main__":
    main()
