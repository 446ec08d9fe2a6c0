"""The base of every jtorch optimizer except LBFGS: a step for a parameter group is one jitted
optax program (``_transforms.run_step``).

A step gathers the group's parameters that have a gradient, their state (PyTorch's
``optimizer.state[p]``, passed by name: ``{name: [array per parameter]}``) and the group's
hyperparameters, and runs the group's chain. Hyperparameters are dynamic arguments (a scheduler
changing ``group['lr']`` does not recompile); only flags that change the program (amsgrad,
nesterov, maximize, the weight-decay mode...) are static. The entries the program writes go
back into the same Parameter and state Tensor objects, bumping their version counters.
"""

from __future__ import annotations

from .._core import dtypes
from .._core.errors import not_implemented
from .._core.state import STATE
from .._ops import creation
from .._tensor import Tensor
from . import _transforms
from .optimizer import Optimizer, closure_with_grad

__all__ = ["OptaxOptimizer", "initial_state", "step_counter"]


def _scalar_dtype():
    """PyTorch's ``_get_scalar_dtype``: the dtype of 0-d state such as ``step``."""
    return dtypes.float64 if dtypes.get_default_dtype() is dtypes.float64 else dtypes.float32


def step_counter(value=0.0, device=None):
    """A 0-d state tensor (``step``, ``mu_product``, ``eta``...) of PyTorch's scalar dtype."""
    return creation.tensor(value, dtype=_scalar_dtype(), device=device)


def initial_state(p, *zeros, **scalars):
    """A parameter's first state in PyTorch's order: ``step`` (0), the 0-d entries
    ``scalars`` (name=value), then a tensor of zeros like ``p`` for each name in ``zeros``.
    The 0-d entries are on ``p``'s device, as PyTorch's fused and capturable optimizers (and
    ASGD) keep them: jtorch's step is one program on that device (PyTorch's default
    optimizers keep them on the CPU)."""
    state = {"step": step_counter(device=p.device)}
    for name, value in scalars.items():
        state[name] = step_counter(value, p.device)
    for name in zeros:
        state[name] = creation.zeros_like(p)
    return state


class OptaxOptimizer(Optimizer):
    """An optimizer whose step for a parameter group is one jitted optax program.

    Subclasses define:

    - ``_chain(hyper, flags)`` (a staticmethod): the group's ``optax.chain`` links;
    - ``_Hyper``: a namedtuple of the dynamic hyperparameters; the default ``_hyper(group)``
      reads each field from the group key of the same name as a float (jtorch.compile also
      calls ``_hyper``: the values become inputs of its program);
    - ``_flags(group)``: a hashable NamedTuple of static flags (by default
      ``_transforms.Flags``: maximize and coupled weight decay);
    - ``_init_state(p, group)``: PyTorch's lazy state of ``p``, ``{name: Tensor}``: the one
      place an optimizer names its state entries (its update reads and writes them by name);
    - ``_keeps_state(group)``: False where the group keeps no state (SGD without momentum).
    """

    _chain = None
    _Hyper = None
    # PyTorch's __setstate__ (so load_state_dict) turns a Python-number ``step`` into a 0-d
    # tensor of the scalar dtype (Adam's family, the adaptive ones, ASGD, Adafactor; not SGD)
    _tensor_steps = False

    def __init__(self, params, defaults):
        if defaults.get("differentiable"):
            raise not_implemented(f"torch.optim.{type(self).__name__}(differentiable=True)")
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        if not self._tensor_steps:
            return
        for group in self.param_groups:
            # a subclass's own step (geoopt's RiemannianAdam counts in a Python int): its
            # bias corrections are then computed from a float32 tensor, as in PyTorch
            fused, on_device = group.get("fused"), group.get("capturable") or group.get("fused")
            for p in group["params"]:
                s = self.state.get(p)
                if s and "step" in s and not isinstance(s["step"], Tensor):
                    s["step"] = creation.tensor(
                        float(s["step"]), dtype=dtypes.float32 if fused else _scalar_dtype(),
                        device=p.device if on_device else None)

    def _hyper(self, group):
        return self._Hyper._make([float(group[name]) for name in self._Hyper._fields])

    def _flags(self, group):
        return _transforms.flags_of(group)

    def _init_state(self, p, group):
        return {}

    def _keeps_state(self, group):
        return True

    def _first_step_state(self, p, group):
        """State of ``p`` from which a step computes exactly what the first step computes from
        none, or None where there is no such state. jtorch.compile uses it to compile only the
        steady-state step: the first step creates this same state (``_init_state``) before
        updating."""
        return self._init_state(p, group)

    def _group_step(self, group):
        params, param_arrays, grads = [], [], []
        for p in group["params"]:
            g = p._grad
            if g is not None:
                params.append(p)
                param_arrays.append(p._value)
                grads.append(g._value)
        if not params:
            return
        if self._keeps_state(group):
            all_states, states, names = self.state, [], {}
            for p in params:
                state = all_states[p]
                if not state:
                    state.update(self._init_state(p, group))
                states.append(state)
                names.update(state)
            # {name: [array, or None where a parameter has no such entry yet]}
            columns = {name: [None if (t := state.get(name)) is None else t._value
                              for state in states] for name in names}
        else:   # (PyTorch keeps no entry for such a parameter)
            states, columns = None, {}
        hyper = self._hyper(group)
        if STATE.trace is not None:  # jtorch.compile: hyperparameters are program inputs
            hyper = hyper._make(STATE.trace.hyperparameters(self, group, hyper))
        new_params, written = _transforms.run_step(
            type(self)._chain, self._flags(group), param_arrays, grads, columns, hyper)
        _transforms.write_all(params, new_params)
        if states is None:
            return
        targets, arrays = [], []
        for name, column in written.items():
            for p, state, v in zip(params, states, column):
                if v is None:   # (a parameter this step's update did not write)
                    continue
                t = state.get(name)
                if t is None:   # an entry the step made (SGD's momentum_buffer): p's device
                    state[name] = Tensor._make(v, p._device)
                else:
                    targets.append(t)
                    arrays.append(v)
        _transforms.write_all(targets, arrays)

    def step(self, closure=None):
        """Perform a single optimization step; returns ``closure()``'s loss."""
        loss = None if closure is None else closure_with_grad(closure)
        for group in self.param_groups:
            self._group_step(group)
        return loss
