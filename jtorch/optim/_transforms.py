"""The optax side of jtorch.optim: PyTorch-exact gradient transformations and the one jitted
step program that runs a parameter group's ``optax.chain``.

Every optimizer's update is an ``optax.chain`` of links. Stateless links are optax's own
transforms where their arithmetic is PyTorch's (``optax.scale(-1.0)`` for maximize,
``optax.add_decayed_weights`` for coupled and decoupled weight decay, ``optax.trace`` for SGD
momentum without dampening, ``optax.scale_by_learning_rate``); the one stateful link of a chain
is a small custom ``optax.GradientTransformation`` that follows PyTorch's single-tensor kernel
operation by operation (lerp/addcmul/addcdiv order, scalars formed in float64 and cast to the
parameter dtype, per-parameter ``step`` counts).

Named state, as MLX's ``apply_single``: the stateful link's state is a list with one dict per
parameter, keyed by PyTorch's state names (``state["exp_avg"]``), so ``optimizer.state[p]``
maps onto it directly; a per-parameter update function takes that dict and returns the dict
of the entries it wrote. Hyperparameters arrive as a namedtuple of weakly typed Python floats
(dynamic jit arguments: float32 parameters stay float32, and changing a value never
recompiles); flags that change the program arrive as a hashable NamedTuple (static).
"""

from __future__ import annotations

import enum
import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import optax

from .._core.device import commit_to, committed_device
from .._core.state import grad_mode
from .._core.views import assign
from .._ops._elementwise import lerp_values as lerp  # noqa: F401 - ATen's lerp, for the updates
from .._tensor import Tensor


class WeightDecay(str, enum.Enum):
    """How an optimizer applies ``weight_decay`` (a static flag: each mode is its own
    program; a str enum, so that hashing it in jit's cache key is C code)."""

    NONE = "none"            # weight_decay == 0
    COUPLED = "coupled"      # added to the gradient: g + wd * p
    DECOUPLED = "decoupled"  # the parameter shrinks by (1 - lr * wd) (AdamW)


def weight_decay_mode(group, decoupled=False):
    """The group's :class:`WeightDecay` (``decoupled`` for AdamW and
    ``decoupled_weight_decay=True``)."""
    if group["weight_decay"] == 0:
        return WeightDecay.NONE
    return WeightDecay.DECOUPLED if decoupled else WeightDecay.COUPLED


class Flags(NamedTuple):
    """The static flags of an optimizer with no others (optimizers with more define their own
    NamedTuple with these two fields first)."""

    maximize: bool
    weight_decay: WeightDecay


def flags_of(group):
    """:class:`Flags` of a group (coupled weight decay)."""
    return Flags(bool(group["maximize"]), weight_decay_mode(group))


class Link(NamedTuple):
    """One link of the chain: an optax transformation; ``stateful`` for the one link whose state
    is the optimizer's per-parameter state (a list of ``{name: array}`` dicts)."""

    tx: optax.GradientTransformation
    stateful: bool = False


# ------------------------------------------------------------------ writing results back
zeros_like = jax.jit(jnp.zeros_like)


def write(t, arr):
    """Store ``arr`` into tensor ``t`` in place (version counter bumped, views re-derive)."""
    if t._base is None:
        t._array = arr
        t._version_counter += 1
        return
    with grad_mode(False):
        assign(t, Tensor._make(arr, t._device))


def write_all(tensors, arrays):
    """:func:`write` for each pair (the loop in one call: a step writes many tensors)."""
    for t, arr in zip(tensors, arrays):
        if t._base is None:   # (write's common case, without a call per tensor)
            t._array = arr
            t._version_counter += 1
        else:
            write(t, arr)


# ------------------------------------------------------------------ the jitted step program
def _to_real(x):
    return jnp.stack([x.real, x.imag], axis=-1)


def _to_complex(x, dtype):
    return (x[..., 0] + 1j * x[..., 1]).astype(dtype)


@functools.partial(jax.jit, static_argnums=(0, 1))
def _jit_step(chain, flags, params, grads, columns, hyper):
    # the per-parameter state dicts of the chain's stateful link (columns: fewer pytree nodes
    # to pass in and out of the jitted call than one dict per parameter)
    states = [{name: column[i] for name, column in columns.items() if column[i] is not None}
              for i in range(len(params))]
    # complex parameters are updated through their real view, as PyTorch's view_as_real
    is_complex = [jnp.iscomplexobj(p) for p in params]
    if any(is_complex):
        dtypes = [p.dtype for p in params]
        real_shapes = [p.shape + (2,) for p in params]
        states = [{k: _to_real(s) if c and s.shape == p.shape and jnp.iscomplexobj(s) else s
                   for k, s in st.items()}
                  for c, p, st in zip(is_complex, params, states)]
        params = [_to_real(p) if c else p for c, p in zip(is_complex, params)]
        grads = [_to_real(g) if c else g for c, g in zip(is_complex, grads)]
    links = chain(hyper, flags)
    tx = optax.chain(*(lk.tx for lk in links))
    chain_state = tuple(states if lk.stateful else lk.tx.init(params) for lk in links)
    updates, new_chain_state = tx.update(grads, chain_state, params)
    new_params = optax.apply_updates(params, updates)
    written = next((s for lk, s in zip(links, new_chain_state) if lk.stateful),
                   [{} for _ in params])
    if any(is_complex):
        new_params = [_to_complex(p, d) if c else p
                      for c, p, d in zip(is_complex, new_params, dtypes)]
        # state made from a complex parameter's real view (also entries created this step)
        written = [{k: _to_complex(s, d) if c and s.shape == sh else s for k, s in st.items()}
                   for c, st, d, sh in zip(is_complex, written, dtypes, real_shapes)]
    names = {}
    for entries in written:
        names.update(entries)
    return new_params, {name: [entries.get(name) for entries in written] for name in names}


