"""``torch.cond(pred, true_fn, false_fn, operands)``: structured control flow.

Three cases, by what ``pred`` is:

- a Python bool, int or float: the chosen branch runs, nothing is checked (PyTorch's eager
  case);
- a one-element tensor with a value (eager): the chosen branch runs on the operands through
  the ordinary tape, so gradients flow through it as through any code. With grad mode on,
  PyTorch's rules are checked on the branch that ran: it may not mutate its operands nor
  return them (or views of them), and returns tensors or ints only;
- a tensor holding a JAX tracer (inside ``jtorch.compile``, ``jax.jit``, ``torch.func``): both
  branches are traced and the call lowers to ``jax.lax.cond``. Each branch becomes a pure
  function of the operands' arrays, the arrays of the tensors it closes over that require grad
  (a module's parameters, activations made before the call) and of the state it writes (a
  generator's key for dropout, running statistics). A first trace of both branches finds these
  (under no_grad, each closed-over tensor it reads reported by the compile trace's ``touched``
  hook, each lifted tensor it writes by its array changing); a second one makes them inputs
  and, when a gradient is needed, the whole ``lax.cond`` is differentiated by ``jax.vjp`` and
  joins the tape as one node, ``CondAutogradOpBackward``. The branches must return the same
  structure, shapes and dtypes; PyTorch's errors say which differ.

Differences from PyTorch (docs/differences.md, docs/compile.md): with a tensor ``pred`` in eager
mode only the branch taken runs, so a mismatch between the branches is found under
``jtorch.compile`` only; an operand mutated by that branch is reported after it ran. Traced,
the branches must return equal shapes (PyTorch makes a differing size dynamic) and equal int
outputs (PyTorch returns a SymInt). A branch may write global state (PyTorch refuses): the
write happens when that branch is taken, as in eager mode.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from .._core.python_node import record_pullback
from .._core.state import STATE, tape_off
from .._core.tensor_base import storage_root
from .._dynamo.exc import TorchRuntimeError
from .._tensor import Tensor
from ..autograd import no_grad
from ..utils import _pytree as pt
from ._common import (
    Recorder as _Recorder,
    aliasing_error,
    hop_error,
    installed,
    is_float as _is_float,
    mutation_error,
    torch_dtype_name as _dt,
)

__all__ = ["cond"]

_OP = "torch.cond"


def _hop_error(title, explanation, hints=(), debug=""):
    return hop_error(_OP, title, explanation, hints, debug)


def _mutation_error(where):
    return mutation_error(_OP, where)


def _aliasing_error(kind, where):
    return aliasing_error(_OP, kind, where)


def cond(pred, true_fn, false_fn, operands=()):
    """Run ``true_fn(*operands)`` if ``pred`` else ``false_fn(*operands)``; traced, both
    branches are compiled into one ``jax.lax.cond``.

    Args:
        pred: a Python bool/int/float, or a one-element tensor.
        true_fn, false_fn: callables taking the operands, returning tensors (or ints) in the
            same pytree structure, with the same shapes and dtypes.
        operands: a tuple or list of (possibly nested dict/list/tuple of) tensors.

    Returns:
        The chosen branch's output.

    Example::

        >>> x = jtorch.tensor([1.0, 2.0])
        >>> jtorch.cond(x.sum() > 0, lambda x: x * 2, lambda x: x - 1, (x,))
        tensor([2., 4.])
    """
    if isinstance(pred, (bool, int, float)):
        return true_fn(*operands) if pred else false_fn(*operands)
    _validate(pred, true_fn, false_fn, operands)
    if not isinstance(pred._value, jax.core.Tracer):
        return _eager(true_fn if bool(pred) else false_fn, operands)
    return _Traced(pred, (false_fn, true_fn), operands).run()


def _validate(pred, true_fn, false_fn, operands):
    if not isinstance(pred, Tensor):
        raise RuntimeError(f"Expected pred to be bool or tensor, but got {pred}.")
    if pred.numel() != 1:
        raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got {pred}.")
    if not callable(true_fn) or not callable(false_fn):
        raise RuntimeError("Expect both branches to be callable.")
    if not isinstance(operands, (tuple, list)) or \
            any(not isinstance(x, Tensor) for x in pt.tree_leaves(operands)):
        raise RuntimeError("Expect operands to be a tuple of possibly nested dict/list/tuple that "
                           f"only consists of tensor leaves, but got {operands}.")


def _check_outputs(out, operands):
    """PyTorch's rules on what a branch returns: tensors and ints; with grad mode on, no
    operand (or a view of one) and no tensor twice."""
    leaves = pt.tree_leaves(out)
    for o in leaves:
        if not isinstance(o, (Tensor, int)):
            raise _hop_error("torch.cond: unsupported branch return type (constant non-int)",
                             "Constants returned from branches must be ints.",
                             debug=f"{type(o).__name__} returned")
    if not STATE.grad_enabled:
        return
    ins = {id(storage_root(t)): i for i, t in enumerate(operands)}
    seen = {}
    for j, o in enumerate(x for x in leaves if isinstance(x, Tensor)):
        r = id(storage_root(o))
        if r in ins:
            raise _aliasing_error("Input-to-output", f"operand {ins[r]} and output {j}")
        if r in seen:
            raise _aliasing_error("Output-to-output", f"outputs {seen[r]} and {j}")
        seen[r] = j


def _eager(fn, operands):
    if not STATE.grad_enabled:   # PyTorch allows mutating and returning operands here
        return fn(*operands)
    leaves = pt.tree_leaves(operands)
    before = [t._version for t in leaves]
    out = fn(*operands)
    changed = [i for i, (t, v) in enumerate(zip(leaves, before)) if t._version != v]
    if changed:
        raise _mutation_error(f"operands {changed}")
    _check_outputs(out, leaves)
    return out


class _Traced:
    """One traced ``torch.cond``: both branches as pure functions of arrays under
    ``jax.lax.cond`` (``fns`` is ``(false_fn, true_fn)``: the predicate indexes it)."""

    def __init__(self, pred, fns, operands):
        p = pred._value.reshape(())
        self.pred = p if p.dtype == jnp.bool_ else p != 0
        self.fns = fns
        self.device = pred._device
        self.leaves, self.spec = pt.tree_flatten(operands)
        outer = STATE.trace
        self.lifted = list(outer.lifted_tensors()) if outer is not None else []
        self.closure, self.state = [], []   # the extra inputs of the second trace
        self.read, self.written = {}, {}
        self.meta = [None, None]            # per branch: (spec, statics, avals, mutated)

    # --------------------------------------------------------------- one branch, pure
    def branch(self, k):
        fn = self.fns[k]

        def pure(op_arrs, cl_arrs, st_arrs):
            prev = STATE.trace
            try:
                with installed(self.lifted, self.state, self.closure, st_arrs,
                               cl_arrs) as start:
                    wrappers = [Tensor._make(a, t._device)
                                for a, t in zip(op_arrs, self.leaves)]
                    versions = [w._version for w in wrappers]
                    STATE.trace = _Recorder(prev, self.read)
                    with tape_off():
                        out = fn(*pt.tree_unflatten(wrappers, self.spec))
                    STATE.trace = prev
                    return self._finish(k, out, wrappers, versions, start)
            finally:
                STATE.trace = prev

        return pure

    def _finish(self, k, out, wrappers, versions, start):
        mutated = [i for i, (w, v) in enumerate(zip(wrappers, versions)) if w._version != v]
        if mutated and STATE.grad_enabled:
            raise _mutation_error(f"operands {mutated}")
        _check_outputs(out, wrappers)
        for t in self.lifted:
            if t._array is not start[id(t)]:
                self.written.setdefault(id(t), t)
        leaves, spec = pt.tree_flatten(out)
        statics = [None if isinstance(o, Tensor) else o for o in leaves]
        arrays = [o._value for o in leaves if isinstance(o, Tensor)]
        self.meta[k] = (spec, statics, [(a.shape, a.dtype) for a in arrays], mutated)
        return arrays, [w._value for w in wrappers], [t._array for t in self.state]

    # --------------------------------------------------------------- the lax.cond
    def lax_cond(self, op_arrs, cl_arrs, st_arrs):
        try:
            res = jax.lax.cond(self.pred, self.branch(1), self.branch(0), op_arrs, cl_arrs,
                               st_arrs)
        except TypeError:   # JAX's "true_fun and false_fun output must have identical types"
            self._compare()
            raise
        self._compare()
        return res

    def _compare(self):
        if None in self.meta:
            return
        (fs, fstat, favals, _), (ts, tstat, tavals, _) = self.meta
        if len(tstat) != len(fstat):
            raise TorchRuntimeError(
                f"Unmatched output spec from torch.cond branches: true branch tree_spec {ts} "
                f"vs false branch tree_spec {fs}.")
        if ts != fs or [s is None for s in tstat] != [s is None for s in fstat]:
            raise _hop_error("torch.cond: differing branch outputs",
                             "Expected branches to return the same pytree structure.",
                             debug=f"true_spec: {ts}, false_spec: {fs}")
        for i, ((tsh, tdt), (fsh, fdt)) in enumerate(zip(tavals, favals)):
            if tdt != fdt:
                raise TorchRuntimeError(
                    "When merging two branches' output in torch.cond,  expected same dtype but "
                    f"got {_dt(tdt)} and {_dt(fdt)}.")
            if tsh != fsh:
                raise TorchRuntimeError(
                    f"jtorch: torch.cond's branches return tensors of different shapes at "
                    f"output {i}: {list(tsh)} (true_fn) and {list(fsh)} (false_fn).\n"
                    "A traced torch.cond becomes one jax.lax.cond, whose branches must agree "
                    "on every shape (PyTorch would make the size dynamic; XLA sizes are "
                    "static).\nFix: return the same shape from both branches (pad, or mask "
                    "with jtorch.where), or decide with a Python bool outside the compiled "
                    "function.")
        for i, (a, b) in enumerate(zip(tstat, fstat)):
            if a != b:
                raise TorchRuntimeError(
                    f"jtorch: torch.cond's branches return different ints at output {i}: {a} "
                    f"(true_fn) and {b} (false_fn); traced, an int output must be the same in "
                    "both branches (PyTorch returns a SymInt).\nFix: return it as a tensor.")

    # --------------------------------------------------------------- the call
    def run(self):
        op_arrs = [t._value for t in self.leaves]
        outs, new_ops, _ = self.lax_cond(op_arrs, [], [])
        grad = STATE.grad_enabled
        self.closure = list(self.read.values()) if grad else []
        self.state = list(self.written.values())
        diff = [i for i, t in enumerate(self.leaves)
                if grad and t._requires_grad and _is_float(op_arrs[i])]
        if diff or self.closure or self.state:
            tensors, new_ops = self._again(op_arrs, diff)
        else:
            tensors = [Tensor._make(o, self.device) for o in outs]
        mutated = set(self.meta[0][3]) | set(self.meta[1][3])
        if mutated:   # (no_grad only) the operands take the taken branch's writes
            with no_grad():
                for i in sorted(mutated):
                    self.leaves[i].copy_(Tensor._make(new_ops[i], self.leaves[i]._device))
        spec, statics, _, _ = self.meta[1]
        it = iter(tensors)
        return pt.tree_unflatten([next(it) if s is None else s for s in statics], spec)

    def _again(self, op_arrs, diff):
        st_arrs = [t._array for t in self.state]
        floats = None

        def f(diff_arrs, cl_arrs):
            nonlocal floats
            arrs = list(op_arrs)
            for i, a in zip(diff, diff_arrs):
                arrs[i] = a
            outs, new_ops, new_state = self.lax_cond(arrs, cl_arrs, st_arrs)
            floats = [_is_float(o) for o in outs]
            return ([o for o, fl in zip(outs, floats) if fl],
                    ([o for o, fl in zip(outs, floats) if not fl], new_ops, new_state))

        inputs = [self.leaves[i] for i in diff] + self.closure
        if inputs:
            fl_outs, pull, (others, new_ops, new_state) = jax.vjp(
                f, [op_arrs[i] for i in diff], [t._array for t in self.closure], has_aux=True)
            fl_t = record_pullback(fl_outs, pull, inputs, "CondAutogradOpBackward")
        else:
            fl_t, (others, new_ops, new_state) = f([], [])
            fl_t = [Tensor._make(o, self.device) for o in fl_t]
        for t, a in zip(self.state, new_state):
            t._array = a
            t._version_counter += 1
        fl_it = iter(fl_t)
        ot_it = (Tensor._make(o, self.device) for o in others)
        return [next(fl_it) if fl else next(ot_it) for fl in floats], new_ops
