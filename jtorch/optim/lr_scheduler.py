"""torch.optim.lr_scheduler: pure Python over ``optimizer.param_groups``.

The schedules use PyTorch's recursive (chainable) formulas with the same operation order, so
the float64 learning-rate trajectories are PyTorch's bit for bit; ``step(epoch)`` takes the
closed form where PyTorch does (with its deprecation warning).
"""

from __future__ import annotations

import math
import types
import warnings
from bisect import bisect_right
from collections import Counter

from .._core.errors import torch_name_fallback
from .._core.state import host_side
from .._tensor import Tensor as Tensor  # PyTorch's lr_scheduler re-exports it and Optimizer
from ._cyclic import CosineAnnealingWarmRestarts, CyclicLR, OneCycleLR
from ._scheduler_base import (
    EPOCH_DEPRECATION_WARNING,
    LRScheduler,
    check_optimizer,
    group_values,
    set_group_value,
)
from .optimizer import Optimizer as Optimizer

__all__ = ["LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR",
           "ExponentialLR", "SequentialLR", "CosineAnnealingLR", "ChainedScheduler",
           "ReduceLROnPlateau", "CyclicLR", "CosineAnnealingWarmRestarts", "OneCycleLR",
           "PolynomialLR", "LRScheduler"]


inf = math.inf

_LRScheduler = LRScheduler


