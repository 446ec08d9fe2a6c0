"""torch.func.vmap on jax.vmap: ``in_dims``/``out_dims`` as pytree prefixes, ``chunk_size``,
and ``randomness`` through the default generator.

The function sees per-example Tensors (their arrays are JAX batch tracers, so ``x.shape`` has no
batch dimension). Randomness: with ``"error"`` the default generator is swapped for one that
raises PyTorch's error when a random op asks it for a key; with ``"different"`` it holds one key
per example (a batched tracer), so every example draws its own numbers; with ``"same"`` it is
left alone, and a random op draws one sample that every example shares. Random ops given an
explicit ``generator=`` are not covered by ``"error"``/``"different"``.
"""

from __future__ import annotations

import contextlib
import functools
import weakref
from types import SimpleNamespace

import jax
import jax.numpy as jnp
from jax._src import core as jax_core

from .._core import generator as _random
from .._core.errors import not_implemented
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..utils import _pytree as pt
from ..utils._pytree import _broadcast_to_and_flatten, tree_flatten, tree_unflatten
from ._core import note, run, transform_wraps, wrap
from ._function_vmap import ACTIVE_LEVELS

# this module is also ``torch._functorch.vmap`` (jtorch/_functorch/__init__.py): a library may
# replace its hooks ``_process_batched_inputs`` and ``_create_batched_inputs`` there (tensordict
# does, to map over TensorDicts), and each vmap call reads them from here
__all__ = ["Tensor", "_add_batch_dim", "_broadcast_to_and_flatten", "_create_batched_inputs",
           "_get_name", "_maybe_remove_batch_dim", "_process_batched_inputs",
           "_remove_batch_dim", "tree_flatten", "tree_unflatten", "vmap"]

_RANDOM_ERROR = ("vmap: called random operation while in randomness error mode. Please either "
                 "use the 'same' or 'different' randomness flags on vmap or perform the "
                 "randomness operation out of vmap")


def check_randomness(randomness):
    if randomness not in ("error", "different", "same"):
        raise RuntimeError("Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")


class _ErrorKey:
    """Stands in for the default generator's key under ``randomness="error"``."""

    def __getattr__(self, name):
        raise RuntimeError(_RANDOM_ERROR)

    def __setattr__(self, name, value):
        raise RuntimeError(_RANDOM_ERROR)


class _RngMode:
    """``with rng_mode(randomness, key)`` around the batched call of the user's function."""

    @contextlib.contextmanager
    def __call__(self, randomness, key):
        gen = _random.default_generator
        saved = gen._key_tensor
        if randomness == "error":
            gen._key_tensor = _ErrorKey()
        elif randomness == "different":
            gen._key_tensor = Tensor._make(key)
        try:
            yield
        finally:
            gen._key_tensor = saved

    @staticmethod
    def batch_keys(randomness, n):
        """One key per example for ``"different"`` (advancing the generator once), else None."""
        if randomness != "different":
            return None
        sub = _random.default_generator.next_key()
        return jax.random.key_data(jax.random.split(_random.wrap(sub), n))


rng_mode = _RngMode()


def _get_name(func):
    if hasattr(func, "__name__"):
        return func.__name__
    if isinstance(func, functools.partial):
        return f"functools.partial({_get_name(func.func)}, ...)"
    return repr(func)


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """``torch.func.vmap``: ``func`` mapped over dimension ``in_dims`` of its inputs (a pytree
    prefix of the positional arguments; None for unbatched), with the mapped dimension at
    ``out_dims`` of the outputs. Keyword arguments are passed unbatched."""
    check_randomness(randomness)
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @transform_wraps(func)
    def wrapped(*args, **kwargs):
        return _vmap_impl(func, in_dims, out_dims, randomness, chunk_size, args, kwargs)

    return wrapped


def _check_out_dims(out_dims, func):
    if isinstance(out_dims, int):
        return
    leaves, _ = pt.tree_flatten(out_dims)
    for x in leaves:
        if x is not None and not isinstance(x, int):
            raise ValueError(f"vmap({_get_name(func)}, ..., out_dims={out_dims}): `out_dims` "
                             "must be an int, None or a python collection of ints representing "
                             "where in the outputs the vmapped dimension should appear.")


