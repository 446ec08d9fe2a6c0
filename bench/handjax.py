"""The benchmark's models written by hand in JAX + optax, each whole step under one jax.jit.

``make(kind, batch)`` returns ``(step, state)`` with ``step(state, x, y) -> (state, loss)``
jitted with the state donated: what a JAX user would write for the same model, optimizer and
dropout, initialised like PyTorch (uniform(-1/sqrt(fan_in), 1/sqrt(fan_in)) and friends).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
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


def _dropout(key, x, p):
    keep = jax.random.bernoulli(key, 1 - p, x.shape)
    return jnp.where(keep, x / (1 - p), 0)


def _xent(logits, y):
    return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()


def _mlp(batch):
    ks = jax.random.split(jax.random.PRNGKey(0), 3)
    params = {"l1": _linear(ks[0], 784, 256), "l2": _linear(ks[1], 256, 128),
              "l3": _linear(ks[2], 128, 10)}

    def loss_fn(p, x, y, key):
        k1, k2 = jax.random.split(key)
        h = x.reshape(x.shape[0], -1)
        h = _dropout(k1, jax.nn.relu(h @ p["l1"]["w"] + p["l1"]["b"]), 0.2)
        h = _dropout(k2, jax.nn.relu(h @ p["l2"]["w"] + p["l2"]["b"]), 0.2)
        return _xent(h @ p["l3"]["w"] + p["l3"]["b"], y)

    return params, optax.adam(1e-3), loss_fn


def _pool(x):
    return jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")


def _cnn(batch):
    ks = jax.random.split(jax.random.PRNGKey(0), 4)
    params = {"c1": _conv(ks[0], 1, 32, 3), "c2": _conv(ks[1], 32, 64, 3),
              "l1": _linear(ks[2], 1600, 128), "l2": _linear(ks[3], 128, 10)}

    def conv(p, x):
        y = jax.lax.conv_general_dilated(x, p["w"], (1, 1), "VALID",
                                         dimension_numbers=("NCHW", "OIHW", "NCHW"))
        return y + p["b"][None, :, None, None]

    def loss_fn(p, x, y, key):
        h = _pool(jax.nn.relu(conv(p["c1"], x)))
        h = _pool(jax.nn.relu(conv(p["c2"], h)))
        h = jax.nn.relu(h.reshape(h.shape[0], -1) @ p["l1"]["w"] + p["l1"]["b"])
        return _xent(h @ p["l2"]["w"] + p["l2"]["b"], y)

    return params, optax.sgd(0.01, momentum=0.9), loss_fn


def _transformer(batch, d=128, heads=4, ff=512, layers=2, vocab=256, seq=64, p_drop=0.1):
    ks = iter(jax.random.split(jax.random.PRNGKey(0), 64))

    def ln():
        return {"g": jnp.ones(d), "b": jnp.zeros(d)}

    params = {"emb": jax.random.normal(next(ks), (vocab, d)), "pos": jnp.zeros((seq, d)),
              "head": _linear(next(ks), d, vocab), "layers": []}
    for _ in range(layers):
        params["layers"].append({"qkv": _linear(next(ks), d, 3 * d), "o": _linear(next(ks), d, d),
                                 "f1": _linear(next(ks), d, ff), "f2": _linear(next(ks), ff, d),
                                 "n1": ln(), "n2": ln()})
    mask = jnp.tril(jnp.ones((seq, seq), bool))

    def norm(p, x):
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        return (x - m) / jnp.sqrt(v + 1e-5) * p["g"] + p["b"]

    def attn(p, x, key):
        b, s, _ = x.shape
        q, k, v = jnp.split(x @ p["qkv"]["w"] + p["qkv"]["b"], 3, axis=-1)
        q, k, v = (t.reshape(b, s, heads, d // heads).transpose(0, 2, 1, 3) for t in (q, k, v))
        att = q @ k.transpose(0, 1, 3, 2) / (d // heads) ** 0.5
        att = jax.nn.softmax(jnp.where(mask, att, -jnp.inf), axis=-1)
        att = _dropout(key, att, p_drop)
        o = (att @ v).transpose(0, 2, 1, 3).reshape(b, s, d)
        return o @ p["o"]["w"] + p["o"]["b"]

    def loss_fn(p, x, y, key):
        h = p["emb"][x] + p["pos"]
        for lp in p["layers"]:
            key, k1, k2, k3, k4 = jax.random.split(key, 5)
            h = norm(lp["n1"], h + _dropout(k2, attn(lp, h, k1), p_drop))
            f = _dropout(k3, jax.nn.relu(h @ lp["f1"]["w"] + lp["f1"]["b"]), p_drop)
            h = norm(lp["n2"], h + _dropout(k4, f @ lp["f2"]["w"] + lp["f2"]["b"], p_drop))
        logits = h @ p["head"]["w"] + p["head"]["b"]
        return _xent(logits.reshape(-1, vocab), y.reshape(-1))

    return params, optax.adamw(1e-3, weight_decay=0.01), loss_fn


def make(kind, batch):
    params, tx, loss_fn = {"mlp": _mlp, "cnn": _cnn, "transformer": _transformer}[kind](batch)
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
