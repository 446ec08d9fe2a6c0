"""``torch.while_loop(cond_fn, body_fn, carried_inputs)``: a loop whose trip count is data.

Two cases, by what the values are:

- eager (no carried tensor and no ``cond_fn`` result holds a JAX tracer): a Python loop,
  ``while cond_fn(*carried): carried = body_fn(*carried)``, through the ordinary tape, so
  gradients flow through every iteration as through any code. PyTorch's rules are checked on
  each iteration that runs: ``cond_fn`` returns a bool tensor of shape ``()`` (or a Python
  bool), ``body_fn`` returns as many tensors/ints as were carried, with the same shapes and
  dtypes, and neither mutates nor returns (a view of) a carried tensor;
- traced (inside ``jtorch.compile``, ``jax.jit``, ``torch.func.vmap``): the call lowers to
  ``jax.lax.while_loop``. ``cond_fn`` and ``body_fn`` become pure functions of the carried
  arrays (an int carry becomes a 0-d int64 tensor), of the arrays of the closed-over tensors
  that require grad (a module's parameters) and of the state the body writes (a generator's
  key for dropout, running statistics), which joins the loop's carry. A first trace finds
  these, as in cond.py. When a gradient is needed the loop also counts its iterations, and the
  outputs join the tape as one node, ``WhileLoopAutogradOpBackward``, whose backward walks the
  iterations in reverse: ``lax.while_loop`` has no reverse-mode derivative, and XLA's shapes
  cannot hold a stack of a data-dependent number of carries, so iteration ``k``'s carry is
  recomputed from the initial one (O(n^2) body evaluations, O(1) memory), then pulled back
  through one body step by ``jax.vjp``.

Differences from PyTorch: see docs/differences.md.
"""

from __future__ import annotations

import inspect

import jax
import jax.numpy as jnp

from .._core.dtypes import bool_, get_default_dtype
from .._core.python_node import record_pullback
from .._core.state import STATE, tape_off
from .._core.tensor_base import storage_root
from .._dynamo.exc import TorchRuntimeError, UncapturedHigherOrderOpError
from .._tensor import Tensor
from ..utils import _pytree as pt
from ._common import (
    Recorder,
    aliasing_error,
    hop_error,
    installed,
    is_float,
    mutation_error,
)

__all__ = ["while_loop"]

_OP = "torch.while_loop"
_REENTER = ("Your code may result in an error when running in eager. Please double check that "
            "your code doesn't contain a similar error when actually running eager/uncompiled. "
            "You can do this by removing the `torch.compile` call, or by using "
            "`torch.compiler.set_stance(\"force_eager\")`. ")


def while_loop(cond_fn, body_fn, carried_inputs):
    """Run ``body_fn(*carried_inputs)`` while ``cond_fn(*carried_inputs)`` returns a True
    scalar tensor; return the last ``body_fn`` output (or, when ``cond_fn`` is false at once,
    copies of ``carried_inputs``). Traced, it lowers to one ``jax.lax.while_loop``.

    Args:
        cond_fn: returns a bool tensor of shape ``()`` or a Python bool.
        body_fn: takes what ``cond_fn`` takes and returns tensors or ints with the carried
            inputs' shapes and dtypes (it may return another container with the same leaves).
        carried_inputs: a tuple of (possibly nested dict/list/tuple of) tensors or ints.

    Example::

        >>> jtorch.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * 2),
        ...                   (jtorch.tensor(0), jtorch.ones(2)))
        (tensor(3), tensor([8., 8.]))
    """
    leaves, spec = pt.tree_flatten(carried_inputs)
    _validate(cond_fn, body_fn, carried_inputs, leaves)
    args = tuple(carried_inputs)
    for fn in (cond_fn, body_fn):
        _check_binds(fn, args)
    if any(isinstance(t, Tensor) and isinstance(t._value, jax.core.Tracer) for t in leaves):
        return _Traced(cond_fn, body_fn, leaves, spec).run()
    return _eager(cond_fn, body_fn, leaves, spec)


# ------------------------------------------------------------------- PyTorch's checks
def _type_name(x):
    return "<class 'torch.Tensor'>" if isinstance(x, Tensor) else repr(type(x))


def _validate(cond_fn, body_fn, carried_inputs, leaves):
    if not callable(cond_fn) or not callable(body_fn):
        raise RuntimeError("Expect cond_fn and body_fn to be callable.")
    if not all(isinstance(x, (Tensor, int)) for x in leaves):
        allowed = "(<class 'torch.Tensor'>, <class 'int'>, <class 'torch.SymInt'>)"
        got = ", ".join(_type_name(x) for x in leaves) + ("," if len(leaves) == 1 else "")
        raise AssertionError(f"{leaves} can only be of {allowed} but got ({got})")


