"""The compiler's side of the core's trace hooks (``jtorch._core.state.TraceHooks``).

While ``jtorch.compile`` traces a function, a :class:`TraceContext` is installed in the thread's
``STATE.trace`` (:func:`tracing`). Every piece of state the function touches must be lifted
(made an input and an output of the compiled program); the core calls the context when it meets
state: an op's tensor inputs, an in-place write, a generator split, an optimizer's
hyperparameters, a host-side call to replay. A tensor that existed before the trace and was not
lifted raises ``Rediscover(tensor)``: the compiler lifts it and traces again (or, when the user
listed the state explicitly, raises a ``CompileError`` naming it).
"""

from __future__ import annotations

import contextlib

import jax

from .._core.state import STATE, TraceHooks


class Rediscover(Exception):
    """Raised inside a trace when state that was not lifted is met; carries the object."""

    def __init__(self, obj):
        super().__init__(f"state not lifted: {type(obj).__name__}")
        self.obj = obj


class Unsupported(Exception):
    """Something a trace can run but a compiled program cannot reproduce (falls back)."""


class NeedsTape(Exception):
    """Raised inside a trace that does not record the tape when the function differentiates
    inside itself (MACE's forces, ``autograd.grad`` of the energy in ``forward``): the trace
    starts again recording it."""


class TraceContext(TraceHooks):
    """The state of one trace: which tensors are lifted, the traced hyperparameters of each
    optimizer group, and the host-side calls to replay after each run."""

    def __init__(self, tensors, hypers=None, tape=True):
        self.tensors = tensors                 # the lifted tensors
        self.tape = tape                       # whether the tape records inside the trace
        self.lifted = {id(t) for t in tensors}
        self.hypers = hypers or {}             # {(id(optimizer), group index): traced values}
        self.replays = []                      # [(method, obj, args, kwargs)]
        self._in_host_call = False

    def touched(self, t):
        if t is None or t._in_trace:
            return
        if t._sparse is not None:   # an op's sparse operand: its parts are what it reads
            for part in t._sparse.tensors():
                self.touched(part)
            return
        while t._base is not None:
            t = t._base
        if not t._in_trace and id(t) not in self.lifted and \
                not isinstance(t._array, jax.core.Tracer):
            raise Rediscover(t)

    def hyperparameters(self, optimizer, group, values):
        gi = next(i for i, g in enumerate(optimizer.param_groups) if g is group)
        got = self.hypers.get((id(optimizer), gi))
        if got is None:
            raise Rediscover(optimizer)
        if self.replays:
            raise Unsupported("lr_scheduler.step() ran before optimizer.step() inside the "
                              "compiled function; call it after optimizer.step()")
        return got

    def host_call(self, method, obj, args, kwargs):
        if self._in_host_call:   # only the outermost call is replayed
            return method(obj, *args, **kwargs)
        self.replays.append((method, obj, args, kwargs))
        self._in_host_call = True
        try:
            return method(obj, *args, **kwargs)
        finally:
            self._in_host_call = False

    def lifted_tensors(self):
        return self.tensors

    def untaped_grad(self):
        if not self.tape:
            raise NeedsTape


@contextlib.contextmanager
def tracing(ctx):
    """Install ``ctx`` as this thread's trace for the duration of the block."""
    prev = STATE.trace
    STATE.trace = ctx
    try:
        yield ctx
    finally:
        STATE.trace = prev

