"""torch.autograd.gradcheck / gradgradcheck: finite differences against the tape's gradients.

PyTorch's slow mode: a central-difference Jacobian per (output, input) pair, shaped
(input.numel(), output.numel()), compared with the one built from one backward per output
element; mismatches raise GradcheckError with both matrices.
"""

from __future__ import annotations

import warnings

import jax.numpy as jnp
import numpy as np

from .._core import dtypes
from .._core.tensor_base import TensorBase
from . import forward_ad as fwAD
from .gradients import grad


class GradcheckError(RuntimeError):
    """Raised by gradcheck and gradgradcheck when a check fails."""


def _as_tuple(x):
    return (x,) if isinstance(x, TensorBase) else tuple(x)


def _diff_inputs(inputs):
    return [i for i, t in enumerate(inputs) if isinstance(t, TensorBase) and t.requires_grad]


def _outputs(func, inputs):
    return [o for o in _as_tuple(func(*inputs)) if isinstance(o, TensorBase)]


def _numerical(func, inputs, i, eps):
    """Central differences: a (inputs[i].numel(), out.numel()) matrix per output."""
    t = inputs[i]
    base = t.detach()._value
    flat = base.reshape(-1)
    cols = None
    for k in range(flat.shape[0]):
        outs = []
        for sign in (1, -1):
            v = flat.at[k].add(sign * eps).reshape(base.shape)
            args = list(inputs)
            args[i] = TensorBase._make(v, t.device).requires_grad_(t.requires_grad)
            outs.append([o.detach()._value.reshape(-1) for o in _outputs(func, args)])
        rows = [(a - b) / (2 * eps) for a, b in zip(*outs)]
        cols = [[r] for r in rows] if cols is None else [c + [r] for c, r in zip(cols, rows)]
    return [jnp.stack(c) for c in cols or []]


def _analytical(func, inputs, diff):
    """Per output: per differentiable input, a (input.numel(), out.numel()) matrix."""
    outs = _outputs(func, inputs)
    res = []
    for o in outs:
        n = o.numel()
        per_in = [[] for _ in diff]
        for k in range(n):
            if not o.requires_grad:
                gs = [None] * len(diff)
            else:
                onehot = jnp.zeros((n,), o.dtype.np).at[k].set(1).reshape(tuple(o.shape))
                gs = grad(o, [inputs[i] for i in diff], TensorBase._make(onehot, o.device),
                          retain_graph=True, allow_unused=True)
            for j, (g, i) in enumerate(zip(gs, diff)):
                size = inputs[i].numel()
                per_in[j].append(jnp.zeros((size,), inputs[i].dtype.np) if g is None
                                 else g._value.reshape(-1))
        res.append([jnp.stack(c, axis=1) if c else
                    jnp.zeros((inputs[i].numel(), 0), inputs[i].dtype.np)
                    for c, i in zip(per_in, diff)])
    return res


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False,
              check_forward_ad=False, check_backward_ad=True, fast_mode=False, masked=None):
    """Checks the gradients of ``func`` at ``inputs`` against finite differences."""
    if check_batched_grad or check_batched_forward_grad:
        raise NotImplementedError("jtorch does not implement the batched checks of "
                                  "torch.autograd.gradcheck yet")
    inputs = _as_tuple(inputs)
    diff = _diff_inputs(inputs)
    if not diff:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but "
                         "none of the them have requires_grad=True.")
    for i in diff:
        if inputs[i].dtype not in (dtypes.float64, dtypes.complex128):
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating "
                          "point or complex. This check will likely fail if all the inputs are "
                          "not of double precision floating point or complex. ", stacklevel=2)
    # PyTorch's order: the backward-mode check, then the forward-mode one
    checks = ([("", _analytical(func, inputs, diff))] if check_backward_ad else []) + \
        ([(" computed with forward mode", _forward_analytical(func, inputs, diff))]
         if check_forward_ad else [])
    numerical = {}
    for mode, analytical in checks:
        for j, i in enumerate(diff):
            if i not in numerical:
                numerical[i] = _numerical(func, inputs, i, eps)
            for k, (num, ana) in enumerate(zip(numerical[i], (a[j] for a in analytical))):
                if not jnp.allclose(ana, num, rtol=rtol, atol=atol):
                    if not raise_exception:
                        return False
                    dt = inputs[i].dtype
                    raise GradcheckError(
                        f"Jacobian{mode} mismatch for output {k} with respect to input {i},\n"
                        f"numerical:{TensorBase._make(num.astype(dt.np))}\n"
                        f"analytical:{TensorBase._make(ana.astype(dt.np))}\n")
    return True


def _forward_analytical(func, inputs, diff):
    """Per output: per differentiable input, its (input.numel(), out.numel()) Jacobian from
    forward-mode AD: one dual call per input element, with a one-hot tangent (PyTorch's
    slow-mode forward check; the inputs are detached, as there)."""
    res = None
    for j, i in enumerate(diff):
        t = inputs[i]
        n = t.numel()
        rows = []   # per input element: per output, its flattened tangent
        for k in range(n):
            onehot = jnp.zeros((n,), t.dtype.np).at[k].set(1).reshape(tuple(t.shape))
            with fwAD.dual_level():
                args = [a.detach() if isinstance(a, TensorBase) else a for a in inputs]
                args[i] = fwAD.make_dual(args[i], TensorBase._make(onehot, t.device))
                outs = _outputs(func, args)
                tangents = [fwAD.unpack_dual(o).tangent for o in outs]
                rows.append([jnp.zeros((o.numel(),), o.dtype.np) if g is None
                             else g._value.reshape(-1) for o, g in zip(outs, tangents)])
        if res is None:
            res = [[None] * len(diff) for _ in (rows[0] if rows else [])]
        for m in range(len(res)):
            res[m][j] = (jnp.stack([r[m] for r in rows]) if rows
                         else jnp.zeros((0, 0), t.dtype.np))
    return res or []


def _random_like(o):
    vals = np.random.default_rng(0).standard_normal(tuple(o.shape)).astype(o.dtype.np)
    return TensorBase._make(jnp.asarray(vals), o.device).requires_grad_(True)


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False,
                  masked=None):
    """Checks second derivatives: gradcheck of ``(inputs, v) -> grad(func(inputs), inputs, v)``
    with random ``v`` (requiring grad) when ``grad_outputs`` is not given."""
    inputs = _as_tuple(inputs)
    diff = _diff_inputs(inputs)
    outs = _outputs(func, inputs)
    if grad_outputs is None:
        grad_outputs = tuple(_random_like(o) for o in outs)
    grad_outputs = _as_tuple(grad_outputs)
    n = len(inputs)

    def new_func(*args):
        ins, gos = args[:n], args[n:]
        outs = _outputs(func, ins)
        keep = [(o, g) for o, g in zip(outs, gos) if o.requires_grad]
        gs = grad([o for o, _ in keep], [ins[i] for i in diff], [g for _, g in keep],
                  create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(new_func, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
