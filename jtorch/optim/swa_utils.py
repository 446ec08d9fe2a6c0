"""``torch.optim.swa_utils``: weight averaging (SWA and EMA) of a model's parameters,
``update_bn`` to recompute BatchNorm statistics for the averaged weights, and the ``SWALR``
schedule.

``AveragedModel.update_parameters`` runs PyTorch's arithmetic (the foreach lerp of the SWA and
EMA multi-tensor functions, the per-tensor ``avg_fn``) and copies the model's values on the
first update; that choice is a select on ``n_averaged`` rather than a Python branch on its
value, so an update inside a ``jtorch.compile``d step traces.
"""

from __future__ import annotations

import itertools
import math
import warnings
from copy import deepcopy

from .._core.dtypes import int64
from .._ops.compare import where
from .._ops.creation import tensor
from .._ops.foreach import _foreach_add_, _foreach_addcdiv_, _foreach_lerp_, _foreach_sub
from .._tensor import Tensor
from ..autograd import no_grad
from ..nn.modules.batchnorm import _BatchNorm
from ..nn.modules.module import Module
from ._scheduler_base import LRScheduler, format_param

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn",
           "get_swa_multi_avg_fn", "get_ema_avg_fn", "get_swa_avg_fn"]


def _check_decay(decay):
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in "
                         "[0,1] range.")


def _is_float(t):
    return t.is_floating_point() or t.is_complex()


def get_ema_multi_avg_fn(decay=0.999):
    """The in-place multi-tensor EMA update ``ema <- lerp(ema, current, 1 - decay)``."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param_list, current_param_list, _):
        if _is_float(ema_param_list[0]):
            _foreach_lerp_(ema_param_list, current_param_list, 1 - decay)
        else:
            for p_ema, p_model in zip(ema_param_list, current_param_list, strict=True):
                p_ema.copy_(p_ema * decay + p_model * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn():
    """The in-place multi-tensor running mean ``avg <- avg + (current - avg) / (n + 1)``."""

    @no_grad()
    def swa_update(averaged_param_list, current_param_list, num_averaged):
        if _is_float(averaged_param_list[0]):
            _foreach_lerp_(averaged_param_list, current_param_list, 1 / (num_averaged + 1))
        else:   # integer buffers: PyTorch's foreach calls, which reject integer division
            diffs = _foreach_sub(current_param_list, averaged_param_list)
            if isinstance(num_averaged, Tensor):
                _foreach_addcdiv_(averaged_param_list, diffs,
                                  [num_averaged + 1] * len(averaged_param_list))
            else:
                _foreach_add_(averaged_param_list, diffs, alpha=1.0 / (num_averaged + 1))

    return swa_update


def get_ema_avg_fn(decay=0.999):
    """The per-tensor EMA ``decay * ema + (1 - decay) * current``."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param, current_param, num_averaged):
        return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn():
    """The per-tensor running mean ``avg + (current - avg) / (n + 1)``."""

    @no_grad()
    def swa_update(averaged_param, current_param, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


class AveragedModel(Module):
    """A deep copy of ``model`` whose parameters (and buffers with ``use_buffers``) are the
    running SWA average, or the average ``avg_fn``/``multi_avg_fn`` computes, of the models
    passed to :meth:`update_parameters`; ``n_averaged`` counts them."""

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", tensor(0, dtype=int64, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def _averaged(self, averaged, current):
        """The averages of ``averaged`` (not changed) with ``current``, as new tensors."""
        if self.avg_fn is not None:
            return [self.avg_fn(a, c, self.n_averaged.to(a.device))
                    for a, c in zip(averaged, current, strict=True)]
        multi_avg_fn = self.multi_avg_fn
        if multi_avg_fn is None:   # PyTorch's default: the foreach form only on CUDA
            return [self._averaged_on(a, c, a.device.type == "cuda")
                    for a, c in zip(averaged, current, strict=True)]
        out = [a.clone() for a in averaged]
        groups = {}
        for i, a in enumerate(out):
            groups.setdefault((a.device, a.dtype), []).append(i)
        for (device, _), index in groups.items():
            multi_avg_fn([out[i] for i in index], [current[i] for i in index],
                         self.n_averaged.to(device))
        return out

    def _averaged_on(self, a, c, foreach):
        """The default running mean of one tensor: the foreach lerp where PyTorch has foreach
        kernels (CUDA), ``avg + (current - avg) / (n + 1)`` elsewhere."""
        n = self.n_averaged.to(a.device)
        if foreach:
            out = a.clone()
            get_swa_multi_avg_fn()([out], [c], n)
            return out
        return get_swa_avg_fn()(a, c, n)

    def update_parameters(self, model):
        """Average ``model``'s parameters (and buffers, with ``use_buffers``) into this
        model's; the first call copies them. Without ``use_buffers`` the buffers are copied."""
        if self.use_buffers:
            own = itertools.chain(self.module.parameters(), self.module.buffers())
            theirs = itertools.chain(model.parameters(), model.buffers())
        else:
            own, theirs = self.parameters(), model.parameters()
        averaged, current = [], []
        for p_averaged, p_model in zip(own, theirs, strict=False):
            averaged.append(p_averaged.detach())
            current.append(p_model.detach().to(p_averaged.device))
        with no_grad():
            first = self.n_averaged == 0
            for a, new, c in zip(averaged, self._averaged(averaged, current), current):
                a.copy_(where(first.to(a.device), c, new))
            if not self.use_buffers:
                for b_swa, b_model in zip(self.module.buffers(), model.buffers(), strict=True):
                    b_swa.detach().copy_(b_model.detach().to(b_swa.device))
            self.n_averaged += 1


@no_grad()
def update_bn(loader, model, device=None):
    """Recompute the BatchNorm running statistics of ``model`` with one pass over ``loader``
    (cumulative averages: momentum None during the pass)."""
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    for input in loader:
        if isinstance(input, (list, tuple)):
            input = input[0]
        if device is not None:
            input = input.to(device)
        model(input)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneal each group's learning rate to ``swa_lr`` over ``anneal_epochs`` steps (cosine or
    linear), then hold it."""

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos",
                 last_epoch=-1):
        for value, group in zip(format_param("swa_lr", optimizer, swa_lr),
                                optimizer.param_groups, strict=True):
            group["swa_lr"] = value
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got "
                             f"{anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self):
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use "
                          "`get_last_lr()`.", UserWarning, stacklevel=2)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        prev_lrs = [self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
                    for group in self.optimizer.param_groups]
        alpha = self.anneal_func(max(0, min(1, step / max(1, self.anneal_epochs))))
        return [group["swa_lr"] * alpha + lr * (1 - alpha)
                for group, lr in zip(self.optimizer.param_groups, prev_lrs, strict=True)]

    def _set_anneal_func(self, anneal_strategy):
        self._anneal_strategy = anneal_strategy
        self.anneal_func = (self._cosine_anneal if anneal_strategy == "cos"
                            else self._linear_anneal)

    def state_dict(self):
        return {key: value for key, value in self.__dict__.items()
                if key not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict):
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
