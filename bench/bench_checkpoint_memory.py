"""Activation memory with and without gradient checkpointing, inside compiled steps.

    python bench/bench_checkpoint_memory.py               # on the CPU
    python bench/bench_checkpoint_memory.py --device gpu  # models and data on the GPU

For each model, the whole training step (forward, backward, optimizer) is compiled with
jtorch.compile, once plain and once with each block wrapped in
torch.utils.checkpoint.checkpoint(..., use_reentrant=False), which inside a compiled step runs
as jax.checkpoint. The numbers are XLA's own accounting of the compiled program
(memory_analysis: temporaries, i.e. activations and workspace; arguments: parameters,
gradients, optimizer state, inputs). Writes the "checkpoint-memory" section of
docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp

import jtorch as torch
from jtorch import nn
from jtorch.utils.checkpoint import checkpoint

sys.path.insert(0, str(Path(__file__).resolve().parent))
import handjax  # noqa: E402
from _page import write_section  # noqa: E402


class DeepMLP(nn.Module):
    def __init__(self, ck, depth=16, width=1024):
        super().__init__()
        self.ck = ck
        self.blocks = nn.ModuleList([nn.Sequential(nn.Linear(width, width), nn.GELU())
                                     for _ in range(depth)])

    def forward(self, x):
        for b in self.blocks:
            x = checkpoint(b, x, use_reentrant=False) if self.ck else b(x)
        return x.pow(2).mean()


class LM(nn.Module):
    """The suite's transformer LM (2 layers, d_model 128, 4 heads, ff 512, seq 64, batch 32,
    vocab 256), each encoder layer optionally checkpointed; dropout 0 so the two runs agree."""

    def __init__(self, ck, layers=2):
        super().__init__()
        self.ck = ck
        self.emb = nn.Embedding(256, 128)
        self.layers = nn.ModuleList([nn.TransformerEncoderLayer(128, 4, 512, dropout=0.0,
                                                                batch_first=True)
                                     for _ in range(layers)])
        self.head = nn.Linear(128, 256)
        self.register_buffer("mask", nn.Transformer.generate_square_subsequent_mask(64))

    def forward(self, x, y):
        h = self.emb(x)
        for layer in self.layers:
            h = checkpoint(layer, h, self.mask, use_reentrant=False) if self.ck \
                else layer(h, self.mask)
        out = self.head(h)
        return nn.functional.cross_entropy(out.reshape(-1, 256), y.reshape(-1))


def train_step(model, opt):
    def step(*a):
        opt.zero_grad()
        loss = model(*a)
        loss.backward()
        opt.step()
        return loss

    return step


def measure(make, inputs, device="cpu"):
    res = {}
    inputs = [t.to(device) for t in inputs]
    for ck in (False, True):
        torch.manual_seed(0)
        model = make(ck).to(device)
        f = torch.compile(train_step(model, torch.optim.AdamW(model.parameters(), lr=1e-3)))
        losses = [f(*inputs).item() for _ in range(3)]
        e = list(f._cache.values())[-1]
        ma = e.jitted.lower([t._array for t in e.st.tensors], [p._grad._value for p in e.grads_in],
                            e.st.hyper_values(), [t._value for t in inputs]
                            ).compile().memory_analysis()
        res[ck] = (ma.temp_size_in_bytes / 2**20, ma.argument_size_in_bytes / 2**20, losses)
    return res


def measure_handjax(layers, xy):
    """The same LM in hand-written JAX (bench/handjax.py, dropout 0), each layer under
    ``jax.checkpoint`` or not: the reference for what XLA makes of a plain jax.checkpoint.
    Also the bytes of the vjp's residuals (what JAX keeps for backward, before XLA)."""
    x, y = (jnp.asarray(t.numpy()) for t in xy)
    res = {}
    for ck in (False, True):
        step, state = handjax.make("transformer", 32, layers=layers, p_drop=0.0, remat=ck)
        params, _, loss_fn = handjax._transformer(32, layers=layers, p_drop=0.0, remat=ck)
        _, vjp = jax.vjp(lambda p, f=loss_fn: f(p, x, y, jax.random.PRNGKey(0)), params)
        kept = sum(a.nbytes for a in jax.tree.leaves(vjp) if hasattr(a, "nbytes"))
        ma = step.lower(state, x, y).compile().memory_analysis()
        losses = []
        for _ in range(3):
            state, loss = step(state, x, y)
            losses.append(float(loss))
        res[ck] = (ma.temp_size_in_bytes / 2**20, ma.argument_size_in_bytes / 2**20, losses,
                   kept / 2**20)
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cpu", choices=["cpu", "gpu"],
                    help="where jtorch's models and data live (hand-written JAX: JAX's default)")
    a = ap.parse_args()
    dev = "cuda" if a.device == "gpu" else "cpu"
    rows = []
    mlp = measure(lambda ck: DeepMLP(ck), [torch.randn(512, 1024)], dev)
    rows.append(("deep MLP: 16 x (Linear 1024->1024 + GELU), batch 512", mlp))
    g = torch.Generator().manual_seed(0)
    xy = [torch.randint(0, 256, (32, 64), generator=g), torch.randint(0, 256, (32, 64),
                                                                       generator=g)]
    rows.append(("transformer LM (the suite's, dropout 0), batch 32 x 64", measure(LM, xy, dev)))
    rows.append(("the same LM with 8 layers", measure(lambda ck: LM(ck, layers=8), xy, dev)))
    hand = {n: measure_handjax(n, xy) for n in (2, 8)}
    for n, r in hand.items():
        rows.append((f"hand-written JAX LM, {n} layers, jax.checkpoint per layer", r))
    gpu = a.device == "gpu"
    where = f" on {jax.devices()[0].device_kind}" if gpu else ""
    lines = [f"## Gradient checkpointing in compiled steps{where} "
             "(bench/bench_checkpoint_memory.py)", "",
             f"`python bench/bench_checkpoint_memory.py{' --device gpu' if gpu else ''}` on "
             f"{platform.machine()}, {jax.devices()[0].platform}, jax {jax.__version__}, "
             f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. XLA's memory analysis "
             "of the compiled AdamW step; the losses of the first three steps show both runs "
             "compute the same thing.", "",
             "| model | temporaries, plain (MiB) | temporaries, checkpointed (MiB) | saved | "
             "arguments (MiB) | losses equal |", "|---|---|---|---|---|---|"]
    for name, r in rows:
        (tp, ap_, lp), (tc, _, lc) = r[False][:3], r[True][:3]
        same = all(abs(a - b) <= 1e-5 * max(1.0, abs(a)) for a, b in zip(lp, lc))
        lines.append(f"| {name} | {tp:.1f} | {tc:.1f} | {100 * (1 - tc / tp):.0f}% | "
                     f"{ap_:.1f} | {'yes' if same else 'no'} |")
    (p2, c2), (p8, c8) = ((hand[n][False], hand[n][True]) for n in (2, 8))
    if gpu:
        lines += ["", f"The vjp's residuals of the hand-written LM (what JAX keeps for "
                  f"backward, parameters included): {p2[3]:.1f} -> {c2[3]:.1f} MiB at 2 "
                  f"layers, {p8[3]:.1f} -> {c8[3]:.1f} MiB at 8."]
        text = "\n".join(lines)
        print(text)
        write_section("checkpoint-memory-gpu", text)
        return
    lines += ["", "**Why the transformer saves nothing.** It is not jtorch's mapping: the "
              "hand-written JAX LM with each layer under a plain `jax.checkpoint` gets the "
              "same temporaries with and without it. JAX does its part: the vjp's residuals "
              f"(what it keeps for backward, parameters included) fall from {p2[3]:.1f} to "
              f"{c2[3]:.1f} MiB at 2 layers and from {p8[3]:.1f} to {c8[3]:.1f} MiB at 8, and "
              "the recomputation is in the compiled program (12 more dots before XLA's "
              "passes, 10 after, at 2 layers). But XLA:CPU's schedule places that "
              "recomputation (ops named `checkpoint/rematted_computation`) inside the forward "
              "pass, next to the forward ops of the same layer, not in the backward pass, so "
              "the recomputed activations are live from the forward to the backward, as the "
              "saved ones are without checkpointing: the temporaries grow by about "
              f"{(c8[0] - c2[0]) / 6:.0f} MiB per layer either way, and the checkpointed step "
              "costs the recomputation and saves no memory. A forward-only step of the same LM "
              "needs 11 MiB at 2 and at 8 layers (buffers are reused across layers there). "
              "Neither making the recomputation wait for the cotangent (a custom_vjp whose "
              "backward passes inputs and cotangent through one `optimization_barrier`) nor "
              "`--xla_cpu_enable_concurrency_optimized_scheduler=false` changed the numbers; "
              "`--xla_disable_hlo_passes=cse` saved 8 of 202 MiB at 8 layers. So the cause is "
              "in XLA:CPU's pipeline, not in jtorch, and no change to "
              "jtorch.utils.checkpoint fixes it; on an H200, XLA:GPU's schedule does save the "
              "memory, for jtorch and hand-written JAX alike (section \"Gradient "
              "checkpointing in compiled steps on NVIDIA H200\"). The deep MLP "
              "does save memory (first row); why XLA:CPU treats it differently was not pinned "
              "down. Schedule positions and dot counts measured with jax 0.10.2."]
    text = "\n".join(lines)
    print(text)
    write_section("checkpoint-memory", text)


if __name__ == "__main__":
    main()
