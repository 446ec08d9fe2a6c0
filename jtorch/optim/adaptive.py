"""Per-coordinate adaptive optimizers: RMSprop, Adagrad, Adadelta, Rprop.

Each optimizer's per-parameter update reads and writes its state by PyTorch's names
(``state["square_avg"]``); the entries are created, once, in its ``_init_state``.
"""

from __future__ import annotations

from collections import namedtuple
from typing import NamedTuple

import jax.numpy as jnp

from .._ops import creation
from . import _transforms as transforms
from ._optax_optimizer import OptaxOptimizer, initial_state
from ._transforms import WeightDecay
from .optimizer import check_lr, check_nonneg

__all__ = ["RMSprop", "Adagrad", "Adadelta", "Rprop"]


def _full_like(p, value):
    """``torch.full_like(p, value)``, the value given to both parts of a complex ``p``."""
    return creation.full_like(p, complex(value, value) if p.is_complex() else value)


# ------------------------------------------------------------------------------- RMSprop
RMSpropHyper = namedtuple("RMSpropHyper", "lr alpha eps weight_decay momentum")


class RMSpropFlags(NamedTuple):
    maximize: bool
    weight_decay: WeightDecay
    momentum: bool    # momentum > 0: the group keeps a momentum_buffer
    centered: bool    # the group keeps a grad_avg


def _rmsprop_update(g, p, state, hyper, flags):
    step = state["step"] + 1
    alpha = hyper.alpha
    square_avg = transforms.addcmul(state["square_avg"] * alpha, g, g, 1 - alpha)
    written = {"step": step, "square_avg": square_avg}
    if flags.centered:
        grad_avg = written["grad_avg"] = transforms.lerp(state["grad_avg"], g, 1 - alpha)
        avg = jnp.sqrt(transforms.addcmul(square_avg, grad_avg, grad_avg, -1))
    else:
        avg = jnp.sqrt(square_avg)
    avg = avg + hyper.eps
    if flags.momentum:
        buf = written["momentum_buffer"] = transforms.addcdiv(
            state["momentum_buffer"] * hyper.momentum, g, avg, 1)
        update = -hyper.lr * buf
    else:
        update = transforms.addcdiv(jnp.zeros_like(p), g, avg, -hyper.lr)
    return update, written


class RMSprop(OptaxOptimizer):
    """``torch.optim.RMSprop``."""

    _chain = staticmethod(transforms.update_chain(_rmsprop_update))
    _tensor_steps = True
    _Hyper = RMSpropHyper

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        check_lr(lr)
        check_nonneg(eps, "epsilon")
        check_nonneg(momentum, "momentum")
        check_nonneg(weight_decay, "weight_decay")
        check_nonneg(alpha, "alpha")
        super().__init__(params, {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps,
                                  "centered": centered, "weight_decay": weight_decay,
                                  "capturable": capturable, "foreach": foreach,
                                  "maximize": maximize, "differentiable": differentiable})

    def _init_state(self, p, group):
        return initial_state(p, "square_avg",
                             *(("momentum_buffer",) if group["momentum"] > 0 else ()),
                             *(("grad_avg",) if group["centered"] else ()))

    def _flags(self, group):
        return RMSpropFlags(bool(group["maximize"]), transforms.weight_decay_mode(group),
                            group["momentum"] > 0, bool(group["centered"]))


# ------------------------------------------------------------------------------- Adagrad
AdagradHyper = namedtuple("AdagradHyper", "lr lr_decay weight_decay eps")


def _adagrad_update(g, p, state, hyper, flags):
    step = state["step"] + 1
    clr = hyper.lr / (1 + (transforms.as_float64(step) - 1) * hyper.lr_decay)
    total = transforms.addcmul(state["sum"], g, g, 1)
    std = jnp.sqrt(total) + hyper.eps
    update = transforms.addcdiv(jnp.zeros_like(p), g, std, transforms.scalar_as(-clr, p))
    return update, {"step": step, "sum": total}