class _LambdaBase(LRScheduler):
    def __init__(self, optimizer, lr_lambda, last_epoch=-1, check_callable=False):
        self.optimizer = optimizer
        if not isinstance(lr_lambda, (list, tuple)):
            self.lr_lambdas = [lr_lambda] * len(optimizer.param_groups)
        else:
            if len(lr_lambda) != len(optimizer.param_groups):
                raise ValueError(f"Expected {len(optimizer.param_groups)} lr_lambdas, but got "
                                 f"{len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        if check_callable:
            for fn in self.lr_lambdas:
                if not callable(fn):
                    raise TypeError(f"lr_lambda should be a function, but got "
                                    f"{type(fn).__name__}")
        super().__init__(optimizer, last_epoch)

    def state_dict(self):
        sd = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        sd["lr_lambdas"] = [None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
                            for fn in self.lr_lambdas]
        return sd

    def load_state_dict(self, state_dict):
        lr_lambdas = state_dict.pop("lr_lambdas")
        self.__dict__.update(state_dict)
        state_dict["lr_lambdas"] = lr_lambdas
        for i, fn in enumerate(lr_lambdas):
            if fn is not None:
                self.lr_lambdas[i].__dict__.update(fn)


class LambdaLR(_LambdaBase):
    """lr = base_lr * lr_lambda(epoch)."""

    def get_lr(self):
        self._warn_get_lr()
        return [b * fn(self.last_epoch) for fn, b in zip(self.lr_lambdas, self.base_lrs)]


class MultiplicativeLR(_LambdaBase):
    """lr = lr * lr_lambda(epoch) from the second step on."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        super().__init__(optimizer, lr_lambda, last_epoch, check_callable=True)

    def get_lr(self):
        self._warn_get_lr()
        if self._is_initial:
            return self._lrs()
        return [g["lr"] * fn(self.last_epoch)
                for fn, g in zip(self.lr_lambdas, self.optimizer.param_groups)]


class StepLR(LRScheduler):
    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_get_lr()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._lrs()
        return self._scaled_lrs(self.gamma)

    def _get_closed_form_lr(self):
        return [b * self.gamma ** (self.last_epoch // self.step_size) for b in self.base_lrs]


class MultiStepLR(LRScheduler):
    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_get_lr()
        if self.last_epoch not in self.milestones:
            return self._lrs()
        return self._scaled_lrs(self.gamma ** self.milestones[self.last_epoch])

    def _get_closed_form_lr(self):
        ms = sorted(self.milestones.elements())
        return [b * self.gamma ** bisect_right(ms, self.last_epoch) for b in self.base_lrs]


class ConstantLR(LRScheduler):
    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_get_lr()
        if self.last_epoch == 0:
            return self._scaled_lrs(self.factor)
        if self.last_epoch != self.total_iters:
            return self._lrs()
        return self._scaled_lrs(1.0 / self.factor)

    def _get_closed_form_lr(self):
        return [b * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor))
                for b in self.base_lrs]


class LinearLR(LRScheduler):
    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5,
                 last_epoch=-1):
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and "
                             "less or equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_get_lr()
        if self.last_epoch == 0:
            return self._scaled_lrs(self.start_factor)
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._lrs()
        diff = self.end_factor - self.start_factor
        ratio = 1.0 + diff / (self.total_iters * self.start_factor
                              + (self.last_epoch - 1) * diff)
        return self._scaled_lrs(ratio)

    def _get_closed_form_lr(self):
        return [b * (self.start_factor + (self.end_factor - self.start_factor)
                     * min(self.total_iters, self.last_epoch) / self.total_iters)
                for b in self.base_lrs]


class ExponentialLR(LRScheduler):
    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_get_lr()
        if self._is_initial:
            return self._lrs()
        return self._scaled_lrs(self.gamma)

    def _get_closed_form_lr(self):
        return [b * self.gamma ** self.last_epoch for b in self.base_lrs]


class PolynomialLR(LRScheduler):
    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_get_lr()
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._lrs()
        factor = ((1.0 - self.last_epoch / self.total_iters)
                  / (1.0 - (self.last_epoch - 1) / self.total_iters)) ** self.power
        return self._scaled_lrs(factor)

    def _get_closed_form_lr(self):
        return [b * (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters)
                ** self.power for b in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):  # noqa: N803
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_get_lr()
        e, t, lo = self.last_epoch, self.T_max, self.eta_min
        groups = self.optimizer.param_groups
        if self._is_initial:
            return self._lrs()
        if self._step_count == 1 and e > 0:
            return [lo + (b - lo) * (1 + math.cos(e * math.pi / t)) / 2 for b in self.base_lrs]
        if (e - 1 - t) % (2 * t) == 0:
            return [g["lr"] + (b - lo) * (1 - math.cos(math.pi / t)) / 2
                    for b, g in zip(self.base_lrs, groups)]
        return [(1 + math.cos(math.pi * e / t)) / (1 + math.cos(math.pi * (e - 1) / t))
                * (g["lr"] - lo) + lo for g in groups]

    def _get_closed_form_lr(self):
        lo = self.eta_min
        return [lo + (b - lo) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for b in self.base_lrs]


def _check_schedulers(self, optimizer, schedulers, what):
    if len(schedulers) < 1:
        raise ValueError(f"{self.__class__.__name__} expects at least one scheduler{what}, but "
                         "got no scheduler.")
    for i, s in enumerate(schedulers):
        if not hasattr(s, "optimizer"):
            raise TypeError(f"{self.__class__.__name__} at index {i} should have `optimizer` as "
                            "its attribute.")
        if isinstance(s, ReduceLROnPlateau):
            raise ValueError(f"{self.__class__.__name__} does not support `ReduceLROnPlateau` "
                             "scheduler as it requires additional kwargs to be specified when "
                             "calling `step`, but got one at index "
                             f"{i} in the given schedulers sequence.")
        if optimizer != s.optimizer:
            raise ValueError(f"{self.__class__.__name__} expects all schedulers to belong to the "
                             f"same optimizer, but got scheduler {s.__class__.__name__} at "
                             f"index {i} has {s.optimizer}, which is different from "
                             f"{optimizer.__class__.__name__}.")


class _Composite(LRScheduler):
    def state_dict(self):
        sd = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        sd["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return sd

    def load_state_dict(self, state_dict):
        scheds = state_dict.pop("_schedulers")
        self.__dict__.update(state_dict)
        state_dict["_schedulers"] = scheds
        for s, sd in zip(self._schedulers, scheds):
            s.load_state_dict(sd)


class SequentialLR(_Composite):
    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        _check_schedulers(self, optimizer, schedulers, "")
        if len(milestones) != len(schedulers) - 1:
            raise ValueError("Sequential Schedulers expects number of schedulers provided to be "
                             "one more than the number of milestone points, but got number of "
                             f"schedulers {len(schedulers)} and the number of milestones to be "
                             f"equal to {len(milestones)}")
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        for group in optimizer.param_groups:
            set_group_value(group, "lr", group["initial_lr"])
        self.recursive_undo()
        idx = bisect_right(self._milestones, 0)
        self._schedulers[idx]._initial_step()
        self._last_lr = schedulers[idx].get_last_lr()

    def recursive_undo(self, sched=None):
        s = self if sched is None else sched
        if hasattr(s, "_schedulers"):
            for sub in s._schedulers:
                self.recursive_undo(sub)
        elif hasattr(s, "last_epoch"):
            s.last_epoch -= 1

    @host_side
    def step(self):
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        s = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            s._update_lr(0)
        else:
            s.step()
        self._last_lr = s.get_last_lr()


class ChainedScheduler(_Composite):
    def __init__(self, schedulers, optimizer=None):
        if len(schedulers) < 1:
            _check_schedulers(self, optimizer, schedulers, " to be chained")
        optimizer = optimizer or schedulers[0].optimizer
        _check_schedulers(self, optimizer, schedulers, " to be chained")
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = group_values(schedulers[-1].optimizer, "lr")

    @host_side
    def step(self):
        for s in self._schedulers:
            s.step()
        self._last_lr = group_values(self._schedulers[-1].optimizer, "lr")


class ReduceLROnPlateau(LRScheduler):
    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode="rel", cooldown=0, min_lr=0, eps=1e-8):
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        check_optimizer(optimizer)
        self.optimizer = optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError(f"expected {len(optimizer.param_groups)} min_lrs, got "
                                 f"{len(min_lr)}")
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = group_values(optimizer, "lr")
        self._init_is_better(mode, threshold, threshold_mode)
        self._reset()

    def _reset(self):
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    @host_side
    def step(self, metrics, epoch=None):
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._reduce_lr(epoch)
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = group_values(self.optimizer, "lr")

    def _reduce_lr(self, epoch):
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(
                    f"The number of param groups in the `optimizer` ({len(groups)}) differs "
                    f"from when `ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), "
                    "usually due to a new param group being added to the optimizer. Please "
                    "modify the `min_lrs` field to match the length of the `optimizer` param "
                    "groups.")
            self.min_lrs = [self.default_min_lr] * len(groups)
        for i, group in enumerate(groups):
            old = float(group["lr"])
            new = max(old * self.factor, self.min_lrs[i])
            if old - new > self.eps:
                set_group_value(group, "lr", new)

    @property
    def in_cooldown(self):
        return self.cooldown_counter > 0

    def _is_better(self, a, best):
        if self.mode == "min" and self.threshold_mode == "rel":
            return a < best * (1.0 - self.threshold)
        if self.mode == "min":
            return a < best - self.threshold
        if self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def _init_is_better(self, mode, threshold, threshold_mode):
        if mode not in {"min", "max"}:
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in {"rel", "abs"}:
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.mode_worse = inf if mode == "min" else -inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        self._init_is_better(self.mode, self.threshold, self.threshold_mode)

# a name PyTorch has here and jtorch lacks raises NotImplementedError naming it
__getattr__ = torch_name_fallback("torch.optim.lr_scheduler")
