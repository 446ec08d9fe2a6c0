"""The Adam family: Adam, AdamW, Adamax, NAdam, RAdam (and SparseAdam, not implemented).

Each optimizer's per-parameter update reads and writes its state by PyTorch's names
(``state["exp_avg"]``); the entries are created, once, in its ``_init_state``.
"""

from __future__ import annotations

from collections import namedtuple
from typing import NamedTuple

import jax.numpy as jnp

from .._core.errors import missing_class
from .._tensor import Tensor
from . import _transforms as transforms
from ._optax_optimizer import OptaxOptimizer, initial_state
from ._transforms import WeightDecay
from .optimizer import Optimizer, check_betas, check_lr, check_nonneg

__all__ = ["Adam", "AdamW", "Adamax", "NAdam", "RAdam", "SparseAdam"]


AdamHyper = namedtuple("AdamHyper", "lr beta1 beta2 eps weight_decay")
NAdamHyper = namedtuple("NAdamHyper", "lr beta1 beta2 eps weight_decay momentum_decay")


class AdamFlags(NamedTuple):
    maximize: bool
    weight_decay: WeightDecay
    amsgrad: bool


def _check_adam_args(lr, betas, eps, weight_decay):
    check_lr(lr)
    check_nonneg(eps, "epsilon")
    check_betas(betas)
    check_nonneg(weight_decay, "weight_decay")


def _adam_defaults(lr, betas, eps, weight_decay, **options):
    """The defaults of Adamax, NAdam and RAdam: the four hyperparameters of the family,
    checked, then the member's ``options`` in its PyTorch order."""
    _check_adam_args(lr, betas, eps, weight_decay)
    return {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, **options}


def _moments(g, m, v, beta1, beta2):
    return transforms.lerp(m, g, 1 - beta1), transforms.addcmul(v * beta2, g, g, 1 - beta2)


class _AdamFamily(OptaxOptimizer):
    """The family's hyperparameters (``betas`` split in two), flags and first state (Adam's
    and RAdam's; ``max_exp_avg_sq`` with amsgrad)."""

    _tensor_steps = True

    def _hyper(self, group):
        beta1, beta2 = group["betas"]
        return AdamHyper(float(group["lr"]), float(beta1), float(beta2), float(group["eps"]),
                         float(group["weight_decay"]))

    def _flags(self, group):
        return AdamFlags(bool(group["maximize"]), transforms.weight_decay_mode(
            group, group.get("decoupled_weight_decay", False)), bool(group.get("amsgrad")))

    def _init_state(self, p, group):
        return initial_state(p, "exp_avg", "exp_avg_sq",
                             *(("max_exp_avg_sq",) if group.get("amsgrad") else ()))


# ---------------------------------------------------------------------------------- Adam
def _adam_update(g, p, state, hyper, flags):
    step = state["step"] + 1
    m, v = _moments(g, state["exp_avg"], state["exp_avg_sq"], hyper.beta1, hyper.beta2)
    written = {"step": step, "exp_avg": m, "exp_avg_sq": v}
    s = transforms.as_float64(step)
    step_size = hyper.lr / (1 - hyper.beta1 ** s)
    bias_correction2_sqrt = (1 - hyper.beta2 ** s) ** 0.5
    if flags.amsgrad:
        v = written["max_exp_avg_sq"] = jnp.maximum(state["max_exp_avg_sq"], v)
    denom = jnp.sqrt(v) / transforms.scalar_as(bias_correction2_sqrt, p) + hyper.eps
    update = transforms.addcdiv(jnp.zeros_like(p), m, denom,
                                transforms.scalar_as(-step_size, p))
    return update, written


class Adam(_AdamFamily):
    """``torch.optim.Adam``."""

    _chain = staticmethod(transforms.update_chain(_adam_update))

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        _check_adam_args(lr, betas, eps, weight_decay)
        if not ((isinstance(betas[0], float) and isinstance(betas[1], float))
                or (isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor))):
            raise ValueError("betas must be either both floats or both Tensors")
        betas = tuple(b.squeeze() if isinstance(b, Tensor) and b.dim() else b for b in betas)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach,
                    "capturable": capturable, "differentiable": differentiable, "fused": fused,
                    "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)
        if fused and foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            for k, v in (("amsgrad", False), ("maximize", False), ("foreach", None),
                         ("capturable", False), ("differentiable", False),
                         ("decoupled_weight_decay", False), ("fused", None)):
                group.setdefault(k, v)