class Adagrad(OptaxOptimizer):
    """``torch.optim.Adagrad`` (state is created for every parameter at construction)."""

    _chain = staticmethod(transforms.update_chain(_adagrad_update))
    _tensor_steps = True
    _Hyper = AdagradHyper

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0,
                 initial_accumulator_value=0, eps=1e-10, foreach=None, *, maximize=False,
                 differentiable=False, fused=None):
        check_lr(lr)
        check_nonneg(lr_decay, "lr_decay")
        check_nonneg(weight_decay, "weight_decay")
        check_nonneg(initial_accumulator_value, "initial_accumulator_value")
        check_nonneg(eps, "epsilon")
        super().__init__(params, {"lr": lr, "lr_decay": lr_decay, "eps": eps,
                                  "weight_decay": weight_decay,
                                  "initial_accumulator_value": initial_accumulator_value,
                                  "foreach": foreach, "maximize": maximize,
                                  "differentiable": differentiable, "fused": fused})
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p].update(self._init_state(p, group))

    def _init_state(self, p, group):
        return {**initial_state(p),
                "sum": _full_like(p, self.defaults["initial_accumulator_value"])}


# ------------------------------------------------------------------------------ Adadelta
AdadeltaHyper = namedtuple("AdadeltaHyper", "lr rho eps weight_decay")


def _adadelta_update(g, p, state, hyper, flags):
    step = state["step"] + 1
    rho = hyper.rho
    square_avg = transforms.addcmul(state["square_avg"] * rho, g, g, 1 - rho)
    std = jnp.sqrt(square_avg + hyper.eps)
    delta = jnp.sqrt(state["acc_delta"] + hyper.eps) / std * g
    acc_delta = transforms.addcmul(state["acc_delta"] * rho, delta, delta, 1 - rho)
    return -hyper.lr * delta, {"step": step, "square_avg": square_avg, "acc_delta": acc_delta}


class Adadelta(OptaxOptimizer):
    """``torch.optim.Adadelta``."""

    _chain = staticmethod(transforms.update_chain(_adadelta_update))
    _tensor_steps = True
    _Hyper = AdadeltaHyper

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        check_nonneg(eps, "epsilon")
        check_nonneg(weight_decay, "weight_decay")
        super().__init__(params, {"lr": lr, "rho": rho, "eps": eps,
                                  "weight_decay": weight_decay, "maximize": maximize,
                                  "capturable": capturable, "foreach": foreach,
                                  "differentiable": differentiable})

    def _init_state(self, p, group):
        return initial_state(p, "square_avg", "acc_delta")


# --------------------------------------------------------------------------------- Rprop
RpropHyper = namedtuple("RpropHyper", "etaminus etaplus step_size_min step_size_max")


def _rprop_update(g, p, state, hyper, flags):
    step = state["step"] + 1
    step_size = state["step_size"]
    etaminus = hyper.etaminus
    sign = jnp.sign(g * state["prev"])
    sign = jnp.where(sign > 0, hyper.etaplus, jnp.where(sign < 0, etaminus,
                                                        jnp.where(sign == 0, 1, sign)))
    sign = sign.astype(step_size.dtype)
    step_size = jnp.clip(step_size * sign, hyper.step_size_min, hyper.step_size_max)
    g = jnp.where(sign == etaminus, 0, g)
    return -(jnp.sign(g) * step_size), {"step": step, "prev": g, "step_size": step_size}


class Rprop(OptaxOptimizer):
    """``torch.optim.Rprop``."""

    _chain = staticmethod(transforms.update_chain(_rprop_update))
    _tensor_steps = True

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        super().__init__(params, {"lr": lr, "etas": etas, "step_sizes": step_sizes,
                                  "foreach": foreach, "maximize": maximize,
                                  "differentiable": differentiable, "capturable": capturable})

    def _hyper(self, group):
        (etaminus, etaplus), (step_size_min, step_size_max) = group["etas"], group["step_sizes"]
        return RpropHyper(float(etaminus), float(etaplus), float(step_size_min),
                          float(step_size_max))

    def _init_state(self, p, group):
        return {**initial_state(p, "prev"), "step_size": _full_like(p, float(group["lr"]))}

    def _flags(self, group):   # (Rprop has no weight decay)
        return transforms.Flags(bool(group["maximize"]), WeightDecay.NONE)
