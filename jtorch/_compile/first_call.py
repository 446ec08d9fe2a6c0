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
"""

from __future__ import annotations

import jax.numpy as jnp

from .._tensor import Tensor


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
    """The state a first call creates: ``.grad`` shapes and optimizer state layouts."""

    def __init__(self, grads, states):
        self.grads = grads      # [(param, shape, dtype)]
        self.states = states    # [(optimizer, param, group, layout)]

    def apply(self):
        """Make the state; False (and nothing made) where an optimizer cannot."""
        made = []
        for o, p, group, layout in self.states:
            first = getattr(o, "_first_step_state", None)
            state = None if first is None else first(p, group)
            if state is None or _layout(state) != layout:
                return False
            made.append((o, p, state))
        for o, p, state in made:
            o.state[p] = state
        for p, shape, dtype in self.grads:
            p._grad = Tensor._make(jnp.zeros(shape, dtype), p._device)
        return True

    def undo(self):
        for o, p, _, _ in self.states:
            o.state.pop(p, None)
        for p, _, _ in self.grads:
            p._grad = None


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
            group = next(g for g in o.param_groups if any(q is p for q in g["params"]))
            states.append((o, p, group, _layout(state)))
    return Plan(grads, states) if grads or states else None