def _check_binds(fn, args):
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):   # a builtin without a signature: let the call decide
        return
    try:
        sig.bind(*args)
    except TypeError:
        name = getattr(fn, "__name__", type(fn).__name__)
        raise hop_error(_OP, "failed to bind arguments when attempting to inline",
                        f"Argument mismatch when attempting to trace function {name}.",
                        (_REENTER,),
                        f"func={name!r}; args = [{', '.join(_type_name(a) for a in args)}]; "
                        "kwargs = {}") from None


def _fake(x):
    """How PyTorch's messages show a value (a FakeTensor while it traces)."""
    if not isinstance(x, Tensor):
        return repr(x)
    extra = "" if x.dtype == get_default_dtype() else f", dtype={x.dtype}"
    extra += ", requires_grad=True" if x.requires_grad else ""
    return f"FakeTensor(..., size={tuple(x.shape)}{extra})"


def _check_body_output(out_leaves, carried, int_carry=None):
    """PyTorch's ``check_meta_consistency(body_fn_output, carried_inputs)``. Traced, an int
    carry is a 0-d int64 tensor, and the body may return an int or such a tensor for it."""
    int_carry = int_carry or [False] * len(carried)
    if len(out_leaves) != len(carried):
        raise UncapturedHigherOrderOpError(
            "Expected body_fn_output and carried_inputs to have same number of outputs but got "
            f"lhs:[{', '.join(map(_fake, out_leaves))}] and rhs:[{', '.join(map(_fake, carried))}]"
            f"\n  Higher Order Operator: {_OP}")
    diffs = []
    for i, (o, c) in enumerate(zip(out_leaves, carried)):
        if int_carry[i] and (isinstance(o, int) or (isinstance(o, Tensor) and o.dim() == 0 and
                                                    not o.dtype.is_floating_point)):
            continue
        if isinstance(o, Tensor) != isinstance(c, Tensor):
            if not isinstance(o, (Tensor, int)):
                raise hop_error(
                    _OP, "HOP body output unsupported",
                    "HigherOrderOperator body's output must consist of tensors or ints/bools "
                    f"only but got {type(o)}.", (_REENTER,),
                    f"non-tensor outputs: {{{o!r}}}")
            diffs.append(f"pair[{i}] differ in type: {_fake(o)} vs {_fake(c)}, where lhs is "
                         f"{_fake(o)} and rhs is {_fake(c)}")
            continue
        if not isinstance(o, Tensor):
            continue
        meta = []
        if tuple(o.shape) != tuple(c.shape):
            meta.append(f"'shape: {o.shape} vs {c.shape}'")
        if o.dtype != c.dtype:
            meta.append(f"'dtype: {o.dtype} vs {c.dtype}'")
        if meta:
            diffs.append(f"pair[{i}] differ in {', '.join(meta)}, where lhs is {_fake(o)} and "
                         f"rhs is {_fake(c)}")
    if diffs:
        raise UncapturedHigherOrderOpError(
            "Expected body_fn_output and carried_inputs to have same metadata but found:\n"
            + "\n".join(diffs) + f"\n  Higher Order Operator: {_OP}")


def _check_aliasing(out_leaves, carried, what):
    roots = {id(storage_root(t)): i for i, t in enumerate(carried) if isinstance(t, Tensor)}
    seen = {}
    for j, o in enumerate(out_leaves):
        if not isinstance(o, Tensor):
            continue
        r = id(storage_root(o))
        if r in roots:
            raise aliasing_error(_OP, "Input-to-output",
                                 f"carried input {roots[r]} and {what} output {j}")
        if r in seen:
            raise aliasing_error(_OP, "Output-to-output", f"{what} outputs {seen[r]} and {j}")
        seen[r] = j


def _checked_call(fn, args, carried, what):
    """``fn(*args)``, refusing a write to a carried tensor (PyTorch does in any grad mode)."""
    before = [t._version if isinstance(t, Tensor) else None for t in carried]
    out = fn(*args)
    changed = [i for i, (t, v) in enumerate(zip(carried, before))
               if v is not None and t._version != v]
    if changed:
        raise mutation_error(_OP, f"{what}: carried inputs {changed}")
    return out


