"""The benchmark's models written by hand in JAX + optax, each whole step under one jax.jit.

``make(kind, batch, width=None)`` returns ``(step, state)`` with
``step(state, x, y) -> (state, loss)`` jitted with the state donated: what a JAX user would
write for the same model, optimizer and dropout, initialised like PyTorch
(uniform(-1/sqrt(fan_in), 1/sqrt(fan_in)) and friends). Every array is created float32
explicitly: jtorch turns on ``jax_enable_x64`` when imported (the benchmarks import it), and a
``jnp.ones(d)`` would then be float64 and promote the whole step to float64.

With ``amp=True`` a step follows autocast's bf16 policy by hand: matmuls, convolutions and
their bias adds take bfloat16 inputs and give bfloat16 results (what follows them runs in
bfloat16 too), layer norm, softmax and the loss compute in float32; parameters, gradients and
optimizer state stay float32.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import optax


def _linear(key, fan_in, fan_out):
    k1, k2 = jax.random.split(key)
    bound = 1 / fan_in ** 0.5
    return {"w": jax.random.uniform(k1, (fan_in, fan_out), jnp.float32, -bound, bound),
            "b": jax.random.uniform(k2, (fan_out,), jnp.float32, -bound, bound)}


def _conv(key, cin, cout, k):
    k1, k2 = jax.random.split(key)
    bound = 1 / (cin * k * k) ** 0.5
    return {"w": jax.random.uniform(k1, (cout, cin, k, k), jnp.float32, -bound, bound),
            "b": jax.random.uniform(k2, (cout,), jnp.float32, -bound, bound)}


def _bits32(key, shape):
    """uint32 random bits: the halves of 64-bit threefry draws, which XLA:CPU computes several
    times faster than 32-bit draws (a hash per value, half of it kept)."""
    n = int(np.prod(shape))
    words = jax.random.bits(key, ((n + 1) // 2,), jnp.uint64)
    return jax.lax.bitcast_convert_type(words, jnp.uint32).reshape(-1)[:n].reshape(shape)


def _dropout(key, x, p):
    return _bits_dropout(_bits32(key, x.shape), x, p)


def _xent(logits, y):
    logits = logits.astype(jnp.float32)   # (under amp: the loss in float32)
    return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()


def _cast(amp, *arrays):
    """The arrays as a matmul or convolution takes them: bfloat16 under ``amp``."""
    return tuple(a.astype(jnp.bfloat16) for a in arrays) if amp else arrays


def _dense(p, x, amp=False):
    x, w, b = _cast(amp, x, p["w"], p["b"])
    return x @ w + b


def _mlp(batch, w=256, amp=False):
    """784-w-w/2-10 (the suite's 784-256-128-10 at the default width)."""
    ks = jax.random.split(jax.random.PRNGKey(0), 3)
    params = {"l1": _linear(ks[0], 784, w), "l2": _linear(ks[1], w, w // 2),
              "l3": _linear(ks[2], w // 2, 10)}

    def loss_fn(p, x, y, key):
        k1, k2 = jax.random.split(key)
        h = x.reshape(x.shape[0], -1)
        h = _dropout(k1, jax.nn.relu(_dense(p["l1"], h, amp)), 0.2)
        h = _dropout(k2, jax.nn.relu(_dense(p["l2"], h, amp)), 0.2)
        return _xent(_dense(p["l3"], h, amp), y)

    return params, optax.adam(1e-3), loss_fn


def _pool(x):
    return jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")


def _cnn(batch, amp=False):
    ks = jax.random.split(jax.random.PRNGKey(0), 4)
    params = {"c1": _conv(ks[0], 1, 32, 3), "c2": _conv(ks[1], 32, 64, 3),
              "l1": _linear(ks[2], 1600, 128), "l2": _linear(ks[3], 128, 10)}

    def conv(p, x):
        x, w, b = _cast(amp, x, p["w"], p["b"])
        y = jax.lax.conv_general_dilated(x, w, (1, 1), "VALID",
                                         dimension_numbers=("NCHW", "OIHW", "NCHW"))
        return y + b[None, :, None, None]

    def loss_fn(p, x, y, key):
        h = _pool(jax.nn.relu(conv(p["c1"], x)))
        h = _pool(jax.nn.relu(conv(p["c2"], h)))
        h = jax.nn.relu(_dense(p["l1"], h.reshape(h.shape[0], -1), amp))
        return _xent(_dense(p["l2"], h, amp), y)

    return params, optax.sgd(0.01, momentum=0.9), loss_fn


def _bits_dropout(bits, x, p):
    """Inverted dropout from raw uint32 bits: keep where bits >= p * 2**32 (probability 1 - p),
    an integer compare instead of a float conversion per element."""
    if p == 0:
        return x
    keep = bits >= jnp.uint32(round(p * 2.0 ** 32))
    return jnp.where(keep, x * (1 / (1 - p)), 0.0)


def _transformer(batch, d=128, heads=4, ff=None, layers=2, vocab=256, seq=64, p_drop=0.1,
                 remat=False, amp=False):
    """PyTorch's post-norm TransformerEncoderLayer LM (ReLU, dropout after the attention
    weights, the attention output, inside the feed-forward and after it), written for XLA on
    a CPU: one fused qkv matmul, the causal mask an additive bias built once at trace time
    (a constant), one random-bits draw per dropout site from keys split once per step (an
    integer compare, no float conversion), float32 throughout. (Embedding and cross-entropy
    as one-hot matmuls measured 1.08x slower than the gather and optax's cross-entropy here.)
    ``remat``: each layer under ``jax.checkpoint`` (the checkpoint-memory benchmark's hand-JAX
    reference)."""
    ff = 4 * d if ff is None else ff
    dk = d // heads
    ks = iter(jax.random.split(jax.random.PRNGKey(0), 64))

    def ln():
        return {"g": jnp.ones(d, jnp.float32), "b": jnp.zeros(d, jnp.float32)}

    params = {"emb": jax.random.normal(next(ks), (vocab, d), jnp.float32),
              "pos": jnp.zeros((seq, d), jnp.float32),
              "head": _linear(next(ks), d, vocab), "layers": []}
    for _ in range(layers):
        params["layers"].append({"qkv": _linear(next(ks), d, 3 * d), "o": _linear(next(ks), d, d),
                                 "f1": _linear(next(ks), d, ff), "f2": _linear(next(ks), ff, d),
                                 "n1": ln(), "n2": ln()})
    bias = np.triu(np.full((seq, seq), -np.inf, np.float32), 1)  # a compile-time constant
    sites = [(batch, heads, seq, seq), (batch, seq, d), (batch, seq, ff), (batch, seq, d)]

    def norm(p, x):
        x = x.astype(jnp.float32)   # (under amp: layer norm in float32)
        m = x.mean(-1, keepdims=True)
        c = x - m
        return c * jax.lax.rsqrt((c * c).mean(-1, keepdims=True) + 1e-5) * p["g"] + p["b"]

    def attn(p, x, bits):
        b, s, _ = x.shape
        qkv = _dense(p["qkv"], x, amp).reshape(b, s, 3, heads, dk)
        q, k, v = qkv[:, :, 0] * (1 / dk ** 0.5), qkv[:, :, 1], qkv[:, :, 2]
        scores = jnp.einsum("bqhd,bkhd->bhqk", q, k).astype(jnp.float32)   # softmax: float32
        att = jax.nn.softmax(scores + bias, axis=-1)
        att, v = _cast(amp, _bits_dropout(bits, att, p_drop), v)
        o = jnp.einsum("bhqk,bkhd->bqhd", att, v)
        return _dense(p["o"], o.reshape(b, s, d), amp)

    def layer(lp, h, bits):
        b0, b1, b2, b3 = bits
        h = norm(lp["n1"], h + _bits_dropout(b1, attn(lp, h, b0), p_drop))
        f = _bits_dropout(b2, jax.nn.relu(_dense(lp["f1"], h, amp)), p_drop)
        return norm(lp["n2"], h + _bits_dropout(b3, _dense(lp["f2"], f, amp), p_drop))

    run_layer = jax.checkpoint(layer) if remat else layer

    def loss_fn(p, x, y, key):
        keys = jax.random.split(key, 4 * layers)
        h = p["emb"][x] + p["pos"]
        for i, lp in enumerate(p["layers"]):
            bits = [None if p_drop == 0 else
                    _bits32(keys[4 * i + j], sites[j]) for j in range(4)]
            h = run_layer(lp, h, bits)
        return _xent(_dense(p["head"], h, amp).reshape(-1, vocab), y.reshape(-1))

    return params, optax.adamw(1e-3, weight_decay=0.01), loss_fn


def make(kind, batch, width=None, **options):
    """``width``: the MLP's first hidden width or the transformer's d_model (None: the
    suite's 256 / 128); ``options``: the model builder's other keywords (``layers``,
    ``amp``...)."""
    builder = {"mlp": _mlp, "cnn": _cnn, "transformer": _transformer}[kind]
    params, tx, loss_fn = builder(batch, *(() if width is None else (width,)), **options)
    state = (params, tx.init(params), jax.random.PRNGKey(1))

    @jax.jit
    def step(state, x, y):
        params, opt_state, key = state
        key, sub = jax.random.split(key)
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y, sub)
        updates, opt_state = tx.update(grads, opt_state, params)
        return (optax.apply_updates(params, updates), opt_state, key), loss

    step = jax.jit(step.__wrapped__ if hasattr(step, "__wrapped__") else step,
                   donate_argnums=(0,))
    return step, state
