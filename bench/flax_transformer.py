"""The suite's transformer LM in flax nnx, trained under ``nnx.jit``: the reference the
hand-written JAX transformer (bench/handjax.py) must at least match.

The same model as bench_suite.py's: token embedding plus a learned position table, ``layers``
post-norm encoder layers (multi-head self-attention with a causal mask, ReLU feed-forward of
width ``4 * d``, dropout 0.1 on the attention weights, after the attention, inside the
feed-forward and after it, LayerNorm eps 1e-5), a linear head, cross-entropy, AdamW(1e-3,
weight decay 0.01), float32. Written as a flax user would: ``nnx.MultiHeadAttention``
(separate q/k/v projections, ``broadcast_dropout=False`` so every attention weight draws its
own mask as in PyTorch), ``nnx.Dropout`` with an ``nnx.Rngs`` dropout stream, ``nnx.Optimizer``
and one ``nnx.jit`` step. Initialisers are flax's defaults (they do not change the cost). The
dropout rate is a float32 scalar: jtorch (imported by the benchmarks) turns on
``jax_enable_x64``, under which flax's ``1.0 - rate`` would be float64 and its dropout masks
would draw float64 uniforms.

``make(batch, d=128)`` returns ``step(x, y) -> loss`` (the model and optimizer live in the
closure and are updated in place, as nnx does).
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx


class EncoderLayer(nnx.Module):
    def __init__(self, d, heads, ff, p, rngs):
        self.attn = nnx.MultiHeadAttention(heads, d, dropout_rate=p, broadcast_dropout=False,
                                           deterministic=False,
                                           decode=False, rngs=rngs)
        self.lin1, self.lin2 = nnx.Linear(d, ff, rngs=rngs), nnx.Linear(ff, d, rngs=rngs)
        self.norm1 = nnx.LayerNorm(d, epsilon=1e-5, rngs=rngs)
        self.norm2 = nnx.LayerNorm(d, epsilon=1e-5, rngs=rngs)
        self.drop = nnx.Dropout(p, rngs=rngs)

    def __call__(self, h, mask):
        h = self.norm1(h + self.drop(self.attn(h, mask=mask)))
        f = self.drop(nnx.relu(self.lin1(h)))
        return self.norm2(h + self.drop(self.lin2(f)))


class LM(nnx.Module):
    def __init__(self, d=128, heads=4, layers=2, vocab=256, seq=64, p=np.float32(0.1), *,
                 rngs):
        self.emb = nnx.Embed(vocab, d, rngs=rngs)
        self.pos = nnx.Param(jnp.zeros((seq, d), jnp.float32))
        self.layers = nnx.List([EncoderLayer(d, heads, 4 * d, p, rngs) for _ in range(layers)])
        self.head = nnx.Linear(d, vocab, rngs=rngs)
        self.mask = nnx.Variable(jnp.tril(jnp.ones((seq, seq), bool))[None, None])

    def __call__(self, x):
        h = self.emb(x) + self.pos[...]
        for layer in self.layers:
            h = layer(h, self.mask[...])
        return self.head(h)


@nnx.jit
def train_step(model, optimizer, x, y):
    def loss_fn(model):
        logits = model(x)
        return optax.softmax_cross_entropy_with_integer_labels(
            logits.reshape(-1, logits.shape[-1]), y.reshape(-1)).mean()

    loss, grads = nnx.value_and_grad(loss_fn)(model)
    optimizer.update(model, grads)
    return loss


def make(batch, d=128):
    model = LM(d, rngs=nnx.Rngs(0, dropout=1))
    optimizer = nnx.Optimizer(model, optax.adamw(1e-3, weight_decay=0.01), wrt=nnx.Param)

    def step(x, y):
        return train_step(model, optimizer, x, y)

    return step
