"""A custom ``autograd.Function``'s own ``vmap`` staticmethod under ``torch.func.vmap``.

PyTorch calls ``MyFn.vmap(info, in_dims, *args)`` instead of batching the forward when
``MyFn`` overrides ``vmap`` and an input is batched at the innermost vmap level: the
staticmethod gets the tensors with their batch dimensions showing (``in_dims`` says where, with
the arguments' pytree structure, ``None`` for unbatched) and returns ``(output, out_dims)``.
jtorch's vmap is ``jax.vmap``: inside it a batched Tensor holds a ``BatchTracer`` of the
innermost level. :func:`apply_vmap_rule` takes those apart (the value with its batch dimension
and the dimension), runs the staticmethod one level out (the parent trace is current, so a
nested ``apply`` meets the next level's tracers), and gives back the outputs with
``out_dims`` as batch dimensions of the same level: an output with ``None`` leaves the vmap
unbatched, as PyTorch's.
"""

from __future__ import annotations

from typing import NamedTuple

from jax._src import core as jax_core
from jax._src.interpreters import batching

from .._core.tensor_base import TensorBase
from ..autograd.function import register_vmap_rule
from ..utils import _pytree as pt

# (trace, randomness) of the vmap levels whose function is running (innermost last):
# jtorch/func/_vmap.py pushes and pops
ACTIVE_LEVELS = []


class VmapInfo(NamedTuple):
    """The ``info`` a Function's ``vmap`` staticmethod gets, as PyTorch's."""

    batch_size: int
    randomness: str


def _batched_level(args, kwargs):
    """The innermost vmap level's trace when a Tensor among ``args``/``kwargs`` is batched
    there, else None."""
    trace = jax_core.trace_ctx.trace
    if not isinstance(trace, batching.BatchTrace):
        return None
    for leaf in pt.tree_leaves((args, kwargs)):
        if isinstance(leaf, TensorBase):
            arr = leaf._value
            if _of_level(arr, trace) and arr.batch_dim is not None:
                return trace
    return None


def _of_level(arr, trace):
    """Whether ``arr`` is a tracer of the vmap level ``trace`` (JAX's own test)."""
    return isinstance(arr, batching.BatchTracer) and arr._trace.tag is trace.tag


def _unbatch(leaf, trace):
    """``(leaf without this level's batching, its batch dimension or None)``."""
    if isinstance(leaf, TensorBase):
        arr = leaf._value
        if _of_level(arr, trace):   # (batch_dim None: not batched at this level)
            return TensorBase._make(arr.val, leaf._device), arr.batch_dim
    return leaf, None


def apply_vmap_rule(cls, args, kwargs):
    """``cls.apply(*args, **kwargs)`` through ``cls.vmap`` when an input is batched at the
    innermost vmap level, else ``NotImplemented`` (the caller batches the forward)."""
    trace = _batched_level(args, kwargs)
    if trace is None:
        return NotImplemented
    flat, spec = pt.tree_flatten(args)
    pairs = [_unbatch(leaf, trace) for leaf in flat]
    plain_args = pt.tree_unflatten([p for p, _ in pairs], spec)
    in_dims = tuple(pt.tree_unflatten([d for _, d in pairs], spec))
    plain_kwargs = {k: _unbatch(v, trace)[0] for k, v in kwargs.items()}
    randomness = next((r for t, r in reversed(ACTIVE_LEVELS) if t is trace), "error")
    info = VmapInfo(trace.axis_data.size, randomness)
    with jax_core.set_current_trace(trace.parent_trace):
        result = cls.vmap(info, in_dims, *plain_args, **plain_kwargs)
    if not isinstance(result, tuple) or len(result) != 2:
        raise RuntimeError(f"{cls.__name__}.vmap must return a tuple of (output, out_dims), "
                           f"got {type(result).__name__}")
    out, out_dims = result
    flat_out, out_spec = pt.tree_flatten(out)
    dims = pt._broadcast_to_and_flatten(out_dims, out_spec)
    if dims is None:
        raise ValueError(f"{cls.__name__}.vmap: out_dims={out_dims} is not compatible with "
                         f"the structure of the output ({out_spec})")
    rebatched = []
    for o, d in zip(flat_out, dims):
        if d is not None and isinstance(o, TensorBase):
            d = d % max(o.ndim, 1)
            o = TensorBase._make(batching.BatchTracer(trace, o._value, d), o._device)
        rebatched.append(o)
    return pt.tree_unflatten(rebatched, out_spec)


register_vmap_rule(apply_vmap_rule)
