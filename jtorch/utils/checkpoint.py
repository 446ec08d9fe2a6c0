"""torch.utils.checkpoint: trade compute for memory by recomputing a segment in backward.

Eager algorithm (both ``use_reentrant`` modes): run the segment once with grad enabled to
find the tensors it differentiates against (its tensor arguments that require grad, plus the
leaves it reaches through closures, e.g. a module's parameters), then drop that graph so the
segment's activations are freed, and record ONE node whose backward re-runs the segment
(with the random state it saw, when ``preserve_rng_state``) and backpropagates through the
recomputed graph. Outputs and gradients equal those without checkpointing, dropout included.
Inside a compiled step (``jtorch.compile``), the segment maps onto ``jax.checkpoint``.

Difference: PyTorch's reentrant variant gives no gradients when no tensor argument requires
grad (and warns); jtorch mirrors that for ``use_reentrant=True`` and differentiates closure
parameters for ``use_reentrant=False``, as PyTorch does.
"""

from __future__ import annotations

import contextlib
import warnings

import jax

from .. import autograd
from .._core import saved_hooks
from .._core.errors import torch_name_fallback
from .._core.generator import default_generator
from .._core.graph import AccumulateGrad, edge_of
from .._core.python_node import record_pullback, record_python_node
from .._core.state import STATE, tape_off
from .._tensor import Tensor
from ..nn.modules.container import Sequential
from ._pytree import tree_leaves, tree_map as tree_map  # tree_map: PyTorch's re-export

__all__ = ["checkpoint", "checkpoint_sequential", "get_device_states", "noop_context_fn",
           "set_device_states"]


def noop_context_fn():
    return contextlib.nullcontext(), contextlib.nullcontext()


def get_device_states(*args):
    """``(device ids, rng states)``: the index of every non-CPU tensor among ``args`` (nested
    containers too, once per tensor as in PyTorch) and its device's generator state.
    jtorch's one generator serves every device, so each state is its state."""
    ids = [a.get_device() for a in tree_leaves(args)
           if isinstance(a, Tensor) and a.device.type not in ("cpu", "meta")]
    return ids, [default_generator.get_state() for _ in ids]


def set_device_states(devices, states, *, device_type=None):
    """Restores the states ``get_device_states`` returned (into jtorch's one generator)."""
    for _, state in zip(devices, states):
        default_generator.set_state(state)


def _flat(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def _pack(kind, flat):
    return flat[0] if kind is None else kind(flat)


def _leaves(outputs, stop):
    """The leaf tensors requiring grad that ``outputs``' graph reaches, not walking past the
    edges in ``stop`` (the segment's own tensor arguments)."""
    leaves, seen, todo = {}, set(), [o._node for o in outputs if o._node is not None]
    while todo:
        node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        for e in getattr(node, "edges", None) or ():
            if e is None or (id(e[0]), e[1]) in stop:
                continue
            if isinstance(e[0], AccumulateGrad):
                v = e[0].variable
                leaves[id(v)] = v
            else:
                todo.append(e[0])
    return list(leaves.values())


def _put_arrays(tensors, arrays):
    """Each tensor takes the matching array, as an in-place write would (a new version)."""
    for t, a in zip(tensors, arrays):
        t._array = a
        t._version_counter += 1


def _warn_no_grad():
    warnings.warn("None of the inputs have requires_grad=True. Gradients will be None",
                  stacklevel=3)


def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn,
               determinism_check="default", debug=False, early_stop=True, **kwargs):
    """Run ``function(*args, **kwargs)`` without keeping its activations for backward."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
            "Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an "
            "exception. use_reentrant=False is recommended, but if you need to preserve the "
            "current default behavior, you can pass use_reentrant=True. Refer to docs for "
            "more details on the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant and (context_fn is not noop_context_fn or debug is not False):
        raise ValueError("Passing `context_fn` or `debug` is only supported when "
                         "use_reentrant=False.")
    if not STATE.grad_enabled:
        return function(*args, **kwargs)
    tensor_args = [a for a in args if isinstance(a, Tensor) and a._requires_grad]
    if use_reentrant and not tensor_args:
        _warn_no_grad()
        with autograd.no_grad():
            return function(*args, **kwargs)
    traced = STATE.trace is not None
    if traced:  # inside jtorch.compile: this run only finds the leaves; jax.checkpoint runs it
        lifted = list(STATE.trace.lifted_tensors())
        snap = [t._array for t in lifted]
    rng = default_generator.get_state() if preserve and not traced else None
    fwd_ctx, recompute_ctx = context_fn()
    with fwd_ctx, saved_hooks.suspended():  # (PyTorch's checkpoint keeps saved-tensor hooks
        out = function(*args, **kwargs)     # away from the segment's ops too)
    flat = _flat(out)
    kind = type(out) if isinstance(out, (tuple, list)) else None
    diff_out = [o for o in flat if isinstance(o, Tensor) and o._requires_grad]
    if not diff_out:
        return out
    stop = {(id(e[0]), e[1]) for e in (edge_of(a) for a in tensor_args) if e is not None}
    wrt = tensor_args + [v for v in _leaves(diff_out, stop)
                         if not any(v is a for a in tensor_args)]
    if traced:
        _put_arrays(lifted, snap)
        return _remat(function, args, kwargs, wrt, kind)
    detached = [o.detach() if isinstance(o, Tensor) and o._requires_grad else o for o in flat]
    del out, diff_out  # the segment's graph (and its activations) can go now
    saved_args = _saved_args(args)
    del args

    def backward(*grads):
        cur = default_generator.get_state() if preserve else None
        if preserve:
            default_generator.set_state(rng)
        try:
            args = saved_args()
            inputs = [a.detach().requires_grad_(rg) if isinstance(a, Tensor) else a
                      for a, rg in args]
            with autograd.enable_grad(), recompute_ctx, saved_hooks.suspended():
                again = _flat(function(*inputs, **kwargs))
        finally:
            if preserve:
                default_generator.set_state(cur)
        pairs = [(o, g) for o, g in zip(again, grads)
                 if isinstance(o, Tensor) and o._requires_grad and g is not None]
        targets = [x for (a, rg), x in zip(args, inputs) if isinstance(a, Tensor) and rg]
        targets += wrt[len(tensor_args):]
        if not pairs:
            return tuple(None for _ in wrt)
        return tuple(autograd.grad([o for o, _ in pairs], targets, [g for _, g in pairs],
                                   allow_unused=True))

    keep = [i for i, o in enumerate(detached) if isinstance(o, Tensor) and flat[i]._requires_grad]
    record_python_node(detached, wrt, backward, name="CheckpointFunctionBackward",
                       attach=set(keep))
    return _pack(kind, detached)


def _saved_args(args):
    """What the checkpoint node keeps of its arguments: a function giving back each one with
    whether it requires grad. Inside saved_tensors_hooks the tensors go through the hooks
    (packed now, unpacked at each backward), as PyTorch's checkpoint saves them."""
    flags = [isinstance(a, Tensor) and a._requires_grad for a in args]
    if not STATE.saved_hooks:
        return lambda: list(zip(args, flags))
    pack, unpack = STATE.saved_hooks[-1]
    kept = [(True, saved_hooks.pack_tensor(pack, a)) if isinstance(a, Tensor) else (False, a)
            for a in args]

    def unpacked():
        return [(saved_hooks.unpack_tensor(unpack, v) if packed else v, rg)
                for (packed, v), rg in zip(kept, flags)]

    return unpacked


