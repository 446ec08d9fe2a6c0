"""The first call of a training step, run by the program compiled for the steady state.

A step's first call usually creates state: the parameters' ``.grad`` and the optimizer's
per-parameter state (``exp_avg``, ``momentum_buffer``...) do not exist before it. Compiled as
it is, that call would get a program of its own, used once, and the second call would compile
the steady state. Instead, when a call finds such state missing (:func:`missing_state`), the
step is traced once abstractly (``jax.eval_shape``: no compilation) to see which state it
creates (:func:`plan`), that state is made before the call (:meth:`Plan.apply`), and the
steady-state program is compiled and runs the first call too. The numbers are the same:

- a missing ``.grad`` is made as zeros: backward accumulates into it (0 + g is g), and a step
  that clears it first (``zero_grad()``) discards it;
- an optimizer's missing state is made by its ``_first_step_state(p, group)``: the state from
  which its step computes exactly what its first step computes from none (for jtorch's
  optimizers, the state their first step creates before updating; SGD's momentum buffer is
  zeros without dampening). An optimizer without that method, or returning None (SGD with
  dampening), or state of another layout than the step creates, keeps the first call's own
  program (it compiles twice, as before).

The probe costs a trace. Usually the plan is known without it: every missing ``.grad`` is
made by backward and every optimizer's missing state by its step. So a first call first
*guesses* that plan (:func:`guess`), makes that state and traces the steady-state program
once; the trace checks (:meth:`Plan.took_effect`) that backward wrote every guessed
``.grad`` and the optimizer step every guessed state tensor. Where it did not (a parameter
the loss does not use keeps ``.grad is None``, as in PyTorch; a step that runs no optimizer
step), the trace raises :class:`Misguessed` before anything is compiled, the guessed state is
removed, and the call takes the probe's path. A guess that holds is the plan the probe would
have found, so the program and its numbers are the same.
"""

from __future__ import annotations

import jax
import numpy as np

from .._core.device import to_jax
from .._tensor import Tensor


class Misguessed(Exception):
    """Raised inside the trace of a guessed plan that the step did not bear out."""


def missing_state(st):
    """``(grads, states)``: the tensors of ``st`` that require grad and have no ``.grad``, and
    the (optimizer, parameter) pairs without state; None when no optimizer misses anything."""
    grads = [p for p in st.grad_params if p._grad is None]
    states = []
    for o in st.optimizers:
        for g in o.param_groups:
            for p in g["params"]:
                if p.requires_grad and not o.state.get(p):
                    states.append((o, p))
    if not states and not any(p._grad is None for o in st.optimizers
                              for g in o.param_groups for p in g["params"] if p.requires_grad):
        return None
    return grads, states


def _layout(state):
    return {k: (v.shape, v.dtype) if isinstance(v, Tensor) else ("value", v)
            for k, v in state.items()}


class Plan:
    """The state a first call creates: ``.grad`` shapes and optimizer state layouts (None for
    a guessed plan: the layout the optimizer's ``_first_step_state`` gives)."""

    def __init__(self, grads, states, guessed=False):
        self.grads = grads      # [(param, shape, dtype)]
        self.states = states    # [(optimizer, param, group, layout)]
        self.guessed = guessed
        self.made = []          # [(optimizer, param, state)] by the last apply()

    def apply(self):
        """Make the state; False (and nothing made) where an optimizer cannot."""
        made = []
        for o, p, group, layout in self.states:
            first = getattr(o, "_first_step_state", None)
            state = None if first is None else first(p, group)
            if state is None or (layout is not None and _layout(state) != layout):
                return False
            if state:   # (an optimizer keeping no state for p, as SGD without momentum)
                made.append((o, p, state))
        for o, p, state in made:
            o.state[p] = state
        for p, shape, dtype in self.grads:   # (a host copy: no program compiled per shape)
            p._grad = Tensor._make(jax.device_put(np.zeros(shape, dtype), to_jax(p._device)),
                                   p._device)
        self.made = made
        return True

    def undo(self):
        for o, p, _ in self.made:
            o.state.pop(p, None)
        for p, _, _ in self.grads:
            p._grad = None
        self.made = []

    def took_effect(self, values_in, grads_in):
        """Whether a traced step wrote all the state made: every ``.grad`` (backward) and
        every optimizer state tensor (the step). ``values_in``: ``{id(tensor): array}`` and
        ``grads_in``: ``{id(param): grad array}``, what the trace started from."""
        for p, _, _ in self.grads:
            if p._grad is None or p._grad._array is grads_in.get(id(p)):
                return False
        for o, p, state in self.made:
            now = o.state.get(p) or {}
            for k, v in state.items():
                if isinstance(v, Tensor):
                    w = now.get(k)
                    if not isinstance(w, Tensor) or w._array is values_in.get(id(v)):
                        return False
        return True


def _group_of(o, p):
    return next(g for g in o.param_groups if any(q is p for q in g["params"]))


def guess(st):
    """The :class:`Plan` a first call of a training step usually creates, without tracing it:
    a ``.grad`` for every tensor of ``st`` that misses one, optimizer state for every
    parameter that misses it; None when nothing is missing."""
    missing = missing_state(st)
    if missing is None:
        return None
    grads, states = missing
    return Plan([(p, tuple(p._value.shape), p._value.dtype) for p in grads],
                [(o, p, _group_of(o, p), None) for o, p in states], guessed=True)


def plan(missing):
    """The :class:`Plan` of what a traced call created of the ``missing`` state, read from the
    objects while they still hold the abstract trace's values; None when it created nothing."""
    grads_missing, states_missing = missing
    grads = [(p, p._grad._value.shape, p._grad._value.dtype) for p in grads_missing
             if p._grad is not None]
    states = []
    for o, p in states_missing:
        state = o.state.get(p)
        if state:
            states.append((o, p, _group_of(o, p), _layout(state)))
    return Plan(grads, states) if grads or states else None
