"""The optax side of jtorch.optim: PyTorch-exact gradient transformations and the one jitted
step program that runs a parameter group's ``optax.chain``.

Every optimizer's update is an ``optax.chain`` of links. Stateless links are optax's own
transforms where their arithmetic is PyTorch's (``optax.scale(-1.0)`` for maximize,
``optax.add_decayed_weights`` for coupled and decoupled weight decay, ``optax.trace`` for SGD
momentum without dampening, ``optax.scale_by_learning_rate``); the rest are small custom
``optax.GradientTransformation``s that follow PyTorch's single-tensor kernels operation by
operation (lerp/addcmul/addcdiv order, where scalars are formed in float64 and cast to the
parameter dtype, per-parameter ``step`` counts). Their state is a dict keyed by PyTorch's
state names holding one array per parameter, so ``optimizer.state[p]`` maps onto it directly.
Hyperparameters arrive as weakly typed Python floats (dynamic jit arguments: float32
parameters stay float32, and changing a value never recompiles).
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import optax

from .._core.state import grad_mode

F64 = jnp.float64


class Link(NamedTuple):
    """One link of the chain: an optax transformation and the PyTorch state keys it owns
    (its state is ``{key: [array per parameter]}``; ``()`` for stateless optax links)."""

    tx: optax.GradientTransformation
    keys: tuple = ()


def zeros_like(a):
    return _zeros(a)


@jax.jit
def _zeros(a):
    return jnp.zeros_like(a)


def write(t, arr):
    """Store ``arr`` into tensor ``t`` in place (version counter bumped, views re-derive)."""
    if t._base is None:
        t._array = arr
        t._version_counter += 1
        return
    from .._core.views import assign
    from .._tensor import Tensor

    with grad_mode(False):
        assign(t, Tensor._make(arr, t._device))


# ------------------------------------------------------------------ the jitted step program
def _to_real(x):
    return jnp.stack([x.real, x.imag], axis=-1)


def _to_complex(x, dtype):
    return (x[..., 0] + 1j * x[..., 1]).astype(dtype)


@functools.partial(jax.jit, static_argnums=(0, 1))
def _jit_step(build, flags, params, grads, state, hp):
    # complex parameters are updated through their real view, as PyTorch's view_as_real
    cplx = [jnp.iscomplexobj(p) for p in params]
    if any(cplx):
        conv = {k: [c and s is not None and s.shape == p.shape and jnp.iscomplexobj(s)
                    for c, s, p in zip(cplx, col, params)] for k, col in state.items()}
        dtypes = [p.dtype for p in params]
        shapes = [p.shape + (2,) for p in params]
        params = [_to_real(p) if c else p for c, p in zip(cplx, params)]
        grads = [_to_real(g) if c else g for c, g in zip(cplx, grads)]
        state = {k: [_to_real(s) if c else s for c, s in zip(conv[k], col)]
                 for k, col in state.items()}
    links = build(hp, flags)
    tx = optax.chain(*(lk.tx for lk in links))
    chain_state = tuple({k: state[k] for k in lk.keys} if lk.keys else lk.tx.init(params)
                        for lk in links)
    updates, new_chain = tx.update(grads, chain_state, params)
    new_params = optax.apply_updates(params, updates)
    new_state = {}
    for lk, s in zip(links, new_chain):
        if lk.keys:
            new_state.update(s)
    if any(cplx):
        new_params = [_to_complex(p, d) if c else p
                      for c, p, d in zip(cplx, new_params, dtypes)]
        # state made from a complex parameter's real view (also buffers created this step)
        new_state = {k: [_to_complex(s, d) if c and s.shape == sh else s
                         for c, s, d, sh in zip(cplx, col, dtypes, shapes)]
                     for k, col in new_state.items()}
    return new_params, new_state


def run_step(build, flags, params, grads, state, hp):
    """Run the group's chain: returns (new parameter arrays, new state {key: [arrays]})."""
    return _jit_step(build, flags, params, grads, state, hp)


def compiled_count():
    """How many programs the step function has compiled (for recompilation tests)."""
    return _jit_step._cache_size()


# ------------------------------------------------------------------ building blocks
def per_leaf(keys, fn, *args):
    """A GradientTransformation with PyTorch-keyed state: ``fn(g, p, *state_leaves, *args)``
    returns ``(update, *new_state_leaves)`` for one parameter."""

    def init(params):
        raise NotImplementedError("jtorch: optimizer state is initialised on the PyTorch side")

    def update(updates, state, params=None):
        cols = [state[k] for k in keys]
        outs = [fn(g, p, *s, *args) for g, p, *s in zip(updates, params, *cols)]
        return [o[0] for o in outs], {k: [o[i + 1] for o in outs] for i, k in enumerate(keys)}

    return Link(optax.GradientTransformation(init, update), tuple(keys))


def keyed(tx, key, field, fill_none=False):
    """Expose a stateful optax transform whose state is a NamedTuple with one pytree field as
    PyTorch-keyed state ``{key: [...]}``; ``fill_none`` starts missing buffers at zero."""

    def init(params):
        return {key: getattr(tx.init(params), field)}

    def update(updates, state, params=None):
        col = state[key]
        if fill_none:
            col = [jnp.zeros_like(g) if s is None else s for g, s in zip(updates, col)]
        st = tx.init(updates)._replace(**{field: col})
        u, ns = tx.update(updates, st, params)
        return u, {key: getattr(ns, field)}

    return Link(optax.GradientTransformation(init, update), (key,))


def stateless(tx):
    return Link(tx)


def c(s, like):
    """A float64 scalar computed as PyTorch does in Python, cast to the tensor's dtype."""
    return jnp.asarray(s).astype(like.dtype)


def f64(step):
    return step.astype(F64)


def lerp(a, b, w):
    """ATen's lerp kernel: a + w (b - a) for |w| < 0.5, else b - (b - a)(1 - w)."""
    return jnp.where(jnp.abs(w) < 0.5, a + w * (b - a), b - (b - a) * (1 - w))


def addcmul(s, t1, t2, v):
    return s + v * t1 * t2


def addcdiv(s, t1, t2, v):
    return s + v * t1 / t2


def common(hp_wd, flags_maximize, wd_mode):
    """Leading links: maximize (negate the gradient) and coupled weight decay."""
    links = []
    if flags_maximize:
        links.append(stateless(optax.scale(-1.0)))
    if wd_mode == 1:
        links.append(stateless(optax.add_decayed_weights(hp_wd)))
    return links


def wd_mode(group, decoupled=False):
    """0: no weight decay, 1: coupled (added to the gradient), 2: decoupled (AdamW)."""
    if group["weight_decay"] == 0:
        return 0
    return 2 if decoupled else 1