def _process_batched_inputs(in_dims, args, func):
    """PyTorch's checks of ``in_dims`` against the inputs; (batch size, flat in_dims, flat
    args, spec)."""
    name = _get_name(func)
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` "
                         "to be int or a (potentially nested) tuple matching the structure of "
                         f"inputs, got: {type(in_dims)}.")
    if len(args) == 0:
        raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add "
                         "inputs, or you are trying to vmap over a function with no inputs. "
                         "The latter is unsupported.")
    flat_args, spec = pt.tree_flatten(args)
    flat_dims = pt._broadcast_to_and_flatten(in_dims, spec)
    if flat_dims is None:
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not "
                         "compatible with the structure of `inputs`. in_dims has structure "
                         f"{pt.tree_flatten(in_dims)[1]} but inputs has structure {spec}.")
    for i, (arg, d) in enumerate(zip(flat_args, flat_dims)):
        if not isinstance(d, int) and d is not None:
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} "
                             "for an input but in_dim must be either an integer dimension or "
                             "None.")
        if isinstance(d, int) and not isinstance(arg, Tensor):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} "
                             f"for an input but the input is of type {type(arg)}. We cannot "
                             "vmap over non-Tensor arguments, please use None as the respective "
                             "in_dim")
        if d is not None and (d < -arg.dim() or d >= arg.dim()):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} "
                             "for some input, but that input is a Tensor of dimensionality "
                             f"{arg.dim()} so expected in_dim to satisfy -{arg.dim()} <= in_dim "
                             f"< {arg.dim()}.")
        if d is not None and d < 0:
            flat_dims[i] = d % arg.dim()
    sizes = [a.size(d) for a, d in zip(flat_args, flat_dims) if d is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    return sizes[0], flat_dims, flat_args, spec


def _flat_out_dims(out, spec, out_dims, func):
    def incompatible():
        raise ValueError(f"vmap({_get_name(func)}, ..., out_dims={out_dims})(<inputs>): "
                         "out_dims is not compatible with the structure of `outputs`. out_dims "
                         f"has structure {pt.tree_flatten(out_dims)[1]} but outputs has structure "
                         f"{spec}.")

    if isinstance(out, Tensor):
        if isinstance(out_dims, int) or out_dims is None:
            return [out_dims]
        if isinstance(out_dims, tuple) and len(out_dims) == 1:
            return list(out_dims)
        incompatible()
    dims = pt._broadcast_to_and_flatten(out_dims, spec)
    if dims is None:
        incompatible()
    return dims


class _Level:
    """One vmap call in progress: the tensors it maps (and those it passes unmapped), and,
    while its function runs, their per-example Tensors, which ``_add_batch_dim`` hands out."""

    def __init__(self, number):
        self.number = number
        self.inputs, self.index, self.values = [], {}, None

    def register(self, tensor, in_dim):
        key = (id(tensor), in_dim)
        if key not in self.index:
            self.index[key] = len(self.inputs)
            self.inputs.append((tensor, in_dim))
        return key

    def add(self, tensor, in_dim):
        """The per-example Tensor of ``tensor`` at this level: one object per (tensor, in_dim,
        level), whose array each call of the function re-points (as PyTorch's BatchedTensor
        is a view that stays valid, so a library may cache it: tensordict does, per level,
        on locked TensorDicts)."""
        if self.values is None:   # the first pass, finding the tensors: a shape stand-in
            self.register(tensor, in_dim)
            with no_grad():
                return self.holder(tensor, in_dim, tensor.select(in_dim, 0))
        return self.holder(tensor, in_dim, self.values[self.index[(id(tensor), in_dim)]])

    def holder(self, tensor, in_dim, value):
        """``tensor``'s per-example Tensor here, now holding ``value``'s array."""
        entry = _HOLDERS.get(id(tensor))
        if entry is None or entry[0]() is not tensor:
            entry = _HOLDERS[id(tensor)] = (weakref.ref(tensor, _forget(id(tensor))), {})
        held = entry[1].get((in_dim, self.number))
        if held is None:
            held = entry[1][(in_dim, self.number)] = wrap(value._value, tensor)
            _SOURCES[id(held)] = (entry[0], in_dim)
        else:
            held._array = value._value
        return held

    def unmapped(self, tensor):
        """What the function gets for ``tensor``, passed unmapped: ``tensor`` itself when
        its array comes through unchanged (no transform around this vmap traces it), so its
        autograd history stays usable inside (``autograd.grad`` of it, as PyTorch allows),
        else a Tensor of the traced array (a gradient through the vmap reaches ``tensor``)."""
        value = self.values[self.index[(id(tensor), None)]]
        return tensor if value._array is tensor._value else value

    def begin(self, arrays, tensors):
        """A call of the function: the inputs' per-example Tensors (mapped ones re-pointed)."""
        self.values = [wrap(a, t) for a, t in zip(arrays, tensors)]
        for (t, d), v in zip(self.inputs, self.values):
            if d is not None:
                self.holder(t, d, v)


# id(tensor) -> (weakref to it, {(in_dim, level): its per-example Tensor}); a Tensor's
# __eq__ is elementwise, so not a WeakKeyDictionary. _SOURCES: id(per-example Tensor) ->
# (weakref to its tensor, in_dim), to find the tensors of a library's cached container
_HOLDERS, _SOURCES = {}, {}


def _forget(key):
    def forget(_):
        for held in _HOLDERS.pop(key, (None, {}))[1].values():
            _SOURCES.pop(id(held), None)
    return forget


_LEVELS = []   # the vmap calls whose inputs are being made (innermost last)


def _add_batch_dim(tensor, in_dim, level):
    """``torch._C._functorch._add_batch_dim``: the per-example view of ``tensor`` (mapped over
    ``in_dim``) inside vmap ``level``; only while that vmap makes its function's inputs
    (``_create_batched_inputs``), where jtorch's per-example tensors exist."""
    for lv in reversed(_LEVELS):
        if lv.number == level:
            return lv.add(tensor, in_dim)
    raise not_implemented("torch._C._functorch._add_batch_dim outside torch.func.vmap's "
                          "_create_batched_inputs")


def _remove_batch_dim(tensor, level, batch_size, out_dim):
    raise not_implemented("torch._C._functorch._remove_batch_dim", "torch.func.vmap")


def _maybe_remove_batch_dim(name, batched_output, vmap_level, batch_size, out_dim):
    raise not_implemented("torch._functorch.vmap._maybe_remove_batch_dim", "torch.func.vmap")


def _create_batched_inputs(flat_in_dims, flat_args, vmap_level, args_spec):
    """The function's arguments: each mapped input by ``_add_batch_dim`` (PyTorch's hook)."""
    return tree_unflatten([a if d is None else _add_batch_dim(a, d, vmap_level)
                           for a, d in zip(flat_args, flat_in_dims)],
                          args_spec)


def _vmap_impl(func, in_dims, out_dims, randomness, chunk_size, args, kwargs):
    _check_out_dims(out_dims, func)
    size, flat_dims, flat_args, spec = _process_batched_inputs(in_dims, args, func)
    name = _get_name(func)
    level = _Level(len(_LEVELS) + 1)
    unmapped = {}   # an unmapped input holding Tensors (a TensorDict): its pytree leaves
    for i, (a, d) in enumerate(zip(flat_args, flat_dims)):
        if isinstance(a, Tensor):
            level.register(a, d)
        elif d is None:
            sub, sub_spec = pt.tree_flatten(a)
            if any(isinstance(x, Tensor) and x is not a for x in sub):
                unmapped[i] = ([level.register(x, None) if isinstance(x, Tensor) else x
                                for x in sub], sub_spec)
    if any(d is not None and not isinstance(a, Tensor) for a, d in zip(flat_args, flat_dims)):
        _LEVELS.append(level)   # a tensor collection: find the tensors it maps
        try:
            made = _create_batched_inputs(flat_dims, flat_args, level.number, spec)
        finally:
            _LEVELS.pop()
        for x in pt.tree_flatten(made)[0]:   # (a container cached by the library, too)
            source = _SOURCES.get(id(x)) if isinstance(x, Tensor) else None
            if source is not None and source[0]() is not None:
                level.register(source[0](), source[1])
    kw_leaves, kw_spec = pt.tree_flatten(kwargs)
    k_pos = [i for i, a in enumerate(kw_leaves) if isinstance(a, Tensor)]
    n_in = len(level.inputs)
    tensors = [t for t, _ in level.inputs] + [kw_leaves[i] for i in k_pos]
    axes = [d for _, d in level.inputs] + [None] * len(k_pos)
    side = SimpleNamespace()

    def pure(keys, *arrays):
        level.begin(arrays, tensors)
        leaves = [level.unmapped(a) if d is None and isinstance(a, Tensor) else a
                  for a, d in zip(flat_args, flat_dims)]
        for i, (sub, sub_spec) in unmapped.items():   # Tensors as inputs, for their grads
            leaves[i] = pt.tree_unflatten([level.unmapped(level.inputs[level.index[x]][0])
                                           if type(x) is tuple else x for x in sub], sub_spec)
        kws = list(kw_leaves)
        for p, v in zip(k_pos, level.values[n_in:]):
            kws[p] = v
        _LEVELS.append(level)
        try:
            inputs = _create_batched_inputs(flat_dims, leaves, level.number, spec)
        finally:
            _LEVELS.pop()
            level.values = None
        ACTIVE_LEVELS.append((jax_core.trace_ctx.trace, randomness))
        try:
            with rng_mode(randomness, keys):
                out = func(*inputs, **pt.tree_unflatten(kws, kw_spec))
        finally:
            ACTIVE_LEVELS.pop()
        outs, side.out_spec = pt.tree_flatten(out)
        note(outs)
        dims = _flat_out_dims(out, side.out_spec, out_dims, func)
        batched, unbatched, plan = [], [], []
        for o, d in zip(outs, dims):
            if d is None:
                if isinstance(o, Tensor):
                    plan.append(("u", len(unbatched), None))
                    unbatched.append(o._value)
                else:
                    plan.append(("s", o, None))
            else:
                if not isinstance(o, Tensor):
                    raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, "
                                     f"got type {type(o)}. Did you mean to set out_dims= to "
                                     "None for output?")
                plan.append(("b", len(batched), d))
                batched.append(o._value)
        side.plan = plan
        return batched, unbatched
    def call(arrays, n):
        keys = rng_mode.batch_keys(randomness, n)
        mapped = jax.vmap(pure, in_axes=(None if keys is None else 0, *axes),
                          out_axes=(0, None), axis_size=n)
        try:
            return mapped(keys, *arrays)
        except ValueError as e:
            if "got axis spec None but output was batched" not in str(e):
                raise
            raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor "
                             "when out_dim is None") from None

    def compute(*arrays):
        if chunk_size is None or chunk_size >= size:
            b, u = call(arrays, size)
        else:
            state = _random.get_rng_state() if randomness == "same" else None
            parts = []
            for start in range(0, size, chunk_size):
                n = min(chunk_size, size - start)
                if state is not None:
                    _random.set_rng_state(state)
                parts.append(call([a if d is None else
                                   jax.lax.slice_in_dim(a, start, start + n, axis=d)
                                   for a, d in zip(arrays, axes)], n))
            b = [jnp.concatenate([p[0][i] for p in parts]) for i in range(len(parts[0][0]))]
            u = parts[0][1]
        dims = [d for kind, _, d in side.plan if kind == "b"]
        return [*(_move_out(x, d) for x, d in zip(b, dims)), *u]

    res = run(compute, tensors, "VmapBackward")
    nb = sum(1 for kind, _, _ in side.plan if kind == "b")
    flat = [res[i] if kind == "b" else res[nb + i] if kind == "u" else i
            for kind, i, _ in side.plan]
    return pt.tree_unflatten(flat, side.out_spec)


def _move_out(x, d):
    n = x.ndim
    if not -n <= d < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {d})")
    return jnp.moveaxis(x, 0, d)
