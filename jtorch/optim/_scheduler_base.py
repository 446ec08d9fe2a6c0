"""The base of torch.optim.lr_scheduler: ``LRScheduler`` and the helpers every schedule uses
(reading and writing a value of each parameter group, momentum cycling)."""

from __future__ import annotations

import warnings
from functools import wraps
from weakref import ref

from .._core.state import host_side
from .._tensor import Tensor
from .optimizer import Optimizer

__all__ = ["LRScheduler", "EPOCH_DEPRECATION_WARNING"]

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated "
    "where possible. Please use `scheduler.step()` to step the scheduler. During the "
    "deprecation, if epoch is different from None, the closed form is used instead of the new "
    "chainable form, where available. Please open an issue if you are unable to replicate "
    "your use case: https://github.com/pytorch/pytorch/issues/new/choose.")


def copy_value(v):
    return v.clone() if isinstance(v, Tensor) else v


def format_param(name, optimizer, param):
    if isinstance(param, (list, tuple)):
        if len(param) != len(optimizer.param_groups):
            raise ValueError(f"{name} must have the same length as optimizer.param_groups. "
                             f"{name} has {len(param)} values, param_groups has "
                             f"{len(optimizer.param_groups)}.")
    else:
        param = [param] * len(optimizer.param_groups)
    return [copy_value(p) for p in param]


def group_values(optimizer, key):
    return [copy_value(g[key]) for g in optimizer.param_groups]


def set_group_value(group, key, val):
    if isinstance(group[key], Tensor):
        group[key].fill_(float(val))
    else:
        group[key] = val


def check_optimizer(optimizer):
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")


class LRScheduler:
    """Base class: ``last_epoch``, ``base_lrs``, ``get_last_lr()``, ``step()``."""

    _get_lr_called_within_step = False
    _is_initial = False

    def __init__(self, optimizer, last_epoch=-1):
        check_optimizer(optimizer)
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", copy_value(group["lr"]))
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when "
                        "resuming scheduler with last_epoch >= 0.\nThis typically happens "
                        "when:\n1. You're trying to resume training from a checkpoint but "
                        "haven't properly loaded the optimizer state\n2. You're using "
                        "last_epoch >= 0 for a fresh training run (not recommended)")
        self.base_lrs = group_values(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        _track_step_called(optimizer)
        self._initial_step()

    def _initial_step(self):
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def state_dict(self):
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)

    def get_last_lr(self):
        return self._last_lr

    def get_lr(self):
        raise NotImplementedError

    @host_side
    def step(self, epoch=None):
        if self._step_count == 1:
            if not hasattr(self.optimizer.step, "_wrapped_by_lr_sched"):
                warnings.warn(
                    "Seems like `optimizer.step()` has been overridden after learning rate "
                    "scheduler initialization. Please, make sure to call `optimizer.step()` "
                    "before `lr_scheduler.step()`. See more details at "
                    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                    UserWarning, stacklevel=2)
            elif not getattr(self.optimizer, "_opt_called", False):
                warnings.warn(
                    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In "
                    "PyTorch 1.1.0 and later, you should call them in the opposite order: "
                    "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this will "
                    "result in PyTorch skipping the first value of the learning rate schedule. "
                    "See more details at "
                    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                    UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch=None):
        if epoch is None:
            self.last_epoch += 1
            self._set_lrs(self.get_lr)
        else:
            self.last_epoch = epoch
            self._set_lrs(getattr(self, "_get_closed_form_lr", self.get_lr))

    def _set_lrs(self, compute):
        """Write ``compute()``'s learning rates (get_lr, or the closed form) into the groups,
        as a step does (get_lr does not warn then), and record them for get_last_lr()."""
        self._get_lr_called_within_step = True
        try:
            values = compute()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values):
            set_group_value(group, "lr", lr)
        self._last_lr = group_values(self.optimizer, "lr")

    def _warn_get_lr(self):
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use "
                          "`get_last_lr()`.", UserWarning, stacklevel=3)

    def _lrs(self):
        """The groups' current learning rates (copies)."""
        return group_values(self.optimizer, "lr")

    def _scaled_lrs(self, factor):
        """Each group's current learning rate times ``factor`` (PyTorch's chainable form)."""
        return [group["lr"] * factor for group in self.optimizer.param_groups]


def _track_step_called(opt):
    if hasattr(opt.step, "_wrapped_by_lr_sched"):
        return
    opt_ref = ref(opt)
    func = opt.step.__func__

    @wraps(func)
    def wrapper(*args, **kwargs):
        o = opt_ref()
        o._opt_called = True
        return func.__get__(o, o.__class__)(*args, **kwargs)

    wrapper._wrapped_by_lr_sched = True
    opt.step = wrapper



def set_momentum(group, use_beta1, m):
    if use_beta1:
        group["betas"] = (m, *group["betas"][1:])
    else:
        group["momentum"] = m


def init_momentum(self, optimizer, base_momentum, max_momentum, last_epoch):
    if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
        raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` "
                         "option enabled")
    self.use_beta1 = "betas" in optimizer.defaults
    maxs = format_param("max_momentum", optimizer, max_momentum)
    bases = format_param("base_momentum", optimizer, base_momentum)
    if last_epoch == -1:
        for mx, bs, group in zip(maxs, bases, optimizer.param_groups):
            set_momentum(group, self.use_beta1, mx)
            group["max_momentum"] = mx
            group["base_momentum"] = bs
    return bases, maxs