def _pred(p, has_int_carry):
    """PyTorch's rules on what cond_fn returns: a bool tensor of shape () or a bool; a constant
    (a Python value when no int is carried) that is true would never end. Returns the bool,
    or the tensor itself when it holds a tracer."""
    if isinstance(p, Tensor):
        if tuple(p.shape) != () or p.dtype is not bool_:
            raise hop_error(_OP, "torch.while_loop: unsupported cond_fn return type",
                            "Expected cond_fn to return a scalar tensor or a bool but got "
                            f"{p.shape}.", (_REENTER,), "TensorVariable()")
        return p if isinstance(p._value, jax.core.Tracer) else bool(p)
    if isinstance(p, bool) and has_int_carry:
        return p
    if isinstance(p, int) and not has_int_carry:
        if p:
            kind = "bool" if isinstance(p, bool) else "int"
            raise hop_error(_OP, "torch.while_loop: infinite loop detected",
                            "Infinite loop detected because while_loop's cond_fn always returns "
                            f"the same value {p}.", (_REENTER,), f"ConstantVariable({kind}: {p})")
        return False
    raise RuntimeError(f"cond_fn must return a boolean scalar tensor or a boolean but got {p}")


def _int_carry_grad_error():
    return TorchRuntimeError(
        "RuntimeError when making fake tensor call\n  Explanation: Dynamo failed to run FX node "
        "with fake tensors: call_function while_loop: got AssertionError(\"all carried_inputs "
        "must be tensors for stack_output\")\n  jtorch: PyTorch 2.13 differentiates "
        "torch.while_loop only when every carried input is a tensor; carry the int as a "
        "tensor.")


# ------------------------------------------------------------------- eager
def _eager(cond_fn, body_fn, leaves, spec):
    has_int = any(not isinstance(x, Tensor) for x in leaves)
    grad = STATE.grad_enabled
    if grad and has_int and any(isinstance(t, Tensor) and t.requires_grad for t in leaves):
        raise _int_carry_grad_error()
    carried, out = leaves, None
    while True:
        args = pt.tree_unflatten(carried, spec)
        p = _checked_call(cond_fn, args, carried, "cond_fn")
        if isinstance(p, Tensor):
            _check_aliasing([p], carried, "cond_fn")
        p = _pred(p, has_int)
        if isinstance(p, Tensor):   # a closed-over traced tensor decided: trace the loop
            return _Traced(cond_fn, body_fn, carried, spec).run()
        if not p:
            break
        out = _checked_call(body_fn, args, carried, "body_fn")
        out_leaves = [None] if out is None else pt.tree_leaves(out)
        _check_body_output(out_leaves, carried)
        _check_aliasing(out_leaves, carried, "body_fn")
        carried = out_leaves
    if out is None:   # no iteration: copies of the inputs, as PyTorch returns
        return pt.tree_unflatten([t.clone() if isinstance(t, Tensor) else t for t in leaves],
                                 spec)
    if grad and has_int and any(isinstance(t, Tensor) and t.requires_grad for t in carried):
        raise _int_carry_grad_error()
    return out


