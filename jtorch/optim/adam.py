"""The Adam family: Adam, AdamW, Adamax, NAdam, RAdam (and SparseAdam, not implemented)."""

from __future__ import annotations

import jax.numpy as jnp
import optax

from .._core.errors import missing_class
from .._ops import creation as _creation
from .._tensor import Tensor
from . import _transforms as transforms
from .optimizer import (
    Optimizer,
    _JaxOptimizer,
    _scalar,
    _scalar_dtype,
    check_betas,
    check_lr,
    check_nonneg,
)

__all__ = ["Adam", "AdamW", "Adamax", "NAdam", "RAdam", "SparseAdam"]


def _moments(g, m, v, b1, b2):
    return transforms.lerp(m, g, 1 - b1), transforms.addcmul(v * b2, g, g, 1 - b2)


def _adam_leaf(g, p, step, m, v, *rest):
    *vmax, lr, b1, b2, eps = rest
    step = step + 1
    m, v = _moments(g, m, v, b1, b2)
    s = transforms.f64(step)
    step_size = lr / (1 - b1 ** s)
    bc2_sqrt = (1 - b2 ** s) ** 0.5
    if vmax:
        vmax = [jnp.maximum(vmax[0], v)]
        denom = jnp.sqrt(vmax[0]) / transforms.c(bc2_sqrt, p) + eps
    else:
        denom = jnp.sqrt(v) / transforms.c(bc2_sqrt, p) + eps
    update = transforms.addcdiv(jnp.zeros_like(p), m, denom, transforms.c(-step_size, p))
    return (update, step, m, v, *vmax)


def _decoupled(links, lr, wd, mode):
    # PyTorch multiplies the parameter by (1 - lr * wd) before the step: the same decay
    # expressed as optax's add_decayed_weights on the update
    if mode == 2:
        links.append(transforms.stateless(optax.add_decayed_weights(-(lr * wd))))
    return links


def _build_adam(hp, flags):
    lr, b1, b2, eps, wd = hp
    maximize, mode, amsgrad = flags
    keys = ("step", "exp_avg", "exp_avg_sq") + (("max_exp_avg_sq",) if amsgrad else ())
    links = transforms.common(wd, maximize, mode)
    links.append(transforms.per_leaf(keys, _adam_leaf, lr, b1, b2, eps))
    return _decoupled(links, lr, wd, mode)


class _AdamBase(_JaxOptimizer):
    def _init_state(self, p, group, state):
        state["step"] = _creation.tensor(0.0, dtype=_scalar_dtype())
        for k, v in self._scalar_init:
            state[k] = _creation.tensor(v, dtype=_scalar_dtype())
        for k in self._zero_keys(group):
            state[k] = _creation.zeros_like(p)

    _scalar_init = ()

    def _zero_keys(self, group):
        return ("exp_avg", "exp_avg_sq")

    def _keys(self, group):
        return ("step",) + tuple(k for k, _ in self._scalar_init) + self._zero_keys(group)

    def _hyper(self, group):
        b1, b2 = group["betas"]
        return (float(_scalar(group["lr"])), float(_scalar(b1)), float(_scalar(b2)),
                float(group["eps"]), float(group["weight_decay"])) + self._extra_hyper(group)

    def _extra_hyper(self, group):
        return ()


class Adam(_AdamBase):
    """``torch.optim.Adam``."""

    _build = staticmethod(_build_adam)

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        check_lr(lr)
        check_nonneg(eps, "epsilon")
        check_betas(betas)
        check_nonneg(weight_decay, "weight_decay")
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

    def _zero_keys(self, group):
        return ("exp_avg", "exp_avg_sq") + (("max_exp_avg_sq",) if group["amsgrad"] else ())

    def _flags(self, group, states):
        return (bool(group["maximize"]),
                transforms.wd_mode(group, group.get("decoupled_weight_decay", False)),
                bool(group["amsgrad"]))


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
def _adamax_leaf(g, p, step, m, u, lr, b1, b2, eps):
    step = step + 1
    m = transforms.lerp(m, g, 1 - b1)
    u = jnp.maximum(u * b2, jnp.abs(g) + eps)
    clr = lr / (1 - b1 ** transforms.f64(step))
    return transforms.addcdiv(jnp.zeros_like(p), m, u, transforms.c(-clr, p)), step, m, u


def _build_adamax(hp, flags):
    lr, b1, b2, eps, wd = hp
    maximize, mode = flags
    return transforms.common(wd, maximize, mode) + [
        transforms.per_leaf(("step", "exp_avg", "exp_inf"), _adamax_leaf, lr, b1, b2, eps)]


