"""A custom ``autograd.Function`` under a JAX transform (torch.func's grad, vjp, jacrev...):
one ``jax.custom_vjp`` whose backward is the Function's own ``backward`` (or ``vjp``).

Inside a torch.func transform the Tensors hold JAX tracers and require no grad, so jtorch's
tape records nothing there and JAX differentiates what the function runs. Left at that, JAX
would differentiate the Function's *forward* ops, not its ``backward``: a straight-through
estimator (``round`` forward, identity backward) would get zero gradients. PyTorch runs the
Function's ``backward`` under its transforms when the Function defines ``setup_context``
(docs: "Extending torch.func with autograd.Function"); so does this.

The tensors ``setup_context`` keeps on ``ctx`` (``save_for_backward``'s, and tensors set as
attributes, alone or in a list or tuple) are the ``custom_vjp``'s residuals: ``backward``
sees them as Tensors of the backward's trace; other attributes are passed as they are.
"""

from __future__ import annotations

import copy

import jax
import jax.numpy as jnp
import numpy as np

from .._core import dtypes
from .._core.state import grad_mode
from .._core.tensor_base import TensorBase


def traced(args) -> bool:
    """Whether a Tensor among ``args`` holds a JAX tracer (a transform is tracing it)."""
    return any(isinstance(a, TensorBase) and isinstance(a._value, jax.core.Tracer)
               for a in args)


def _ctx_tensors(ctx):
    """``[(where, tensor)]`` for each Tensor ``ctx`` holds: in its saved tensors
    (``("_saved", i)``), as an attribute (``(name, None)``), or in a list or tuple attribute
    (``(name, i)``)."""
    held = [(("_saved", i), t) for i, t in enumerate(ctx._saved) if isinstance(t, TensorBase)]
    for name, value in vars(ctx).items():
        if name == "_saved":
            continue
        if isinstance(value, TensorBase):
            held.append(((name, None), value))
        elif isinstance(value, (list, tuple)):
            held.extend(((name, i), t) for i, t in enumerate(value)
                        if isinstance(t, TensorBase))
    return held


def _ctx_with(ctx, places, arrays, devices):
    """A copy of ``ctx`` holding new Tensors of ``arrays`` in ``places``."""
    new = copy.copy(ctx)
    for (name, i), arr, device in zip(places, arrays, devices):
        t = TensorBase._make(arr, device)
        if i is None:
            setattr(new, name, t)
        else:
            seq = getattr(new, name)
            setattr(new, name, type(seq)((*seq[:i], t, *seq[i + 1:])) if isinstance(seq, tuple)
                    else [*seq[:i], t, *seq[i + 1:]])
    new._saved_versions = tuple(None if t is None else t._version for t in new._saved)
    return new


def _zeros_for(arr):
    """The cotangent JAX wants for a primal input that gets no gradient."""
    if jnp.issubdtype(arr.dtype, jnp.inexact):
        return jnp.zeros(arr.shape, arr.dtype)
    return np.zeros(arr.shape, jax.dtypes.float0)


def apply_under_transform(cls, args, kwargs, make_ctx):
    """``cls.apply(*args, **kwargs)`` for a Function with ``setup_context`` whose inputs are
    traced by a JAX transform: its forward as a ``jax.custom_vjp`` with its backward."""
    pos = [i for i, a in enumerate(args) if isinstance(a, TensorBase)]
    devices = [args[i]._device for i in pos]
    state = {}

    def forward(arrays):
        inputs = list(args)
        for i, arr, device in zip(pos, arrays, devices):
            inputs[i] = TensorBase._make(arr, device)
        ctx = make_ctx()
        ctx.needs_input_grad = tuple(isinstance(a, TensorBase) and
                                     a.dtype.category >= dtypes.FLOAT for a in args)
        with grad_mode(False):
            out = cls.forward(*inputs, **kwargs)
            cls.setup_context(ctx, tuple(inputs), out)
        single = not isinstance(out, tuple)
        outs = (out,) if single else out
        state["single"], state["outs"] = single, outs
        return ctx, [o._value for o in outs if isinstance(o, TensorBase)]

    @jax.custom_vjp
    def run(*arrays):
        return forward(arrays)[1]

    def run_fwd(*arrays):
        ctx, out = forward(arrays)
        held = _ctx_tensors(ctx)
        state["ctx"], state["places"] = ctx, [w for w, _ in held]
        state["devices"] = [t._device for _, t in held]
        state["out_devices"] = [o._device for o in state["outs"] if isinstance(o, TensorBase)]
        return out, ([t._value for _, t in held], list(arrays))

    def run_bwd(residuals, cotangents):
        saved, primals = residuals
        ctx = _ctx_with(state["ctx"], state["places"], saved, state["devices"])
        grads = [TensorBase._make(ct if ct.dtype != jax.dtypes.float0 else
                                  jnp.zeros(ct.shape, jnp.float32), device)
                 for ct, device in zip(cotangents, state["out_devices"])]
        with grad_mode(False):
            res = cls._user_backward()(ctx, *grads)
        res = res if isinstance(res, tuple) else (res,)
        if len(res) < len(args):
            raise RuntimeError(f"function {cls.__name__}Backward returned an incorrect number "
                               f"of gradients (expected {len(args)}, got {len(res)})")
        out = []
        for i, primal in zip(pos, primals):
            g = res[i]
            if g is None or not jnp.issubdtype(primal.dtype, jnp.inexact):
                out.append(_zeros_for(primal))
            else:
                out.append(jnp.broadcast_to(g._value, primal.shape).astype(primal.dtype))
        return tuple(out)

    run.defvjp(run_fwd, run_bwd)
    arrays = iter(run(*[args[i]._value for i in pos]))
    outs = tuple(TensorBase._make(next(arrays), o._device) if isinstance(o, TensorBase) else o
                 for o in state["outs"])
    return outs[0] if state["single"] else outs
