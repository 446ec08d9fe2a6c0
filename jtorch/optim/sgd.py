"""SGD (momentum, dampening, nesterov) and ASGD."""

from __future__ import annotations

import jax.numpy as jnp
import optax

from .._ops import creation as _creation
from . import _transforms as transforms
from .optimizer import _JaxOptimizer, _scalar, _scalar_dtype, check_lr, check_nonneg

__all__ = ["SGD", "ASGD"]


def _sgd_momentum_leaf(g, p, buf, momentum, dampening, nesterov):
    # PyTorch: the first step copies the gradient into the buffer (no dampening)
    buf = g if buf is None else buf * momentum + (1 - dampening) * g
    return (g + momentum * buf if nesterov else buf), buf


def _build_sgd(hp, flags):
    lr, momentum, dampening, wd = hp
    maximize, wd_on, has_momentum, nesterov, no_dampening = flags
    links = transforms.common(wd, maximize, 1 if wd_on else 0)
    if has_momentum:
        if no_dampening:   # optax.trace is PyTorch's rule when dampening == 0
            links.append(transforms.keyed(optax.trace(decay=momentum, nesterov=nesterov),
                                 "momentum_buffer", "trace", fill_none=True))
        else:
            links.append(transforms.per_leaf(("momentum_buffer",), _sgd_momentum_leaf, momentum,
                                    dampening, nesterov))
    links.append(transforms.stateless(optax.scale_by_learning_rate(lr)))
    return links


class SGD(_JaxOptimizer):
    """``torch.optim.SGD``."""

    _build = staticmethod(_build_sgd)

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False,
                 fused=None):
        check_lr(lr)
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening,
                    "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize,
                    "foreach": foreach, "differentiable": differentiable, "fused": fused}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("nesterov", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("differentiable", False)
            group.setdefault("fused", False)

    def _keys(self, group):
        return ("momentum_buffer",) if group["momentum"] != 0 else ()

    def _flags(self, group, states):
        return (bool(group["maximize"]), group["weight_decay"] != 0, group["momentum"] != 0,
                bool(group["nesterov"]), group["dampening"] == 0)

    def _hyper(self, group):
        return (float(_scalar(group["lr"])), float(group["momentum"]),
                float(group["dampening"]), float(_scalar(group["weight_decay"])))


# ---------------------------------------------------------------------------------- ASGD
def _asgd_leaf(g, p, step, eta, mu, ax, lr, lambd, alpha, t0):
    step = step + 1
    eta_v = transforms.f64(eta)
    p2 = p * transforms.c(1 - lambd * eta_v, p)
    p2 = p2 + transforms.c(-eta_v, p) * g
    ax = jnp.where(mu != 1, ax + (p2 - ax) * mu.astype(p.dtype), p2)
    s = transforms.f64(step)
    new_eta = (lr / ((1 + lambd * lr * s) ** alpha)).astype(eta.dtype)
    new_mu = (1 / jnp.maximum(1.0, s - t0)).astype(mu.dtype)
    return p2 - p, step, new_eta, new_mu, ax


def _build_asgd(hp, flags):
    lr, lambd, alpha, t0, wd = hp
    maximize, wd_on = flags
    return transforms.common(wd, maximize, 1 if wd_on else 0) + [
        transforms.per_leaf(("step", "eta", "mu", "ax"), _asgd_leaf, lr, lambd, alpha, t0)]


class ASGD(_JaxOptimizer):
    """``torch.optim.ASGD``."""

    _build = staticmethod(_build_asgd)

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        check_lr(lr)
        check_nonneg(weight_decay, "weight_decay")
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0,
                    "weight_decay": weight_decay, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def _init_state(self, p, group, state):
        sd = _scalar_dtype()
        state["step"] = _creation.zeros((), dtype=sd)
        state["eta"] = _creation.tensor(float(_scalar(group["lr"])), dtype=sd)
        state["mu"] = _creation.ones((), dtype=sd)
        state["ax"] = _creation.zeros_like(p)

    def _keys(self, group):
        return ("step", "eta", "mu", "ax")

    def _flags(self, group, states):
        return (bool(group["maximize"]), group["weight_decay"] != 0)

    def _hyper(self, group):
        return (float(_scalar(group["lr"])), float(group["lambd"]), float(group["alpha"]),
                float(group["t0"]), float(group["weight_decay"]))