class _Simple(_AdamBase):
    """Shared constructor checks of Adamax / NAdam / RAdam."""

    def _check(self, lr, betas, eps, weight_decay):
        check_lr(lr)
        check_nonneg(eps, "epsilon")
        check_betas(betas)
        check_nonneg(weight_decay, "weight_decay")

    def _flags(self, group, states):
        return (bool(group["maximize"]),
                transforms.wd_mode(group, group.get("decoupled_weight_decay", False)))


class Adamax(_Simple):
    """``torch.optim.Adamax``."""

    _build = staticmethod(_build_adamax)

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        self._check(lr, betas, eps, weight_decay)
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps,
                                  "weight_decay": weight_decay, "foreach": foreach,
                                  "maximize": maximize, "differentiable": differentiable,
                                  "capturable": capturable})

    def _zero_keys(self, group):
        return ("exp_avg", "exp_inf")


# --------------------------------------------------------------------------------- NAdam
def _nadam_leaf(g, p, step, mu_product, m, v, lr, b1, b2, eps, momentum_decay):
    step = step + 1
    s = transforms.f64(step)
    bc2 = 1 - b2 ** s
    mu = b1 * (1.0 - 0.5 * (0.96 ** (s * momentum_decay)))
    mu_next = b1 * (1.0 - 0.5 * (0.96 ** ((s + 1) * momentum_decay)))
    mu_product = mu_product * transforms.c(mu, mu_product)
    m, v = _moments(g, m, v, b1, b2)
    denom = jnp.sqrt(v / transforms.c(bc2, p)) + eps
    mp = transforms.f64(mu_product)
    mp_next = mp * mu_next
    u1 = transforms.addcdiv(jnp.zeros_like(p), g, denom,
                            transforms.c(-lr * (1.0 - mu) / (1.0 - mp), p))
    u2 = transforms.addcdiv(u1, m, denom, transforms.c((-lr * mu_next) / (1.0 - mp_next), p))
    return u2, step, mu_product, m, v


def _build_nadam(hp, flags):
    lr, b1, b2, eps, wd, momentum_decay = hp
    maximize, mode = flags
    links = transforms.common(wd, maximize, mode)
    links.append(transforms.per_leaf(("step", "mu_product", "exp_avg", "exp_avg_sq"), _nadam_leaf,
                            lr, b1, b2, eps, momentum_decay))
    return _decoupled(links, lr, wd, mode)


class NAdam(_Simple):
    """``torch.optim.NAdam``."""

    _build = staticmethod(_build_nadam)
    _scalar_init = (("mu_product", 1.0),)

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        self._check(lr, betas, eps, weight_decay)
        check_nonneg(momentum_decay, "momentum_decay")
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps,
                                  "weight_decay": weight_decay,
                                  "momentum_decay": momentum_decay,
                                  "decoupled_weight_decay": decoupled_weight_decay,
                                  "maximize": maximize, "foreach": foreach,
                                  "capturable": capturable, "differentiable": differentiable})

    def _extra_hyper(self, group):
        return (float(group["momentum_decay"]),)


# --------------------------------------------------------------------------------- RAdam
def _radam_leaf(g, p, step, m, v, lr, b1, b2, eps):
    step = step + 1
    m, v = _moments(g, m, v, b1, b2)
    s = transforms.f64(step)
    bc1 = 1 - b1 ** s
    bc2 = 1 - b2 ** s
    corrected = m / transforms.c(bc1, p)
    rho_inf = 2 / (1 - b2) - 1
    rho_t = rho_inf - 2 * s * (b2 ** s) / bc2
    rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
    adaptive = transforms.c(bc2 ** 0.5, p) / (jnp.sqrt(v) + eps)
    rectified = corrected * lr * adaptive * transforms.c(rect, p)
    u = -jnp.where(rho_t > 5.0, rectified, corrected * lr)
    return u, step, m, v


def _build_radam(hp, flags):
    lr, b1, b2, eps, wd = hp
    maximize, mode = flags
    links = transforms.common(wd, maximize, mode)
    links.append(transforms.per_leaf(("step", "exp_avg", "exp_avg_sq"), _radam_leaf,
                                     lr, b1, b2, eps))
    return _decoupled(links, lr, wd, mode)


class RAdam(_Simple):
    """``torch.optim.RAdam``."""

    _build = staticmethod(_build_radam)

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        self._check(lr, betas, eps, weight_decay)
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps,
                                  "weight_decay": weight_decay, "maximize": maximize,
                                  "foreach": foreach, "capturable": capturable,
                                  "decoupled_weight_decay": decoupled_weight_decay,
                                  "differentiable": differentiable})
