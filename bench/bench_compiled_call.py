"""The host cost of one compiled training step: a tiny model whose step does almost no
arithmetic, so the time per call is what calling the program costs.

    python bench/bench_compiled_call.py            # writes docs/benchmarks.md
    python bench/bench_compiled_call.py --quick    # fewer repeats, prints only

The model is three Linear(4, 4) layers with ReLUs, Adam(1e-3), cross-entropy on a batch of 2.
Three implementations, in one process, interleaved:
- jtorch.compile of the whole step (its guards, the state's arrays in and out, the optimizer's
  hyperparameters, the outputs rebuilt as tensors);
- the same call made by hand on the compiled program: the state's arrays passed straight to
  the jitted function jtorch built, with its outputs bound back. What jtorch.compile adds
  around the program is the difference with the first row;
- hand-written JAX + optax, the whole step under one jax.jit, parameters and optimizer state
  as a pytree: the floor.
On a GPU this host cost is what separates jtorch compiled from hand-written JAX when a step
does under a millisecond of work (docs/benchmarks.md, the H200 section).
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import optax

import jtorch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _page import write_section  # noqa: E402


def jtorch_step():
    jtorch.manual_seed(0)
    nn = jtorch.nn
    model = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 4), nn.ReLU(),
                          nn.Linear(4, 4))
    opt = jtorch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()

    def step(x, y):
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss

    x, y = jtorch.randn(2, 4), jtorch.tensor([0, 1])
    f = jtorch.compile(step)
    for _ in range(3):
        f(x, y)
    return f, x, y


def program_call(f, x, y):
    """The jitted program of ``f``'s steady state, called with its arrays by hand."""
    e = list(f._cache.values())[-1]
    st = e.st
    box = [[t._array for t in st.tensors], [p._grad._value for p in e.grads_in]]
    hyper, inputs = st.hyper_arrays(e.device), [x._value, y._value]

    def call():
        outs, box[0], box[1] = e.jitted(box[0], box[1], hyper, inputs)
        return outs[0]

    def take():   # the state's current arrays (the program donates the ones it is given)
        box[:] = [[t._array for t in st.tensors], [p._grad._value for p in e.grads_in]]

    def put_back():   # the state tensors take the arrays the hand calls left
        for t, a in zip(st.tensors, box[0]):
            t._array = a
        for p, g in zip(e.grads_in, box[1]):
            p._grad._array = g

    return call, take, put_back


def handjax_step():
    rng = np.random.default_rng(0)
    params = [(jnp.asarray(rng.standard_normal((4, 4)).astype(np.float32)),
               jnp.zeros(4, jnp.float32)) for _ in range(3)]
    tx = optax.adam(1e-3)
    box = [params, tx.init(params)]

    @jax.jit
    def step(params, opt_state, x, y):
        def loss_fn(p):
            h = x
            for i, (w, b) in enumerate(p):
                h = h @ w.T + b
                if i < 2:
                    h = jax.nn.relu(h)
            return optax.softmax_cross_entropy_with_integer_labels(h, y).mean()

        loss, grads = jax.value_and_grad(loss_fn)(params)
        updates, opt_state = tx.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, loss

    x = jnp.asarray(rng.standard_normal((2, 4)).astype(np.float32))
    y = jnp.asarray([0, 1])

    def call():
        box[0], box[1], loss = step(box[0], box[1], x, y)
        return loss

    return call


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    number, repeat = (500, 5) if a.quick else (3000, 15)
    f, x, y = jtorch_step()
    by_hand, take, put_back = program_call(f, x, y)
    rows = {"jtorch.compile call": lambda: f(x, y)._value,
            "its program, called by hand": by_hand,
            "hand-written JAX (one jax.jit)": handjax_step()}
    times = {name: [] for name in rows}
    around = {"its program, called by hand": (take, put_back)}
    for _ in range(repeat + 1):   # (the first round warms up and is dropped)
        for name, fn in rows.items():
            before, after = around.get(name, (None, None))
            if before:
                before()
            t = time.perf_counter()
            for _ in range(number):
                out = fn()
            jax.block_until_ready(out)
            times[name].append((time.perf_counter() - t) / number * 1e6)
            if after:
                after()
    times = {name: ts[1:] for name, ts in times.items()}
    floor = statistics.median(times["hand-written JAX (one jax.jit)"])
    lines = ["## Host cost of a compiled call (bench/bench_compiled_call.py)", "",
             f"`python bench/bench_compiled_call.py` on {platform.machine()}, "
             f"{jax.devices()[0].device_kind}, jax {jax.__version__}, "
             f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. A tiny model (three "
             "Linear(4, 4), Adam, batch 2): microseconds per call, median of "
             f"{repeat} interleaved runs of {number} calls [min-max].", "",
             "| call | us per call | vs hand-written JAX |", "|---|---|---|"]
    for name, ts in times.items():
        med = statistics.median(ts)
        lines.append(f"| {name} | {med:.1f} [{min(ts):.1f}-{max(ts):.1f}] | "
                     f"{med / floor:.2f}x |")
    text = "\n".join(lines)
    print(text)
    if not a.quick:
        write_section("compiled-call", text)


if __name__ == "__main__":
    main()
