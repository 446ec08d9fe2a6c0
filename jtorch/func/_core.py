"""The seam between torch.func and JAX's transforms.

A transform call flattens its arguments (PyTorch's pytree rules), hands the arrays of the Tensor
leaves to one pure function of arrays built from a JAX transform (``jax.grad``, ``jax.vmap``...),
and wraps the arrays that come back as Tensors. Inside, the user's function sees Tensors that
hold JAX tracers; every jtorch op is a jitted kernel, so it composes with the JAX transform, and
transforms nest by construction (an inner transform flattens Tensors holding the outer tracers).

The Tensors made inside do not require grad, so the jtorch tape records nothing there. When an
argument of the transformed call requires grad (and grad mode is on), the whole call becomes one
node of the jtorch tape whose backward is ``jax.vjp`` of the pure function: ``grad(f)(x)`` with
``x.requires_grad`` can itself be backpropagated, as in PyTorch.
"""

from __future__ import annotations

import contextlib
import functools

import jax
import jax.numpy as jnp
import numpy as np

from .._core import dtypes
from .._core.graph import AccumulateGrad
from .._core.python_node import record_python_node
from .._core.state import STATE, grad_mode, swapped
from .._tensor import Tensor
from ..utils import _pytree as pt


class Inputs:
    """The flattened ``(args, kwargs)`` of a transformed call: ``tensors`` are the Tensor leaves
    (what the pure function takes as arrays); ``rebuild(arrays)`` gives (args, kwargs) back with
    Tensors holding ``arrays`` in their places."""

    def __init__(self, args, kwargs=None):
        self.args = args
        self.kwargs = kwargs or {}
        self.arg_leaves, self.arg_specs, self.arg_offsets = [], [], []
        for a in args:
            leaves, spec = pt.tree_flatten(a)
            self.arg_offsets.append(len(self.arg_leaves))
            self.arg_leaves.extend(leaves)
            self.arg_specs.append(spec)
        self.kw_leaves, self.kw_spec = pt.tree_flatten(self.kwargs)
        self.leaves = self.arg_leaves + self.kw_leaves
        self.tensor_pos = [i for i, x in enumerate(self.leaves) if isinstance(x, Tensor)]
        self.tensors = [self.leaves[i] for i in self.tensor_pos]
        self.index = {p: k for k, p in enumerate(self.tensor_pos)}

    def arrays(self):
        return [t._value for t in self.tensors]

    def positions(self, argnum):
        """Indices into ``tensors`` of the Tensor leaves of positional argument ``argnum``."""
        start = self.arg_offsets[argnum]
        n = self.arg_specs[argnum].num_leaves
        return [self.index[p] for p in range(start, start + n) if p in self.index]

    def rebuild(self, arrays):
        leaves = list(self.leaves)
        for p, a, t in zip(self.tensor_pos, arrays, self.tensors):
            leaves[p] = _wrap_tensor_for_grad(t, a)
        n = len(self.arg_leaves)
        args, i = [], 0
        for spec in self.arg_specs:
            args.append(pt.tree_unflatten(leaves[i:i + spec.num_leaves], spec))
            i += spec.num_leaves
        return tuple(args), pt.tree_unflatten(leaves[n:], self.kw_spec)


def wrap(arr, like=None, device=None):
    """A Tensor (no grad, no history) holding ``arr``, on ``like``'s device."""
    if device is None and like is not None:
        device = like._device
    return Tensor._make(arr, device)


def _wrap_tensor_for_grad(maybe_tensor, level):
    """``torch._functorch.eager_transforms._wrap_tensor_for_grad``: the Tensor a transform's
    function sees for its input ``maybe_tensor``. jtorch passes as ``level`` the traced array
    that stands for the input; the result is a plain Tensor, as PyTorch's wrapper is. A library
    may replace this hook on its module (PyPose's ``retain_ltype`` does, to give its LieTensor
    subclass and ``ltype`` back to the inputs of ``pp.func.jacrev``)."""
    if not isinstance(maybe_tensor, Tensor):
        return maybe_tensor
    return wrap(level, maybe_tensor)