_SCALARS = {}   # (tuple type, the values' bits, device) -> the tuple as device arrays


def device_scalars(values, device=None):
    """A tuple (a namedtuple too) of Python floats as arrays on ``device`` (None: uncommitted,
    on the default device), reused while the values are the same to the bit: a Python float
    passed to a jitted program is converted at every call (about 2 us each on the CPU, a
    host-to-device copy on a GPU). The arrays have the floats' avals (weak float64 scalars),
    so the program is the same. Anything but floats (tracers inside a compiled step), and
    floats met inside a JAX transformation (where device_put makes tracers), are returned as
    they are."""
    if not values or not all(type(v) is float for v in values):
        return values
    key = (type(values), tuple(map(float.hex, values)), device)
    got = _SCALARS.get(key)
    if got is None:
        if len(_SCALARS) >= 256:   # (a schedule makes a new value every step)
            _SCALARS.clear()
        arrays = [jax.device_put(v, device) for v in values]
        if isinstance(arrays[0], jax.core.Tracer):   # under the user's jax.jit: not kept
            return values
        got = _SCALARS[key] = values._make(arrays) if hasattr(values, "_make") \
            else tuple(arrays)
    return got


def run_step(chain, flags, params, grads, columns, hyper):
    """Run the group's chain ``chain(hyper, flags) -> [Link]`` on parameter and gradient
    arrays and the group's state by name, ``{name: [array per parameter, None where a
    parameter has no such entry]}``; the chain's update functions see one ``{name: array}``
    dict per parameter. Returns (new parameter arrays, the entries written, in the same
    by-name layout)."""
    device = committed_device(params, grads, columns)
    grads, columns = commit_to(device, grads, columns)
    hyper = device_scalars(hyper, device)
    return _jit_step(chain, flags, params, grads, columns, hyper)


def compiled_count():
    """How many programs the step function has compiled (for recompilation tests)."""
    return _jit_step._cache_size()


# ------------------------------------------------------------------ links
def _no_init(params):
    raise NotImplementedError("jtorch: optimizer state is initialised on the PyTorch side "
                              "(the optimizer's _init_state)")


def per_parameter(update, hyper, flags):
    """The stateful link: ``update(g, p, state, hyper, flags)`` returns ``(update, written)``
    for one parameter, ``state`` and ``written`` dicts keyed by PyTorch's state names."""

    def update_fn(updates, states, params=None):
        outs = [update(g, p, st, hyper, flags) for g, p, st in zip(updates, params, states)]
        return [u for u, _ in outs], [written for _, written in outs]

    return Link(optax.GradientTransformation(_no_init, update_fn), stateful=True)


def optax_state_entry(tx, name, field):
    """The stateful link of an optax transform whose state is a NamedTuple with one pytree
    ``field``: PyTorch's state entry ``name`` holds that field (zeros where it does not
    exist yet)."""

    def update_fn(updates, states, params=None):
        current = [jnp.zeros_like(g) if st.get(name) is None else st[name]
                   for g, st in zip(updates, states)]
        new_updates, new_state = tx.update(updates, tx.init(updates)._replace(**{field: current}),
                                           params)
        return new_updates, [{name: v} for v in getattr(new_state, field)]

    return Link(optax.GradientTransformation(_no_init, update_fn), stateful=True)


def stateless(tx):
    return Link(tx)


def with_weight_decay(core, hyper, flags):
    """The chain around an optimizer's ``core`` links: maximize (negate the gradient) and
    coupled weight decay before them, decoupled weight decay after them (PyTorch multiplies
    the parameter by ``1 - lr * wd`` before its step: the same decay as optax's
    ``add_decayed_weights`` on the update). Reads ``flags.maximize``, ``flags.weight_decay``
    and, when it is not ``NONE``, ``hyper.weight_decay`` (and ``hyper.lr``)."""
    links = []
    if flags.maximize:
        links.append(stateless(optax.scale(-1.0)))
    if flags.weight_decay is WeightDecay.COUPLED:
        links.append(stateless(optax.add_decayed_weights(hyper.weight_decay)))
    links.extend(core)
    if flags.weight_decay is WeightDecay.DECOUPLED:
        links.append(stateless(optax.add_decayed_weights(-(hyper.lr * hyper.weight_decay))))
    return links


def update_chain(update):
    """The chain ``(hyper, flags) -> [Link]`` of an optimizer whose core is its per-parameter
    ``update`` (see :func:`per_parameter`), with maximize and weight decay around it."""

    def chain(hyper, flags):
        return with_weight_decay([per_parameter(update, hyper, flags)], hyper, flags)

    return chain


# ------------------------------------------------------------------ PyTorch's arithmetic
def scalar_as(value, like):
    """A float64 scalar computed as PyTorch does in Python, cast to ``like``'s dtype."""
    return jnp.asarray(value).astype(like.dtype)


def as_float64(step):
    return step.astype(jnp.float64)


def addcmul(s, t1, t2, v):
    return s + v * t1 * t2


def addcdiv(s, t1, t2, v):
    return s + v * t1 / t2
