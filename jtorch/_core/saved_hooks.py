"""Hooks on saved tensors (``torch.autograd.graph.saved_tensors_hooks``): the core's half.

While a ``saved_tensors_hooks(pack_hook, unpack_hook)`` block runs (``STATE.saved_hooks``, its
innermost pair applies), each node recorded keeps ``pack_hook(tensor)`` instead of the value of
every tensor its backward reads, and its backward gets the values back from
``unpack_hook(packed)`` (each time it runs: a ``retain_graph`` backward unpacks again).

Which tensors are packed: those whose values the node's gradient formula reads. jtorch's formula
of an op is the vjp of its kernel (``Kernel.make_vjp``), so these are the tensor inputs that
vjp's jaxpr still reads after dead-code elimination (found once per kernel and set of
differentiated slots, with every cotangent present): ``mul`` packs the other factor of each
input that needs a gradient, ``matmul`` likewise, ``add`` and ``sum`` nothing, ``x[idx]`` its
index. Where PyTorch's formula reads an output instead (``exp``, ``tanh``, ``relu``), jtorch's
recomputes it from the input, so the input is packed (same shape, other values). The inputs the
formula does not read are dropped from the node too (their shapes are kept; the backward gets
zeros in their place), so a node under ``save_on_cpu`` holds nothing on the device.

As in PyTorch: pack hooks run with grad mode off and must not modify their input in place;
an unpack hook must return a Tensor; the saved tensors' version counters are not checked (the
hooks own the values); a backward without ``retain_graph`` frees the packed objects.
"""

from __future__ import annotations

import threading

import jax
import jax.numpy as jnp
from jax.interpreters import partial_eval as pe

from .state import STATE, grad_mode, swapped
from .tensor_base import TensorBase

_INPLACE = ("A saved tensor pack hook is modifying its input in place. Tensors provided as input "
            "to pack hook cannot be modified by in-place operations as this can lead to "
            "unexpected side-effects. Please open an issue if you need to perform in-place "
            "operations on the input to a pack hook.")


# ------------------------------------------------------------------ the hooks' stack
def push(pack_hook, unpack_hook):
    """Enter a ``saved_tensors_hooks`` block (PyTorch's error when hooks are disabled)."""
    if STATE.saved_hooks_disabled is not None:
        raise RuntimeError(STATE.saved_hooks_disabled)
    STATE.saved_hooks = (*STATE.saved_hooks, (pack_hook, unpack_hook))


def pop():
    """Leave the innermost ``saved_tensors_hooks`` block."""
    STATE.saved_hooks = STATE.saved_hooks[:-1]


def disabled_message():
    """``disable_saved_tensors_hooks``'s message, or None when hooks are allowed."""
    return STATE.saved_hooks_disabled


def disable(message, fail_if_non_empty=True):
    """Refuse new hooks with ``message``; raises it at once when hooks are active (PyTorch's
    ``fail_if_non_empty``)."""
    STATE.saved_hooks_disabled = message
    if fail_if_non_empty and STATE.saved_hooks:
        raise RuntimeError(message)


def enable():
    STATE.saved_hooks_disabled = None


def suspended():
    """``with suspended(): ...`` records without the active hooks (a checkpointed segment's
    own run: PyTorch's checkpoint keeps the user's hooks away from the segment's ops too)."""
    return swapped(STATE, "saved_hooks", ())


def refuse_opaque(name):
    """A node whose saved values JAX keeps inside a vjp (a compiled region, torch.cond...)
    is being recorded: raise while hooks are active, since they could not see its values."""
    if STATE.saved_hooks:
        raise RuntimeError(
            f"jtorch: saved_tensors_hooks cannot reach the tensors {name} saves: JAX "
            "differentiated this region (a jtorch.compile'd module or function, torch.cond, "
            "torch.while_loop) as a whole, and the values its backward needs live inside the "
            "region's vjp, out of the hooks' reach. Call the region outside the "
            "saved_tensors_hooks / save_on_cpu block, or compile the whole training step "
            "(forward and backward) with jtorch.compile, whose trace runs the hooks.")


# ------------------------------------------------------------------ packing and unpacking
def pack_tensor(pack_hook, t):
    """``pack_hook(t)`` with grad mode off; PyTorch's error if it modified ``t`` in place."""
    version = t._version
    with grad_mode(False):
        packed = pack_hook(t)
    if t._version != version:
        raise RuntimeError(_INPLACE)
    return packed