def is_float(x):
    return jnp.issubdtype(x.dtype, jnp.inexact)


@contextlib.contextmanager
def differentiating(arrays):
    """The block where a reverse-mode transform (grad, vjp, jacrev) runs the user's function on
    the traced ``arrays`` it differentiates, as PyTorch's transforms run it: grad mode on (an
    outer ``torch.no_grad()`` does not reach inside), and the arrays' JAX traces recorded in
    ``STATE.grad_traces``, so that ops run under a ``torch.no_grad()`` inside are constants to
    the transform and ``requires_grad`` is True for what depends on the inputs."""
    traces = []
    for a in arrays:
        trace = getattr(a, "_trace", None)
        if trace is not None and not any(trace is t for t in traces):
            traces.append(trace)
    with swapped(STATE, "grad_traces", STATE.grad_traces + tuple(traces)), grad_mode(True):
        yield


def run(compute, tensors, name):
    """``compute(*arrays) -> list of arrays`` on the Tensors' arrays; returns Tensors. When a
    Tensor requires grad (grad mode on), the outputs join the tape through one node whose
    backward is the vjp of ``compute``. Leaf Tensors that require grad and that the function
    reaches without being given them (closed over: a module's own parameters) are found after
    a first run, then lifted into the vjp as extra inputs on a second run."""
    arrays = [t._value for t in tensors]
    device = tensors[0]._device if tensors else None
    with collecting() as found:
        if not (STATE.grad_enabled and any(t._requires_grad for t in tensors)):
            outs = compute(*arrays)
        else:
            outs, pull = jax.vjp(lambda *a: list(compute(*a)), *arrays)
    if found:
        lifted = closure_leaves(found)
        compute = _lifting(compute, len(tensors), lifted)
        tensors = [*tensors, *lifted]
        with collecting() as still:
            outs, pull = jax.vjp(lambda *a: list(compute(*a)), *arrays, *[t._array for t in lifted])
        if still:  # history through a Tensor made before the call: its leaves were not enough
            raise NotImplementedError(
                "jtorch does not implement torch.func transforms of a function that closes "
                "over a non-leaf Tensor that requires grad yet; pass it as an argument")
    res = [wrap(o, device=device) for o in outs]
    if not (STATE.grad_enabled and any(t._requires_grad for t in tensors)):
        return res

    def backward(*grads):
        cts = [(g._value if isinstance(g, Tensor) else jnp.zeros_like(o)).astype(o.dtype)
               if is_float(o) else np.zeros(o.shape, jax.dtypes.float0)
               for g, o in zip(grads, outs)]
        gs = pull(cts)
        return tuple(wrap(g, t) if t._requires_grad else None for g, t in zip(gs, tensors))

    attach = {i for i, o in enumerate(outs) if is_float(o)}
    record_python_node(res, list(tensors), backward, name=name, attach=attach)
    return res


# ----------------------------------------------------------------------------- closures
_COLLECT = []  # one list per transform call in progress: its outputs that carry tape history


@contextlib.contextmanager
def collecting():
    found = []
    _COLLECT.append(found)
    try:
        yield found
    finally:
        _COLLECT.pop()


def transforms_active():
    """Whether a torch.func transform is running (``torch._C._are_functorch_transforms_active``):
    its pure function is being traced."""
    return bool(_COLLECT)


def note(tensors):
    """Called by every pure function on the Tensors it returns: one that requires grad got
    there through a closed-over Tensor that requires grad (the inputs made inside do not)."""
    if _COLLECT:
        _COLLECT[-1].extend(t for t in tensors if isinstance(t, Tensor) and t._requires_grad)


def closure_leaves(outputs):
    """The leaf Tensors that require grad behind ``outputs``' history."""
    leaves, seen = {}, set()
    stack = []
    for t in outputs:
        if t._node is None:
            leaves[id(t)] = t
        else:
            stack.append(t._node)
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, AccumulateGrad):
            leaves[id(node.variable)] = node.variable
            continue
        stack.extend(e[0] for e in node.edges if e is not None)
    return list(leaves.values())


