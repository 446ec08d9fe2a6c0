"""What torch.cond and torch.while_loop share: PyTorch's error texts for higher-order ops, the
trace hooks that note which closed-over tensors a traced function reads, and small helpers."""

from __future__ import annotations

import contextlib

import jax.numpy as jnp

from .._core.state import TraceHooks
from .._dynamo.exc import UncapturedHigherOrderOpError

_BREAK = ("This higher order operator doesn't work unless it is captured completely with "
          "torch.compile. Got graph break/error:\n\n")


def hop_error(op, title, explanation, hints=(), debug=""):
    """PyTorch's graph-break error for the higher-order op ``op`` (``"torch.cond"``)."""
    lines = [title, f"  Higher Order Operator: {op}", f"  Explanation: {explanation}"]
    lines += [f"  Hint: {h}" for h in hints]
    if debug:
        lines += ["", f"  Developer debug context: {debug}"]
    return UncapturedHigherOrderOpError(_BREAK + "\n".join(lines))


def mutation_error(op, where):
    return hop_error(
        op, "Encountered input mutation during higher order op tracing",
        f"Higher order ops do not support input mutation. Found in {op}.",
        ("Consider using the debug context to change user code to avoid mutation.",),
        f"Input mutation detected at {where}")


def aliasing_error(op, kind, where):
    return hop_error(
        op, "Encountered aliasing during higher order op tracing",
        f"Higher order ops do not support aliasing. Found in {op}.",
        ("Replace `return input` with `return input.clone()` to avoid aliasing.",
         "Consider using the debug context to change user code to avoid aliasing."),
        f"{kind} aliasing detected at {where}")


def is_float(a):
    return jnp.issubdtype(a.dtype, jnp.inexact)


def torch_dtype_name(np_dtype):
    return f"torch.{jnp.dtype(np_dtype).name}"


class Recorder(TraceHooks):
    """The trace hooks while a higher-order op's function is traced: every tensor an op reads
    that requires grad is noted in ``read`` (the function runs under no_grad, so those were
    made outside it), then passed on to the compile trace, if one runs (``outer``). ``op``
    names the operator in the errors for what it cannot trace yet."""

    def __init__(self, outer, read, op="torch.cond"):
        self.outer, self.read, self.op = outer, read, op

    def touched(self, tensor):
        if tensor is not None and tensor._requires_grad:
            self.read.setdefault(id(tensor), tensor)
        if self.outer is not None:
            self.outer.touched(tensor)

    def hyperparameters(self, optimizer, group, values):
        if self.outer is None:
            raise NotImplementedError("jtorch does not implement an optimizer step inside "
                                      f"{self.op} yet")
        return self.outer.hyperparameters(optimizer, group, values)

    def host_call(self, method, obj, args, kwargs):
        if self.outer is None:
            return method(obj, *args, **kwargs)
        return self.outer.host_call(method, obj, args, kwargs)

    def lifted_tensors(self):
        return [] if self.outer is None else self.outer.lifted_tensors()


@contextlib.contextmanager
def installed(lifted, state, closure, st_arrs, cl_arrs):
    """While a branch or loop function is traced: ``state``'s tensors hold ``st_arrs`` and the
    closed-over ``closure`` tensors hold ``cl_arrs`` (as plain arrays, not requiring grad).
    Yields the arrays the ``lifted`` tensors held at the start (a write replaces one); every
    tensor touched gets its array, requires_grad and version back afterwards."""
    keep = {id(t): (t, t._array, t._requires_grad, t._version_counter)
            for t in [*lifted, *state, *closure]}
    try:
        for t, a in zip(state, st_arrs):
            t._array = a
        for t, a in zip(closure, cl_arrs):
            t._array, t._requires_grad = a, False
        yield {id(t): t._array for t in lifted}
    finally:
        for t, a, rg, vc in keep.values():
            t._array, t._requires_grad, t._version_counter = a, rg, vc
