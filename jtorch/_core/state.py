"""The mutable state the core reads on every op, in one place.

Per thread (as in PyTorch, a grad mode or a trace in one thread does not affect another):

- ``STATE.grad_enabled`` / ``STATE.inference``: the grad mode (``torch.no_grad()`` and friends in
  ``jtorch/autograd/grad_mode.py`` set them; the dispatcher and the engine read them).
- ``STATE.default_device`` (``torch.set_default_device``) and ``STATE.device_blocks`` (the
  ``with torch.device(...)`` blocks running, innermost last): where factories put tensors.
- ``STATE.multithreading``: ``torch.autograd.set_multithreading_enabled``'s flag (jtorch's
  engine runs a backward on the calling thread either way: recorded and reported only).
- ``STATE.saved_hooks``: the ``(pack_hook, unpack_hook)`` pairs of the
  ``torch.autograd.graph.saved_tensors_hooks`` blocks running, innermost last (only the last
  applies); ``STATE.saved_hooks_disabled``: ``disable_saved_tensors_hooks``'s message, or None.
  Node creation reads ``STATE.saved_hooks`` once (jtorch/_core/saved_hooks.py).
- ``STATE.saving``: the pickler of the ``torch.save`` running in this thread while it calls a
  tensor subclass's own ``__reduce_ex__``, or None; a tensor's ``__reduce_ex__`` (which the
  subclass's calls) returns PyTorch's records there.
- ``STATE.grad_traces``: the JAX traces of the reverse-mode ``torch.func`` transforms (``grad``,
  ``vjp``, ``jacrev``...) whose function is running, innermost last (jtorch/func/_core.py sets
  them). While there are any, an op run with grad mode off gives constants to them (as
  ``torch.no_grad()`` inside ``torch.func.grad`` does in PyTorch), and ``Tensor.requires_grad``
  is True for a tensor whose array is traced by one of them.
- ``STATE.trace``: ``None``, or the :class:`TraceHooks` of the ``jtorch.compile`` trace running in
  this thread. The compiler installs it for the duration of a trace; the core calls it only
  while it is set, so outside a trace each hook costs one attribute read.

Per process:

- ``ANOMALY``: autograd's anomaly mode (``torch.autograd.set_detect_anomaly``), process-wide
  as PyTorch's; the engine reads it once per backward and node creation once per node.

- the structure epoch: bumped (:func:`structure_changed`) when state is registered or replaced
  (a Module attribute, a parameter or buffer, a conversion, an optimizer's param groups or state
  loads). A compiled function whose epoch is older walks its state again.
"""

from __future__ import annotations

import functools
import threading


class _ThreadState(threading.local):
    grad_enabled = True
    inference = False
    multithreading = True
    trace = None
    default_device = None
    device_blocks = ()
    saved_hooks = ()
    saved_hooks_disabled = None
    saving = None
    grad_traces = ()


STATE = _ThreadState()


class swapped:  # noqa: N801 - used like a context-manager function
    """``with swapped(holder, name, value): ...`` runs the block with ``holder.<name>`` (a
    thread-local's attribute) set to ``value``, then restores the value it had."""

    __slots__ = ("_holder", "_name", "_value", "_prev")

    def __init__(self, holder, name, value):
        self._holder, self._name, self._value = holder, name, value

    def __enter__(self):
        self._prev = getattr(self._holder, self._name)
        setattr(self._holder, self._name, self._value)

    def __exit__(self, *exc):
        setattr(self._holder, self._name, self._prev)
        return False


def grad_mode(enabled):
    """``with grad_mode(False): ...`` runs the block with grad mode set, then restores it."""
    return swapped(STATE, "grad_enabled", enabled)


class tape_off:  # noqa: N801 - used like a context-manager function
    """``with tape_off(): ...``: grad mode off for jtorch's tape only, for code whose derivative
    JAX takes itself (an old-style Function's forward under ``torch.func``, a checkpointed
    segment, ``cond``'s and ``while_loop``'s branches): its ops record no node and are not made
    constants to a running ``torch.func`` transform (``STATE.grad_traces``)."""

    __slots__ = ("_prev",)

    def __enter__(self):
        self._prev = STATE.grad_enabled, STATE.grad_traces
        STATE.grad_enabled, STATE.grad_traces = False, ()

    def __exit__(self, *exc):
        STATE.grad_enabled, STATE.grad_traces = self._prev
        return False


class TraceHooks:
    """What the core asks of a running ``jtorch.compile`` trace (``STATE.trace``).

    A trace turns state into inputs and outputs of one XLA program, so it must see every piece
    of state the traced function touches. jtorch/_compile/context.py implements these; the core
    calls them at the only places state can be met: a dispatched op's tensor inputs, an in-place
    write, a generator split, an optimizer's hyperparameters and a host-side call to replay.
    """

    def touched(self, tensor):
        """``tensor`` is read, written or differentiated by the trace; one that existed before
        the trace began and was not lifted makes the trace start again with it lifted."""
        raise NotImplementedError

    def hyperparameters(self, optimizer, group, values):
        """The traced stand-ins for ``values``, the hyperparameters of ``optimizer``'s
        ``group`` (so a changed learning rate does not recompile)."""
        raise NotImplementedError

    def host_call(self, method, obj, args, kwargs):
        """``method(obj, *args, **kwargs)`` is a host-side call (``LRScheduler.step``) that the
        compiled program must repeat after each run; returns its result."""
        raise NotImplementedError

    def lifted_tensors(self):
        """The tensors lifted into the trace (``utils.checkpoint`` threads them through)."""
        raise NotImplementedError

    def untaped_grad(self):
        """A ``backward`` or ``autograd.grad`` inside the trace met an output that does not
        require grad. A trace that runs without recording the tape (the vjp form of a compiled
        module, which ``jax.vjp`` differentiates) raises to start again recording it; the
        others return, and the call raises PyTorch's error."""


def host_side(method):
    """Mark a method whose effect stays on the host (``LRScheduler.step``): a compiled
    function records the call during its trace and repeats it after each run."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        trace = STATE.trace
        if trace is not None:
            return trace.host_call(method, self, args, kwargs)
        return method(self, *args, **kwargs)

    return wrapper


class _AnomalyMode:
    """PyTorch's AnomalyMode flags: ``enabled`` (record each node's forward stack, warn with it
    when its backward fails) and ``check_nan`` (a backward output with NaN raises)."""

    __slots__ = ("enabled", "check_nan")

    def __init__(self):
        self.enabled = False
        self.check_nan = True


ANOMALY = _AnomalyMode()


# ------------------------------------------------------------------ the structure epoch
_epoch = [0]


def structure_changed():
    """Registered state changed shape (see the module docstring)."""
    _epoch[0] += 1


def structure_epoch() -> int:
    return _epoch[0]