def _lifting(compute, n, lifted):
    """``compute`` taking the closed-over leaves' arrays as extra arguments: they stand in for
    the leaves' values (with no grad, so nothing records) while it runs."""

    def lifted_compute(*arrays):
        saved = [(t._array, t._requires_grad) for t in lifted]
        try:
            for t, a in zip(lifted, arrays[n:]):
                t._array, t._requires_grad = a, False
            return compute(*arrays[:n])
        finally:
            for t, (v, rg) in zip(lifted, saved):
                t._array, t._requires_grad = v, rg

    return lifted_compute


def transform_wraps(func):
    """functools.wraps that tolerates callables without a name (modules, partials)."""
    return functools.wraps(func)


# ----------------------------------------------------------------------------- argnums
def validate_argnum(argnum, num_args):
    if not isinstance(argnum, int):
        raise RuntimeError(f"argnum must be int, got: {type(argnum)}")
    if 0 <= argnum < num_args:
        return argnum
    if -num_args <= argnum < 0:
        return argnum + num_args
    raise RuntimeError(f"Got argnum={argnum}, but only {num_args} positional inputs")


def normalize_argnums(argnums, num_args):
    """PyTorch's ``_slice_argnums`` checks; returns the argnums with negatives wrapped."""
    if not isinstance(argnums, (int, tuple)):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    if isinstance(argnums, int):
        return validate_argnum(argnums, num_args)
    argnums = tuple(validate_argnum(a, num_args) for a in argnums)
    if len(argnums) == 0:
        raise RuntimeError("argnums must be non-empty")
    if len(set(argnums)) != len(argnums):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    return argnums


def slice_argnums(args, argnums, as_tuple=True):
    if isinstance(argnums, int):
        return (args[argnums],) if as_tuple else args[argnums]
    return tuple(args[i] for i in argnums)


def diff_positions(inputs, argnums):
    """Indices into ``inputs.tensors`` of the leaves differentiated (argnums already wrapped),
    after PyTorch's checks that each is a floating Tensor."""
    nums = (argnums,) if isinstance(argnums, int) else argnums
    out = []
    for n in nums:
        leaves, _ = pt.tree_flatten(inputs.args[n])
        for x in leaves:
            check_differentiable(x)
        out.extend(inputs.positions(n))
    return out


def check_differentiable(x):
    if not isinstance(x, Tensor):
        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
    if x.dtype.category < dtypes.FLOAT:
        raise RuntimeError("only Tensors of floating point dtype can require gradients")


def unwrap_aux(aux):
    """(arrays, spec, tensors) of a ``has_aux`` auxiliary output: Tensors only, as PyTorch."""
    leaves, spec = pt.tree_flatten(aux)
    for x in leaves:
        if not isinstance(x, Tensor):
            raise RuntimeError(f"Expected tensors, got unsupported type {type(x)}")
    note(leaves)
    return [x._value for x in leaves], spec


def split_aux(out, api):
    if not (isinstance(out, tuple) and len(out) == 2):
        raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) "
                           "if has_aux is True")
    return out


def check_tensor_outputs(leaves, api):
    """PyTorch's ``assert_non_empty_tensor_output``."""
    if (len(leaves) == 1 and leaves[0] is None) or len(leaves) < 1:
        raise RuntimeError(f"{api}: Expected f to be a function that has non-empty output "
                           f"(got output = {leaves})")
    for o in leaves:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"{api}: expected f(*primals) to return only tensors, got "
                               f"unsupported type {type(o)}")
    note(leaves)


def error_if_complex(name, leaves, is_input):
    for i, x in enumerate(leaves):
        if isinstance(x, Tensor) and x.dtype.is_complex:
            kind = "inputs" if is_input else "outputs"
            raise RuntimeError(f"{name}: Expected all {kind} to be real but received complex "
                               f"tensor at flattened input idx: {i}")
