"""Training-step benchmark suite: jtorch eager and compiled against PyTorch and hand-written JAX.

    python bench/bench_suite.py                  # all workloads, writes docs/benchmarks.md
    python bench/bench_suite.py --quick          # fewer repeats
    python bench/bench_suite.py --only mlp64     # one workload
    python bench/bench_suite.py --device gpu         # on a GPU (jtorch "cuda", JAX's GPU)
    python bench/bench_suite.py --device gpu --amp   # also every row under bf16 autocast
    python bench/bench_suite.py --device gpu --amp-only  # the bf16 rows alone

Workloads (the same model, optimizer and batch in every implementation):
  mlp64 / mlp512  784-256-128-10 MLP, Dropout(0.2), Adam(1e-3), batch 64 / 512
  cnn             Conv(1->32,3) ReLU MaxPool2 Conv(32->64,3) ReLU MaxPool2 Linear(1600->128)
                  ReLU Linear(128->10), SGD(lr 0.01, momentum 0.9), batch 64
  transformer     2-layer TransformerEncoder LM, d_model 128, 4 heads, ff 512, dropout 0.1,
                  sequence 64, batch 32, vocabulary 256, causal mask, AdamW(1e-3)
Implementations: jtorch eager, jtorch compiled (jtorch.compile of the whole step), PyTorch
eager, torch.compile, and hand-written JAX + optax with the whole step under one jax.jit
(the floor a JAX-backed framework can reach); with ``--flax`` also the transformer in flax nnx
under nnx.jit (bench/flax_transformer.py), the reference for that floor. They are
interleaved: each repeat runs a block of steps of every implementation in turn; reported are
medians (min-max) of per-step times.
With ``--amp`` each implementation also runs under bf16 autocast (``torch.autocast`` around the
forward and the loss, PyTorch's and jtorch's own policy; hand-written JAX casts the inputs of
its matmuls and convolutions to bfloat16 and their results back, as that policy does), in rows
marked "bf16". With ``--device gpu`` the models and data live on the first GPU (jtorch's and
PyTorch's "cuda", JAX's default device); PyTorch rows fail, reported in the table, where the
installed PyTorch has no CUDA.
First-call time is the wall time of the first step (tracing and compiling included).
Peak memory is XLA's own accounting of the compiled step (arguments + temporaries) for the
JAX-based rows; eager rows have no such number on the CPU.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
import warnings
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import optax
import torch

import jtorch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import handjax  # noqa: E402

torch.set_num_threads(os.cpu_count() or 1)
warnings.filterwarnings("ignore")

WORKLOADS = {
    "mlp64": {"kind": "mlp", "batch": 64},
    "mlp512": {"kind": "mlp", "batch": 512},
    "cnn": {"kind": "cnn", "batch": 64},
    "transformer": {"kind": "transformer", "batch": 32},
}


# ------------------------------------------------------------------ the same model, T = lib
def build(T, kind, width=None, device="cpu", amp=False):
    """``width``: the MLP's first hidden width W (784-W-W/2-10; default 256) or the
    transformer's d_model d (ff 4d, 4 heads; default 128); ``device``: where the model lives
    ("cpu" or "cuda"); ``amp``: forward and loss under bf16 autocast."""
    nn = T.nn
    if kind == "mlp":
        w = width or 256
        model = nn.Sequential(nn.Flatten(), nn.Linear(784, w), nn.ReLU(), nn.Dropout(0.2),
                              nn.Linear(w, w // 2), nn.ReLU(), nn.Dropout(0.2),
                              nn.Linear(w // 2, 10))
    elif kind == "cnn":
        model = nn.Sequential(nn.Conv2d(1, 32, 3), nn.ReLU(), nn.MaxPool2d(2),
                              nn.Conv2d(32, 64, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                              nn.Linear(1600, 128), nn.ReLU(), nn.Linear(128, 10))
    else:
        d = width or 128

        class LM(nn.Module):
            def __init__(self):
                super().__init__()
                self.emb = nn.Embedding(256, d)
                self.pos = nn.Parameter(T.zeros(64, d))
                layer = nn.TransformerEncoderLayer(d, 4, 4 * d, dropout=0.1, batch_first=True)
                self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
                self.head = nn.Linear(d, 256)
                self.register_buffer("mask", nn.Transformer.generate_square_subsequent_mask(64))

            def forward(self, x):
                h = self.emb(x) + self.pos
                return self.head(self.enc(h, mask=self.mask, is_causal=True))

        model = LM()
    model.to(device)
    opt = _optimizer(T, kind, model.parameters())
    loss_fn = nn.CrossEntropyLoss()

    def step(x, y):
        opt.zero_grad()
        with T.autocast(device_type=device, dtype=T.bfloat16, enabled=amp):
            out = model(x)
            loss = loss_fn(out.reshape(-1, out.shape[-1]), y.reshape(-1))
        loss.backward()
        opt.step()
        return loss

    return model, step


def _optimizer(T, kind, params):
    if kind == "mlp":
        return T.optim.Adam(params, lr=1e-3)
    if kind == "cnn":
        return T.optim.SGD(params, lr=0.01, momentum=0.9)
    return T.optim.AdamW(params, lr=1e-3)


def data(kind, batch, seed=0):
    g = np.random.default_rng(seed)
    if kind == "mlp":
        return g.standard_normal((batch, 1, 28, 28)).astype(np.float32), \
            g.integers(0, 10, batch)
    if kind == "cnn":
        return g.standard_normal((batch, 1, 28, 28)).astype(np.float32), \
            g.integers(0, 10, batch)
    return g.integers(0, 256, (batch, 64)), g.integers(0, 256, (batch, 64))


# ------------------------------------------------------------------ runners
class Runner:
    """``first()`` runs the first step (timed), ``block(n)`` runs n steps and syncs."""

    def __init__(self, name, step, x, y, sync, memory=None):
        self.name, self.step, self.x, self.y, self.sync = name, step, x, y, sync
        self.memory = memory
        self.times, self.first_s = [], None
        self.error = None

    @classmethod
    def failed(cls, name, exc):
        """A runner that could not be built (reported in the table as failed)."""
        r = cls(name, None, None, None, None)
        r.error = f"{type(exc).__name__}: {str(exc).splitlines()[0][:80]}"
        return r

    def first(self):
        t = time.perf_counter()
        self.sync(self.step(self.x, self.y))
        self.first_s = time.perf_counter() - t
        t = time.perf_counter()  # (the steady state: compiled by the first call)
        self.sync(self.step(self.x, self.y))
        self.second_s = time.perf_counter() - t

    def block(self, n):
        t = time.perf_counter()
        for _ in range(n):
            out = self.step(self.x, self.y)
        self.sync(out)
        self.times.append((time.perf_counter() - t) / n)


def make_runners(name, spec, include, device="cpu", amp=False):
    """Runners for ``include``'s implementations of ``spec`` (kind, batch, optional width) on
    ``device`` ("cpu" or "gpu"); with ``amp`` under bf16 autocast, their names marked "bf16"."""
    kind, batch, width = spec["kind"], spec["batch"], spec.get("width")
    xn, yn = data(kind, batch)
    lib_device = "cuda" if device == "gpu" else "cpu"
    mark = " bf16" if amp else ""
    runners = []
    for label, compiled in (("jtorch eager", False), ("jtorch compiled", True)):
        if label not in include:
            continue
        jtorch.manual_seed(0)
        model, step = build(jtorch, kind, width, lib_device, amp)
        f = jtorch.compile(step) if compiled else step
        xj, yj = jtorch.tensor(xn, device=lib_device), jtorch.tensor(yn, device=lib_device)
        mem = (lambda f=f, xj=xj, yj=yj: _jtorch_memory(f, xj, yj)) if compiled else None
        runners.append(Runner(label + mark, f, xj, yj, lambda o: o.item(), mem))
    for label, compiled in (("PyTorch eager", False), ("torch.compile", True)):
        if label not in include:
            continue
        torch.manual_seed(0)
        try:
            model, step = build(torch, kind, width, lib_device, amp)
            xt, yt = torch.tensor(xn, device=lib_device), torch.tensor(yn, device=lib_device)
        except (RuntimeError, AssertionError) as e:   # a PyTorch built without CUDA
            runners.append(Runner.failed(label + mark, e))
            continue
        f = torch.compile(step) if compiled else step
        runners.append(Runner(label + mark, f, xt, yt, lambda o: o.item()))
    if "hand-written JAX" in include:
        step, state = handjax.make(kind, batch, width, amp=amp)
        box = {"s": state}

        def run(x, y, box=box, step=step):
            box["s"], loss = step(box["s"], x, y)
            return loss

        xh, yh = jnp.asarray(xn), jnp.asarray(yn)   # (JAX's default device: the GPU if any)
        runners.append(Runner("hand-written JAX" + mark, run, xh, yh, lambda o: float(o),
                              lambda: _jax_memory(step, box["s"], xh, yh)))
    if "flax nnx.jit" in include and kind == "transformer" and not amp:
        import flax_transformer  # (flax is needed for --flax only)

        runners.append(Runner("flax nnx.jit", flax_transformer.make(batch, width or 128),
                              jnp.asarray(xn), jnp.asarray(yn), lambda o: float(o)))
    return runners


def _jtorch_memory(f, x, y):
    e = list(f._cache.values())[-1]
    st = e.st
    ma = e.jitted.lower([t._array for t in st.tensors], [p._grad._value for p in e.grads_in],
                        st.hyper_values(), [x._value, y._value]).compile().memory_analysis()
    return ma.argument_size_in_bytes + ma.temp_size_in_bytes


def _jax_memory(step, state, x, y):
    ma = step.lower(state, x, y).compile().memory_analysis()
    return ma.argument_size_in_bytes + ma.temp_size_in_bytes


# ------------------------------------------------------------------ main
def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", default=None)
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--skip", default="", help="comma-separated implementations to skip")
    ap.add_argument("--flax", action="store_true",
                    help="also the transformer in flax nnx.jit (bench/flax_transformer.py)")
    ap.add_argument("--device", default="cpu", choices=["cpu", "gpu"],
                    help="where models and data live (gpu: jtorch/PyTorch 'cuda', JAX's GPU)")
    ap.add_argument("--amp", action="store_true",
                    help="also every implementation under bf16 autocast (rows marked bf16)")
    ap.add_argument("--amp-only", action="store_true",
                    help="only the bf16 autocast rows (a section of their own)")
    a = ap.parse_args()
    if a.device == "gpu" and jax.default_backend() != "gpu":
        raise SystemExit(f"--device gpu: JAX's default backend is {jax.default_backend()!r}; "
                         "install jax[cuda12] (or the jaxlib for this GPU)")
    impls = ["jtorch eager", "jtorch compiled", "PyTorch eager", "torch.compile",
             "hand-written JAX"] + (["flax nnx.jit"] if a.flax else [])
    include = [i for i in impls if i not in a.skip.split(",")]
    repeats, block = (3, 10) if a.quick else (7, 20)
    results = {}
    for name, spec in WORKLOADS.items():
        if a.only and name != a.only:
            continue
        runners = [] if a.amp_only else make_runners(name, spec, include, a.device)
        if a.amp or a.amp_only:
            runners += make_runners(name, spec, include, a.device, amp=True)
        for r in runners:
            if r.error:   # (could not be built)
                print(f"{name} / {r.name}: {r.error}", flush=True)
                continue
            try:
                r.first()
            except Exception as e:  # torch.compile may be unavailable: report, don't stop
                r.error = f"{type(e).__name__}: {str(e).splitlines()[0][:80]}"
                print(f"{name} / {r.name}: {r.error}", flush=True)
            else:
                r.error = None
                print(f"{name} / {r.name}: first call {r.first_s:.2f} s", flush=True)
        live = [r for r in runners if r.error is None]
        for r in live:
            r.block(3)
            r.times.clear()
        for _ in range(repeats):
            for r in live:
                n = block if "eager" not in r.name or spec["kind"] == "mlp" else max(3, block // 4)
                r.block(n)
        for r in live:
            med = statistics.median(r.times)
            print(f"{name} / {r.name}: {1e3 * med:.3f} ms/step "
                  f"({1e3 * min(r.times):.3f}-{1e3 * max(r.times):.3f})", flush=True)
        results[name] = runners
    text = render(results, a)
    print(text)
    if not a.no_write and not a.only:
        section = "suite" if a.device == "cpu" else f"suite-{_device().replace(' ', '-')}"
        write(text, section + ("-bf16" if a.amp_only else ""))


def render(results, a):
    options = "".join(f" {o}" for o, on in (("--quick", a.quick), ("--flax", a.flax),
                                            (f"--device {a.device}", a.device != "cpu"),
                                            ("--amp", a.amp),
                                            ("--amp-only", a.amp_only)) if on)
    what = " under bf16 autocast" if a.amp_only else ""
    lines = [f"## Training-step suite (bench/bench_suite.py) on {_device()}{what}", "",
             f"Command: `python bench/bench_suite.py{options}`; {machine_line()}.", "",
             "Steps per second (median of interleaved blocks, min-max in brackets), ratios "
             "against hand-written JAX and PyTorch eager, the wall time of the first and second "
             "calls (tracing and compiling included: jtorch.compile compiles a training step "
             "once, for the steady state, at its first call) and peak memory of the compiled "
             "step where XLA reports it.", ""]
    for name, runners in results.items():
        by = {r.name: r for r in runners}
        lines += [f"### {name}", "",
                  "| implementation | steps/s | ms/step [min-max] | vs JAX | vs PyTorch eager | "
                  "1st call (s) | 2nd call (s) | peak memory (MiB) |",
                  "|---|---|---|---|---|---|---|---|"]
        for r in runners:
            if r.error:
                lines.append(f"| {r.name} | failed: {r.error} | | | | | | |")
                continue
            mark = " bf16" if r.name.endswith(" bf16") else ""   # (same-precision references)
            jx, pt = by.get("hand-written JAX" + mark), by.get("PyTorch eager" + mark)
            med = statistics.median(r.times)
            def vs(o, med=med):
                if o is None or o.error:
                    return "-"
                return f"{statistics.median(o.times) / med:.2f}x"

            mem = "-"
            if r.memory is not None:
                try:
                    mem = f"{r.memory() / 2**20:.1f}"
                except Exception as e:  # noqa: BLE001
                    mem = f"n/a ({type(e).__name__})"
            lines.append(f"| {r.name} | {1 / med:.1f} | {1e3 * med:.2f} "
                         f"[{1e3 * min(r.times):.2f}-{1e3 * max(r.times):.2f}] | {vs(jx)} | "
                         f"{vs(pt)} | {r.first_s:.2f} | {r.second_s:.2f} | {mem} |")
        lines.append("")
    return "\n".join(lines)


def machine_line():
    """The machine and versions a table was measured with, and when."""
    return (f"{platform.machine()}, {os.cpu_count()} cores, {_device()}, "
            f"Python {platform.python_version()}, jax {jax.__version__}, optax "
            f"{optax.__version__}, torch {torch.__version__}, "
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")


def _device():
    d = jax.devices()[0]
    return d.device_kind if d.platform != "cpu" else "CPU"


def write(text, section="suite"):
    from _page import write_section

    write_section(section, text)


if __name__ == "__main__":
    main()
