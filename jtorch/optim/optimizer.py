"""torch.optim.Optimizer: parameter groups, per-parameter state, state_dict, hooks.

The optimizers themselves build on ``_optax_optimizer.OptaxOptimizer`` (one jitted optax
program per parameter group and step) or, for LBFGS, on this class directly.
"""

from __future__ import annotations

import functools
import warnings
from collections import OrderedDict, defaultdict
from copy import deepcopy
from itertools import chain

from .._core import dtypes
from .._core.hooks import _add_hook
from .._core.state import grad_mode, structure_changed
from .._ops.typeinfo import typename
from .._tensor import Tensor
from . import _transforms

__all__ = ["Optimizer", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook"]

_global_optimizer_pre_hooks: dict = OrderedDict()
_global_optimizer_post_hooks: dict = OrderedDict()


class _RequiredParameter:
    """Singleton for a required optimizer option."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()

# an optimizer's own hooks, each an OrderedDict {handle id: hook}
_HOOK_DICTS = ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks",
               "_optimizer_state_dict_pre_hooks", "_optimizer_state_dict_post_hooks",
               "_optimizer_load_state_dict_pre_hooks", "_optimizer_load_state_dict_post_hooks")


def _register_hook(hooks, hook, prepend=False):
    """Add ``hook`` to the ordered dict ``hooks`` (first where ``prepend``); returns its
    handle (the core's hook registration, plus PyTorch's ``prepend`` option)."""
    handle = _add_hook(hooks, hook)
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


def register_optimizer_step_pre_hook(hook):
    """A pre hook common to all optimizers: ``hook(optimizer, args, kwargs)``."""
    return _register_hook(_global_optimizer_pre_hooks, hook)


def register_optimizer_step_post_hook(hook):
    """A post hook common to all optimizers: ``hook(optimizer, args, kwargs)``."""
    return _register_hook(_global_optimizer_post_hooks, hook)


def closure_with_grad(closure):
    """Run an optimizer step's ``closure`` with grad enabled (a step may run under no_grad);
    returns its loss."""
    with grad_mode(True):
        return closure()


def _hooked_step(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        self = args[0]
        if not (_global_optimizer_pre_hooks or self._optimizer_step_pre_hooks
                or self._optimizer_step_post_hooks or _global_optimizer_post_hooks):
            return func(*args, **kwargs)   # (the common case, without the hook loops)
        for pre_hook in chain(_global_optimizer_pre_hooks.values(),
                              self._optimizer_step_pre_hooks.values()):
            result = pre_hook(self, args, kwargs)
            if result is not None:
                if isinstance(result, tuple) and len(result) == 2:
                    args, kwargs = result
                else:
                    raise RuntimeError(f"{func} must return None or a tuple of (new_args, "
                                       f"new_kwargs), but got {result}.")
        out = func(*args, **kwargs)
        for post_hook in chain(self._optimizer_step_post_hooks.values(),
                               _global_optimizer_post_hooks.values()):
            post_hook(self, args, kwargs)
        return out

    wrapper.hooked = True
    return wrapper


class Optimizer:
    """Base class for all optimizers (``torch.optim.Optimizer(params, defaults)``)."""

    def __init__(self, params, defaults):
        self.defaults = defaults
        for name in _HOOK_DICTS:
            setattr(self, name, OrderedDict())
        self._patch_step_function()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            "Tensors or dicts, but got " + typename(params))
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    def _patch_step_function(self):
        cls = self.__class__
        if not getattr(cls.step, "hooked", False):
            cls.step = _hooked_step(cls.step)

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state,
                "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name in _HOOK_DICTS:
            if name not in self.__dict__:
                setattr(self, name, OrderedDict())
        self._patch_step_function()
        self.defaults.setdefault("differentiable", False)

    def __repr__(self):
        s = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            s += f"\nParameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    s += f"    {key}: {group[key]}\n"
        return s + ")"

    # ------------------------------------------------------------------ hooks
    def register_step_pre_hook(self, hook):
        return _register_hook(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook):
        return _register_hook(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook, prepend=False):
        return _register_hook(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        return _register_hook(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        return _register_hook(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        return _register_hook(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # ------------------------------------------------------------------ state dict
    def state_dict(self):
        for pre_hook in self._optimizer_state_dict_pre_hooks.values():
            pre_hook(self)
        mapping = {}
        start = 0

        def pack(group):
            nonlocal start
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                mapping.setdefault(id(p), i)
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            start += len(packed["params"])
            return packed

        groups = [pack(g) for g in self.param_groups]
        packed_state = {(mapping[id(k)] if isinstance(k, Tensor) else k): v
                        for k, v in self.state.items()}
        sd = {"state": packed_state, "param_groups": groups}
        for post_hook in self._optimizer_state_dict_post_hooks.values():
            r = post_hook(self, sd)
            if r is not None:
                sd = r
        return sd

    @staticmethod
    def _process_value_according_to_param_policy(param, value, param_id, param_groups,
                                                 key=None):
        fused = capturable = False
        for pg in param_groups:
            if param_id in pg["params"]:
                fused = pg.get("fused", False)
                capturable = pg.get("capturable", False)
                break
        if key == "step":   # (PyTorch leaves it on the CPU unless capturable or fused;
            # jtorch's steps keep it on the parameter's device: initial_state)
            return value.to(dtype=dtypes.float32, device=param.device) if (capturable or fused) \
                else value.to(device=param.device)
        if param.is_floating_point():
            return value.to(dtype=param.dtype, device=param.device)
        return value.to(device=param.device)

    def load_state_dict(self, state_dict):
        structure_changed()
        state_dict = state_dict.copy()
        for pre_hook in self._optimizer_load_state_dict_pre_hooks.values():
            r = pre_hook(self, state_dict)
            if r is not None:
                state_dict = r
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))

        def cast(param, value, param_id=None, key=None):
            if isinstance(value, Tensor):
                return Optimizer._process_value_according_to_param_policy(
                    param, value, param_id, state_dict["param_groups"], key)
            if isinstance(value, dict):
                return {k: cast(param, v, param_id, k) for k, v in value.items()}
            if isinstance(value, (list, tuple)):
                return type(value)(cast(param, v, param_id) for v in value)
            return value

        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                state[id_map[k]] = cast(id_map[k], v, k)
            else:
                state[k] = v

        def update_group(group, new_group):
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            return new_group

        self.__setstate__({"state": state,
                           "param_groups": [update_group(g, ng)
                                            for g, ng in zip(groups, saved_groups)]})
        for post_hook in self._optimizer_load_state_dict_post_hooks.values():
            post_hook(self)

    # ------------------------------------------------------------------ grads and groups
    def zero_grad(self, set_to_none=True):
        for group in self.param_groups:
            for p in group["params"]:
                g = p._grad
                if g is not None:
                    if set_to_none:
                        p._grad = None
                    else:
                        if g._node is not None:
                            g.detach_()
                        else:
                            g._requires_grad = False
                        _transforms.write(g, _transforms.zeros_like(g._value))

    def step(self, closure=None):
        raise NotImplementedError

    def add_param_group(self, param_group):
        structure_changed()
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        else:
            param_group["params"] = list(params)
        tensors, names = [], []
        for param in param_group["params"]:
            if isinstance(param, tuple):
                names.append(param[0])
                tensors.append(param[1])
            else:
                tensors.append(param)
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError("all optimizer params should be with/without names. Some param "
                                 "names are missing")
            param_group["param_names"] = names
        for param in tensors:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + typename(param))
            if not self.defaults.get("differentiable", None) and not (
                    param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            param_group.setdefault(name, default)
        ids = [id(p) for p in tensors]
        if len(ids) != len(set(ids)):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in "
                          "future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        seen = set()
        for group in self.param_groups:
            seen.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                txt = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {txt} to the optimizer")
        if not seen.isdisjoint(ids):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)


# ------------------------------------------------------------------ argument checks
def check_lr(lr):
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


def check_nonneg(value, what):
    if not 0.0 <= value:
        raise ValueError(f"Invalid {what} value: {value}")


def check_betas(betas):
    for i in (0, 1):
        if not 0.0 <= betas[i] < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {betas[i]}")
