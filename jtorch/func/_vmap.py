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
from types import SimpleNamespace

import jax
import jax.numpy as jnp

from .._core import generator as _random
from .._tensor import Tensor
from ..utils import _pytree as pt
from ._core import note, run, transform_wraps, wrap

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


def _process_inputs(in_dims, args, func):
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


def _vmap_impl(func, in_dims, out_dims, randomness, chunk_size, args, kwargs):
    _check_out_dims(out_dims, func)
    size, flat_dims, flat_args, spec = _process_inputs(in_dims, args, func)
    name = _get_name(func)
    kw_leaves, kw_spec = pt.tree_flatten(kwargs)
    t_pos = [i for i, a in enumerate(flat_args) if isinstance(a, Tensor)]
    k_pos = [i for i, a in enumerate(kw_leaves) if isinstance(a, Tensor)]
    tensors = [flat_args[i] for i in t_pos] + [kw_leaves[i] for i in k_pos]
    axes = [flat_dims[i] for i in t_pos] + [None] * len(k_pos)
    side = SimpleNamespace()

    def pure(keys, *arrays):
        leaves = list(flat_args)
        for p, a in zip(t_pos, arrays):
            leaves[p] = wrap(a, flat_args[p])
        kws = list(kw_leaves)
        for p, a in zip(k_pos, arrays[len(t_pos):]):
            kws[p] = wrap(a, kw_leaves[p])
        with rng_mode(randomness, keys):
            out = func(*pt.tree_unflatten(leaves, spec), **pt.tree_unflatten(kws, kw_spec))
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