class AdamW(Adam):
    """``torch.optim.AdamW``: Adam with decoupled weight decay."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True


SparseAdam = missing_class("torch.optim.SparseAdam", bases=(Optimizer,))
SparseAdam.__doc__ = ("Not implemented: ``torch.optim.SparseAdam`` (jtorch has no sparse "
                      "gradients).")


# -------------------------------------------------------------------------------- Adamax
def _adamax_update(g, p, state, hyper, flags):
    step = state["step"] + 1
    m = transforms.lerp(state["exp_avg"], g, 1 - hyper.beta1)
    u = jnp.maximum(state["exp_inf"] * hyper.beta2, jnp.abs(g) + hyper.eps)
    clr = hyper.lr / (1 - hyper.beta1 ** transforms.as_float64(step))
    update = transforms.addcdiv(jnp.zeros_like(p), m, u, transforms.scalar_as(-clr, p))
    return update, {"step": step, "exp_avg": m, "exp_inf": u}


class Adamax(_AdamFamily):
    """``torch.optim.Adamax``."""

    _chain = staticmethod(transforms.update_chain(_adamax_update))

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        super().__init__(params, _adam_defaults(lr, betas, eps, weight_decay, foreach=foreach,
                                                maximize=maximize, differentiable=differentiable,
                                                capturable=capturable))

    def _init_state(self, p, group):
        return initial_state(p, "exp_avg", "exp_inf")

    def _flags(self, group):   # (no decoupled weight decay in PyTorch's Adamax)
        return transforms.flags_of(group)


# --------------------------------------------------------------------------------- NAdam
def _nadam_update(g, p, state, hyper, flags):
    step = state["step"] + 1
    s = transforms.as_float64(step)
    bias_correction2 = 1 - hyper.beta2 ** s
    mu = hyper.beta1 * (1.0 - 0.5 * (0.96 ** (s * hyper.momentum_decay)))
    mu_next = hyper.beta1 * (1.0 - 0.5 * (0.96 ** ((s + 1) * hyper.momentum_decay)))
    mu_product = state["mu_product"] * transforms.scalar_as(mu, state["mu_product"])
    m, v = _moments(g, state["exp_avg"], state["exp_avg_sq"], hyper.beta1, hyper.beta2)
    denom = jnp.sqrt(v / transforms.scalar_as(bias_correction2, p)) + hyper.eps
    mp = transforms.as_float64(mu_product)
    mp_next = mp * mu_next
    u1 = transforms.addcdiv(jnp.zeros_like(p), g, denom,
                            transforms.scalar_as(-hyper.lr * (1.0 - mu) / (1.0 - mp), p))
    u2 = transforms.addcdiv(u1, m, denom,
                            transforms.scalar_as((-hyper.lr * mu_next) / (1.0 - mp_next), p))
    return u2, {"step": step, "mu_product": mu_product, "exp_avg": m, "exp_avg_sq": v}


class NAdam(_AdamFamily):
    """``torch.optim.NAdam``."""

    _chain = staticmethod(transforms.update_chain(_nadam_update))

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        defaults = _adam_defaults(lr, betas, eps, weight_decay, momentum_decay=momentum_decay,
                                  decoupled_weight_decay=decoupled_weight_decay,
                                  maximize=maximize, foreach=foreach, capturable=capturable,
                                  differentiable=differentiable)
        check_nonneg(momentum_decay, "momentum_decay")
        super().__init__(params, defaults)

    def _hyper(self, group):
        return NAdamHyper(*super()._hyper(group), float(group["momentum_decay"]))

    def _init_state(self, p, group):
        return initial_state(p, "exp_avg", "exp_avg_sq", mu_product=1.0)


# --------------------------------------------------------------------------------- RAdam
def _radam_update(g, p, state, hyper, flags):
    step = state["step"] + 1
    m, v = _moments(g, state["exp_avg"], state["exp_avg_sq"], hyper.beta1, hyper.beta2)
    b1, b2 = hyper.beta1, hyper.beta2
    s = transforms.as_float64(step)
    bias_correction1 = 1 - b1 ** s
    bias_correction2 = 1 - b2 ** s
    corrected = m / transforms.scalar_as(bias_correction1, p)
    rho_inf = 2 / (1 - b2) - 1
    rho_t = rho_inf - 2 * s * (b2 ** s) / bias_correction2
    rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
    adaptive = transforms.scalar_as(bias_correction2 ** 0.5, p) / (jnp.sqrt(v) + hyper.eps)
    rectified = corrected * hyper.lr * adaptive * transforms.scalar_as(rect, p)
    update = -jnp.where(rho_t > 5.0, rectified, corrected * hyper.lr)
    return update, {"step": step, "exp_avg": m, "exp_avg_sq": v}


class RAdam(_AdamFamily):
    """``torch.optim.RAdam``."""

    _chain = staticmethod(transforms.update_chain(_radam_update))

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        super().__init__(params, _adam_defaults(lr, betas, eps, weight_decay, maximize=maximize,
                                                foreach=foreach, capturable=capturable,
                                                decoupled_weight_decay=decoupled_weight_decay,
                                                differentiable=differentiable))
