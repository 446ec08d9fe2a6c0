"""What the core consults while ``jtorch.compile`` traces a function.

While a trace runs, every piece of state the function touches must be lifted (an input and
an output of the compiled program). The core calls ``CTX`` when it meets state that is not:
an in-place write into a tensor holding a concrete array (``_views.assign``), a leaf that
requires grad used by a recorded op (``_dispatch._record``), a generator whose key is concrete
(``_random.next_key``), or an optimizer that was not found (``optim``). Each raises
``Rediscover(obj)``; the compiler adds ``obj`` to its roots and traces again. Outside a trace
each check is one attribute read.
"""

from __future__ import annotations


class Rediscover(Exception):
    """Raised inside a trace when state that was not lifted is met; carries the object."""

    def __init__(self, obj):
        super().__init__(f"state not lifted: {type(obj).__name__}")
        self.obj = obj


class _Ctx:
    tracing = False
    lifted = None     # id() of every lifted tensor (and generator, optimizer)
    tensors = None    # the lifted tensors themselves
    hypers = None     # {(id(optimizer), group index): tuple of traced hyperparameters}
    replays = None    # host-side calls made during the trace, replayed after each run
    in_host_call = False

    def check(self, t):
        """``t`` (a tensor the trace reads, writes or differentiates) must be lifted if it
        existed before the trace began."""
        if t is None or t._in_trace:
            return
        while t._base is not None:
            t = t._base
        if not t._in_trace and id(t) not in self.lifted and not _is_tracer(t._array):
            raise Rediscover(t)

    def check_all(self, tensors):
        for t in tensors:
            self.check(t)

    def hyper(self, opt, group, values):
        gi = next(i for i, g in enumerate(opt.param_groups) if g is group)
        got = self.hypers.get((id(opt), gi))
        if got is None:
            raise Rediscover(opt)
        if self.replays:
            raise Unsupported("lr_scheduler.step() ran before optimizer.step() inside the "
                              "compiled function; call it after optimizer.step()")
        return got


def _is_tracer(v):
    import jax

    return isinstance(v, jax.core.Tracer)


CTX = _Ctx()

# bumped whenever state is registered or replaced (Module attribute and buffer/parameter
# registration, conversions, optimizer param groups and state loads): a compiled function
# whose epoch is older walks its state again before looking up its guards
EPOCH = [0]


def structure_changed():
    EPOCH[0] += 1


class Unsupported(Exception):
    """Something a trace can run but a compiled program cannot reproduce (falls back)."""


def replayable(method):
    """Mark a host-side method (``LRScheduler.step``) whose effect a compiled function must
    repeat after each run: during a trace its call is recorded (the outermost one only)."""
    import functools

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        if CTX.tracing and not CTX.in_host_call:
            CTX.replays.append((wrapper, self, args, kwargs))
            CTX.in_host_call = True
            try:
                return method(self, *args, **kwargs)
            finally:
                CTX.in_host_call = False
        return method(self, *args, **kwargs)

    return wrapper
