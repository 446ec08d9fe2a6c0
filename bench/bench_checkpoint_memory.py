"""Activation memory with and without gradient checkpointing, inside compiled steps.

    python bench/bench_checkpoint_memory.py

For each model, the whole training step (forward, backward, optimizer) is compiled with
jtorch.compile, once plain and once with each block wrapped in
torch.utils.checkpoint.checkpoint(..., use_reentrant=False), which inside a compiled step runs
as jax.checkpoint. The numbers are XLA's own accounting of the compiled program
(memory_analysis: temporaries, i.e. activations and workspace; arguments: parameters,
gradients, optimizer state, inputs). Writes the "checkpoint-memory" section of
docs/benchmarks.md.
"""

from __future__ import annotations

import platform
import time

import jax

import jtorch as torch
from jtorch import nn
from jtorch.utils.checkpoint import checkpoint


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


def measure(make, inputs):
    res = {}
    for ck in (False, True):
        torch.manual_seed(0)
        model = make(ck)
        f = torch.compile(train_step(model, torch.optim.AdamW(model.parameters(), lr=1e-3)))
        losses = [f(*inputs).item() for _ in range(3)]
        e = list(f._cache.values())[-1]
        ma = e.jitted.lower([t._array for t in e.st.tensors], [p._grad._value for p in e.grads_in],
                            e.st.hyper_values(), [t._value for t in inputs]
                            ).compile().memory_analysis()
        res[ck] = (ma.temp_size_in_bytes / 2**20, ma.argument_size_in_bytes / 2**20, losses)
    return res


def main():
    rows = []
    mlp = measure(lambda ck: DeepMLP(ck), [torch.randn(512, 1024)])
    rows.append(("deep MLP: 16 x (Linear 1024->1024 + GELU), batch 512", mlp))
    g = torch.Generator().manual_seed(0)
    xy = [torch.randint(0, 256, (32, 64), generator=g), torch.randint(0, 256, (32, 64),
                                                                       generator=g)]
    rows.append(("transformer LM (the suite's, dropout 0), batch 32 x 64", measure(LM, xy)))
    lines = ["## Gradient checkpointing in compiled steps (bench/bench_checkpoint_memory.py)", "",
             f"`python bench/bench_checkpoint_memory.py` on {platform.machine()}, "
             f"{jax.devices()[0].platform}, jax {jax.__version__}, "
             f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. XLA's memory analysis "
             "of the compiled AdamW step; the losses of the first three steps show both runs "
             "compute the same thing.", "",
             "| model | temporaries, plain (MiB) | temporaries, checkpointed (MiB) | saved | "
             "arguments (MiB) | losses equal |", "|---|---|---|---|---|---|"]
    for name, r in rows:
        (tp, ap_, lp), (tc, _, lc) = r[False], r[True]
        same = all(abs(a - b) <= 1e-5 * max(1.0, abs(a)) for a, b in zip(lp, lc))
        lines.append(f"| {name} | {tp:.1f} | {tc:.1f} | {100 * (1 - tc / tp):.0f}% | "
                     f"{ap_:.1f} | {'yes' if same else 'no'} |")
    text = "\n".join(lines)
    print(text)
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _page import write_section

    write_section("checkpoint-memory", text)


if __name__ == "__main__":
    main()