# ------------------------------------------------------------------- traced
class _Traced:
    """One traced ``torch.while_loop``: ``cond_fn`` and ``body_fn`` as pure functions of
    arrays under ``jax.lax.while_loop``."""

    def __init__(self, cond_fn, body_fn, leaves, spec):
        self.cond_fn, self.body_fn, self.leaves, self.spec = cond_fn, body_fn, leaves, spec
        self.is_int = [not isinstance(x, Tensor) for x in leaves]
        self.device = next((t._device for t in leaves if isinstance(t, Tensor)), None)
        outer = STATE.trace
        self.lifted = list(outer.lifted_tensors()) if outer is not None else []
        self.closure, self.state = [], []   # the extra inputs of the second trace
        self.read, self.written = {}, {}
        self.out_spec = None

    def init_arrays(self):
        return [jnp.asarray(x, jnp.int64) if i else x._value
                for x, i in zip(self.leaves, self.is_int)]

    def call(self, fn, arrs, cl_arrs, st_arrs, what):
        """``fn`` on wrappers of ``arrs`` with the closure and state installed; returns its
        output and the state's arrays after it ran."""
        prev = STATE.trace
        try:
            with installed(self.lifted, self.state, self.closure, st_arrs, cl_arrs) as start:
                wrappers = [Tensor._make(a, self.device) for a in arrs]
                STATE.trace = Recorder(prev, self.read, _OP)
                with tape_off():
                    out = _checked_call(fn, pt.tree_unflatten(wrappers, self.spec), wrappers, what)
                STATE.trace = prev
                for t in self.lifted:
                    if t._array is not start[id(t)]:
                        if what == "cond_fn":
                            raise mutation_error(_OP, "cond_fn: a tensor closed over")
                        self.written.setdefault(id(t), t)
                out_leaves = [out] if isinstance(out, Tensor) else pt.tree_leaves(out)
                tensors_in = [None if i else w for w, i in zip(wrappers, self.is_int)]
                _check_aliasing(out_leaves, tensors_in, what)
                return out, wrappers, [t._array for t in self.state]
        finally:
            STATE.trace = prev

    def cond(self, arrs, cl_arrs, st_arrs):
        p, _, _ = self.call(self.cond_fn, arrs, cl_arrs, st_arrs, "cond_fn")
        p = _pred(p, any(self.is_int))
        return p._value if isinstance(p, Tensor) else jnp.asarray(p)

    def body(self, arrs, cl_arrs, st_arrs):
        out, wrappers, new_st = self.call(self.body_fn, arrs, cl_arrs, st_arrs, "body_fn")
        leaves, self.out_spec = pt.tree_flatten(out)
        _check_body_output(leaves, wrappers, self.is_int)
        new = [jnp.asarray(o._value if isinstance(o, Tensor) else o, jnp.int64) if i
               else o._value for o, i in zip(leaves, self.is_int)]
        return new, new_st

    def loop(self, arrs, cl_arrs, st_arrs):
        def c(carry):
            return self.cond(carry[1], cl_arrs, carry[2])

        def b(carry):
            new, new_st = self.body(carry[1], cl_arrs, carry[2])
            return carry[0] + 1, new, new_st

        return jax.lax.while_loop(c, b, (jnp.asarray(0, jnp.int32), list(arrs), list(st_arrs)))

    def run(self):
        arrs = self.init_arrays()
        self.loop(arrs, [], [])             # finds the closure and the state written
        grad = STATE.grad_enabled
        self.closure = list(self.read.values()) if grad else []
        self.state = list(self.written.values())
        fl = [i for i, a in enumerate(arrs) if not self.is_int[i] and is_float(a)]
        diff = [i for i in fl if grad and self.leaves[i]._requires_grad]
        if grad and any(self.is_int) and (diff or self.closure):
            raise _int_carry_grad_error()
        st_arrs = [t._array for t in self.state]
        cl_arrs = [t._array for t in self.closure]
        n, outs, new_st = self.loop(arrs, cl_arrs, st_arrs)
        for t, a in zip(self.state, new_st):
            t._array = a
            t._version_counter += 1
        tensors = [Tensor._make(o, self.device) for o in outs]
        inputs = [self.leaves[i] for i in diff] + self.closure
        if inputs:
            pull = self.pullback(n, arrs, cl_arrs, st_arrs, fl, diff)
            for i, t in zip(fl, record_pullback([outs[i] for i in fl], pull, inputs,
                                                "WhileLoopAutogradOpBackward")):
                tensors[i] = t
        return pt.tree_unflatten(tensors, self.out_spec)

    def pullback(self, n, arrs0, cl_arrs, st_arrs0, fl, diff):
        """The backward of the loop: for k = n-1 .. 0, recompute iteration k's carry from the
        initial one, then pull the cotangent back through that one body step."""

        def step(_, carry):
            new, new_st = self.body(carry[0], cl_arrs, carry[1])
            return new, new_st

        def pull(cts):
            def back(j, acc):
                ct, ct_cl = acc
                arrs_k, st_k = jax.lax.fori_loop(0, n - 1 - j, step, (list(arrs0), list(st_arrs0)))

                def f(fl_arrs, cl):
                    a = list(arrs_k)
                    for i, x in zip(fl, fl_arrs):
                        a[i] = x
                    new, _ = self.body(a, cl, st_k)
                    return [new[i] for i in fl]

                _, vjp = jax.vjp(f, [arrs_k[i] for i in fl], list(cl_arrs))
                d_fl, d_cl = vjp(ct)
                return list(d_fl), [x + y for x, y in zip(ct_cl, d_cl)]

            zeros = [jnp.zeros_like(a) for a in cl_arrs]
            ct, ct_cl = jax.lax.fori_loop(0, n, back, (list(cts), zeros))
            by_pos = dict(zip(fl, ct))
            return [by_pos[i] for i in diff] + ct_cl

        return pull