def unpack_tensor(unpack_hook, packed):
    """``unpack_hook(packed)``, which must be a Tensor (PyTorch's TypeError otherwise)."""
    t = unpack_hook(packed)
    if not isinstance(t, TensorBase):
        raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got "
                        f"result of type {type(t).__name__}")
    return t


def writing(t):
    """``with writing(t): ...`` runs the out-of-place half of an in-place op on ``t``: its node
    packs a tensor of ``t``'s value before the write instead of ``t`` (PyTorch's in-place
    formulas save a clone of the original ``self``), since ``t`` itself changes next."""
    return swapped(_WRITTEN, "t", t)


class _Written(threading.local):
    t = None


_WRITTEN = _Written()


def pack_node(node, tens, outs):
    """Replace the values ``node``'s backward reads by the innermost pack hook's results, and
    drop those it does not read (``tens``: the tensor of each slot or None; ``outs``: the
    node's output arrays)."""
    pack_hook, unpack_hook = STATE.saved_hooks[-1]
    vals = list(node.vals)
    reads = _reads(node.kernel, node.diff, vals, outs, node.out_float)
    packed, holes = {}, {}
    # PyTorch saves (so packs, and unpacks) in the order its formulas first name the values:
    # a bilinear op's (mul, mm: "others") formula for self reads other, so other comes first
    order = range(len(tens))
    if node.kernel.opdef.saves == "others":
        order = reversed(order)
    for i in order:
        t = tens[i]
        v = vals[i]
        if t is None or not hasattr(v, "shape"):
            continue   # a Python number or a plain array argument (a generator key): kept
        if reads[i]:
            if t is _WRITTEN.t:
                t = TensorBase._make(v, t._device)
            packed[i] = pack_tensor(pack_hook, t)
        holes[i] = (v.shape, v.dtype, None if isinstance(v, jax.core.Tracer) else v.sharding,
                    t._device)
        vals[i] = None
    node.vals = tuple(vals)
    node.packed = (unpack_hook, packed, holes)
    # the hooks own the values now: PyTorch checks no versions of hooked saved tensors
    node.saved_out = None
    if node.saved:
        node.saved = []


def unpack_node(node):
    """The values of ``node``'s slots for its backward: unpacked, or zeros where the
    backward reads none."""
    unpack_hook, packed, holes = node.packed
    vals = list(node.vals)
    for i, (shape, dtype, sharding, device) in holes.items():
        if i not in packed:
            vals[i] = (jnp.zeros(shape, dtype) if sharding is None
                       else jnp.zeros(shape, dtype, device=sharding))
            continue
        t = unpack_tensor(unpack_hook, packed[i])
        if tuple(t.shape) != tuple(shape) or t._device != device:
            raise RuntimeError(
                f"jtorch: the saved tensor unpack_hook of {type(node).__name__} returned a "
                f"tensor of shape {list(t.shape)} on {t._device} for one saved with shape "
                f"{list(shape)} on {device}: unpack_hook(pack_hook(t)) must give back t's "
                "values, size and device.")
        a = t._value
        vals[i] = a if a.dtype == dtype else a.astype(dtype)
    return tuple(vals)


def _reads(kernel, diff, vals, outs, out_float):
    """Per slot, whether the vjp of ``kernel`` for ``diff`` reads its value (dead-code
    elimination of the vjp's jaxpr with every cotangent present; cached on the kernel)."""
    key = ("reads", diff)
    hit = kernel.backward_ops.get(key)
    if hit is None:
        vjp = kernel.make_vjp(diff)

        def spec(x):
            return jax.ShapeDtypeStruct(x.shape, x.dtype) if hasattr(x, "shape") else x

        cts = tuple(spec(o) for o, f in zip(outs, out_float) if f)
        jaxpr = jax.make_jaxpr(lambda v, c: tuple(vjp(v, c)))(
            tuple(spec(v) for v in vals), cts).jaxpr
        hit = pe.dce_jaxpr(jaxpr, [True] * len(jaxpr.outvars))[1][:len(vals)]
        hit = kernel.backward_ops[key] = tuple(hit)
    return hit
