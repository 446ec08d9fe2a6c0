"""SGD (momentum, dampening, nesterov) and ASGD."""

from __future__ import annotations

from collections import namedtuple
from typing import NamedTuple

import jax.numpy as jnp
import optax

from .._ops.creation import zeros_like
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from . import _transforms as transforms
from ._optax_optimizer import OptaxOptimizer, initial_state
from ._transforms import WeightDecay
from .optimizer import check_lr, check_nonneg

__all__ = ["SGD", "ASGD"]


SGDHyper = namedtuple("SGDHyper", "lr momentum dampening weight_decay")


class SGDFlags(NamedTuple):
    maximize: bool
    weight_decay: WeightDecay
    momentum: bool        # momentum != 0: the group keeps a momentum_buffer
    nesterov: bool
    no_dampening: bool    # dampening == 0: optax.trace is PyTorch's rule


def _momentum_update(g, p, state, hyper, flags):
    # PyTorch: the first step copies the gradient into the buffer (no dampening)
    buf = state.get("momentum_buffer")
    buf = g if buf is None else buf * hyper.momentum + (1 - hyper.dampening) * g
    return (g + hyper.momentum * buf if flags.nesterov else buf), {"momentum_buffer": buf}


def _sgd_chain(hyper, flags):
    core = []
    if flags.momentum:
        if flags.no_dampening:
            core.append(transforms.optax_state_entry(
                optax.trace(decay=hyper.momentum, nesterov=flags.nesterov), "momentum_buffer",
                "trace"))
        else:
            core.append(transforms.per_parameter(_momentum_update, hyper, flags))
    core.append(transforms.stateless(optax.scale_by_learning_rate(hyper.lr)))
    return transforms.with_weight_decay(core, hyper, flags)


def _single_tensor_step(param, group, state):
    """PyTorch's ``_single_tensor_sgd`` for one parameter, in Tensor ops."""
    grad = -param.grad if group["maximize"] else param.grad
    if group["weight_decay"] != 0:
        grad = grad.add(param, alpha=group["weight_decay"])
    momentum = group["momentum"]
    if momentum != 0:
        buf = state.get("momentum_buffer")
        if buf is None:
            buf = state["momentum_buffer"] = grad.detach().clone()
        else:
            buf.mul_(momentum).add_(grad, alpha=1 - group["dampening"])
        grad = grad.add(buf, alpha=momentum) if group["nesterov"] else buf
    param.add_(grad, alpha=-group["lr"])


class SGD(OptaxOptimizer):
    """``torch.optim.SGD``."""

    _chain = staticmethod(_sgd_chain)
    _Hyper = SGDHyper

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

    def _keeps_state(self, group):
        return group["momentum"] != 0

    def _group_step(self, group):
        # a parameter whose class has an add_ of its own (PyPose's LieTensor: a retraction on
        # its manifold) is stepped as PyTorch's per-tensor SGD steps it: param.add_(d_p,
        # alpha=-lr), through that add_; the others by the optax update
        own = [p for p in group["params"] if type(p).add_ is not Tensor.add_]
        if not own:
            return super()._group_step(group)
        super()._group_step({**group, "params": [p for p in group["params"]
                                                 if type(p).add_ is Tensor.add_]})
        with no_grad():
            for p in own:
                if p.grad is not None:
                    _single_tensor_step(p, group, self.state[p])

    # (the momentum_buffer entry is made by the first step, as in PyTorch)

    def _first_step_state(self, p, group):
        if not self._keeps_state(group):
            return {}
        if group["dampening"] != 0:   # the first step copies the gradient, later ones damp it
            return None
        # without dampening the first step's rule is the steady one from a zero buffer
        return {"momentum_buffer": zeros_like(p)}

    def _flags(self, group):
        return SGDFlags(bool(group["maximize"]), transforms.weight_decay_mode(group),
                        group["momentum"] != 0, bool(group["nesterov"]),
                        group["dampening"] == 0)


# ---------------------------------------------------------------------------------- ASGD
ASGDHyper = namedtuple("ASGDHyper", "lr lambd alpha t0 weight_decay")


def _asgd_update(g, p, state, hyper, flags):
    step = state["step"] + 1
    eta, mu = state["eta"], state["mu"]
    eta_value = transforms.as_float64(eta)
    p2 = p * transforms.scalar_as(1 - hyper.lambd * eta_value, p)
    p2 = p2 + transforms.scalar_as(-eta_value, p) * g
    ax = jnp.where(mu != 1, state["ax"] + (p2 - state["ax"]) * mu.astype(p.dtype), p2)
    s = transforms.as_float64(step)
    new_eta = (hyper.lr / ((1 + hyper.lambd * hyper.lr * s) ** hyper.alpha)).astype(eta.dtype)
    new_mu = (1 / jnp.maximum(1.0, s - hyper.t0)).astype(mu.dtype)
    return p2 - p, {"step": step, "eta": new_eta, "mu": new_mu, "ax": ax}


class ASGD(OptaxOptimizer):
    """``torch.optim.ASGD``."""

    _chain = staticmethod(transforms.update_chain(_asgd_update))
    _tensor_steps = True
    _Hyper = ASGDHyper

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        check_lr(lr)
        check_nonneg(weight_decay, "weight_decay")
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0,
                    "weight_decay": weight_decay, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def _init_state(self, p, group):
        return initial_state(p, "ax", eta=float(group["lr"]), mu=1.0)