def _remat(function, args, kwargs, wrt, kind):
    """Inside a compiled trace: the segment as ``jax.checkpoint`` of a pure function of its
    inputs, the leaves it differentiates against and the lifted state (generator keys,
    running stats), so XLA keeps only the segment's inputs and recomputes the rest in
    backward. One autograd node routes the vjp's gradients."""
    state = list(STATE.trace.lifted_tensors())
    pos = [i for i, a in enumerate(args) if isinstance(a, Tensor) and a._requires_grad]
    leaves = wrt[len(pos):]
    meta = {}

    def seg(in_arrs, leaf_arrs, state_arrs):
        outer = [t._array for t in state]
        _put_arrays(state, state_arrs)
        _put_arrays(leaves, leaf_arrs)
        new_args = list(args)
        for i, a in zip(pos, in_arrs):
            new_args[i] = Tensor._make(a, args[i]._device)
        try:
            with tape_off():
                out = _flat(function(*new_args, **kwargs))
            new_state = [t._value for t in state]
        finally:
            _put_arrays(state, outer)
        meta["static"] = [None if isinstance(o, Tensor) else o for o in out]
        return [o._value for o in out if isinstance(o, Tensor)], new_state

    outs, pullback, new_state = jax.vjp(
        jax.checkpoint(seg), [args[i]._value for i in pos], [t._value for t in leaves],
        [t._array for t in state], has_aux=True)
    _put_arrays(state, new_state)
    with saved_hooks.suspended():   # it saves the segment's inputs only, as the eager node
        wrapped = record_pullback(outs, pullback, [args[i] for i in pos] + list(leaves),
                                  "CheckpointFunctionBackward")
    it = iter(wrapped)
    flat = [next(it) if s is None else s for s in meta["static"]]
    return _pack(kind, flat)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run a sequence of modules/functions in ``segments`` checkpointed chunks."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should "
            "be passed explicitly. In version 2.9 we will raise an exception if use_reentrant "
            "is not passed. use_reentrant=False is recommended, but if you need to preserve "
            "the current default behavior, you can pass use_reentrant=True. Refer to docs for "
            "more details on the differences between the two variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run(start, end):
        def forward(x):
            for j in range(start, end + 1):
                x = functions[j](x)
            return x

        return forward

    if isinstance(functions, Sequential):
        functions = list(functions.children())
    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run(end + 1, len(functions) - 1)(input)

# a name PyTorch has here and jtorch lacks raises NotImplementedError naming it
__getattr__ = torch_name_fallback("torch.utils.checkpoint")
