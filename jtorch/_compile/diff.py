"""The vjp form of a compiled function: outputs that autograd differentiates later.

When a compiled function's outputs need gradients (grad mode on, and a parameter it uses or an
input requires grad) and the function does not run backward itself, the call runs
``jax.vjp`` of its pure form inside one jitted call, which returns the outputs, the new values
of the state it wrote (BatchNorm's running stats, the generator key dropout advanced) and the
vjp's residuals. The outputs get one autograd node whose backward is one more jitted call,
the vjp. Used by ``jtorch.compile(module)`` and by ``jtorch.compile(fn)`` of such a function.
"""

from __future__ import annotations

import functools

import jax

from .._core import xla_options
from .._core.python_node import record_pullback
from .._core.state import grad_mode
from .._core.views import swap_array
from .._tensor import Tensor
from .context import TraceContext, Unsupported, tracing
from .trees import rebuild, split_outputs


def _pullback(vjp_fn, cts):
    return _pullback_jit()(vjp_fn, cts)


@functools.cache
def _pullback_jit():  # built on first use: the options are decided after import
    return xla_options.jit(lambda vjp_fn, cts: vjp_fn(cts))


class DiffEntry:
    """One compiled vjp program: differentiated state (``diff``), other state (``rest``)."""

    def __init__(self, diff, rest, fwd, rec):
        self.diff, self.rest, self.fwd, self.rec = diff, rest, fwd, rec

    def run(self, leaves):
        inputs = [x for x in leaves if isinstance(x, Tensor)]
        d_in = [x for x in inputs if x._requires_grad]
        outs, vjp_fn, new_rest = self.fwd([t._array for t in self.diff],
                                          [t._array for t in self.rest],
                                          [x._value for x in d_in],
                                          [x._value for x in inputs if not x._requires_grad])
        for t, a in zip(self.rest, new_rest):
            if a is not None:
                t._array = a
                t._version_counter += 1
        wrapped = record_pullback(outs, lambda cts: _pullback(vjp_fn, cts),
                                  list(self.diff) + d_in, "CompiledFunctionBackward")
        return rebuild(self.rec["out_tree"], self.rec["static"], wrapped)


def trace_diff(fn, st, leaves, treedef, tape=False):
    """Compile and run the vjp form of ``fn`` for the state ``st``: ``(entry, result)``.
    ``tape``: the tape records inside too (a function may differentiate inside itself with
    ``torch.autograd.grad``); otherwise only ``jax.vjp`` differentiates."""
    diff = list(st.grad_params)
    rest = [t for t in st.tensors if not (t._requires_grad and t._node is None)]
    rec = {}
    orig = [(t, t._array) for t in diff + rest]

    def pure(d_arrs, r_arrs, din_arrs, other_arrs):
        with tracing(TraceContext(st.tensors, tape=tape)), grad_mode(tape):
            try:
                for t, a in zip(diff, d_arrs):
                    swap_array(t, a)
                for t, a in zip(rest, r_arrs):
                    swap_array(t, a)
                di, oi = iter(din_arrs), iter(other_arrs)
                new_leaves, stand_ins = [], []
                for x in leaves:
                    if isinstance(x, Tensor):
                        y = Tensor._make(next(di) if x._requires_grad else next(oi), x._device)
                        y._requires_grad = tape and x._requires_grad
                        x = y
                        stand_ins.append((y, y._array))
                    new_leaves.append(x)
                a2, k2 = jax.tree_util.tree_unflatten(treedef, new_leaves)
                out = fn(*a2, **k2)
                if any(t._array is not a for t, a in zip(diff, d_arrs)):
                    raise Unsupported("the function writes in place to a tensor that requires "
                                      "grad and returns outputs that require grad")
                if any(y._array is not a for y, a in stand_ins):
                    raise Unsupported("the function writes in place into a tensor argument "
                                      "and returns outputs that require grad")
                outs, rec["out_tree"], rec["static"] = split_outputs(out)
                new_rest = [None if t._array is a else t._value
                            for t, a in zip(rest, r_arrs)]
                return outs, new_rest
            finally:
                for t, v in orig:  # the trace is over: the Python objects hold values again
                    swap_array(t, v)

    def fwd(d_arrs, r_arrs, din_arrs, other_arrs):
        return jax.vjp(lambda d, i: pure(d, r_arrs, i, other_arrs), d_arrs, din_arrs,
                       has_aux=True)

    entry = DiffEntry(diff, rest, xla_options.jit(fwd), rec)
    return entry, entry.run(leaves)
