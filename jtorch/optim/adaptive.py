"""Per-coordinate adaptive optimizers: RMSprop, Adagrad, Adadelta, Rprop."""

from __future__ import annotations

import jax.numpy as jnp

from .._ops import creation as _creation
from . import _transforms as transforms
from .optimizer import _JaxOptimizer, _scalar, _scalar_dtype, check_lr, check_nonneg

__all__ = ["RMSprop", "Adagrad", "Adadelta", "Rprop"]


class _Base(_JaxOptimizer):
    _zeros = ()

    def _init_state(self, p, group, state):
        state["step"] = _creation.zeros((), dtype=_scalar_dtype())
        for k in self._zero_keys(group):
            state[k] = _creation.zeros_like(p)

    def _zero_keys(self, group):
        return self._zeros

    def _keys(self, group):
        return ("step",) + self._zero_keys(group)

    def _flags(self, group, states):
        return (bool(group["maximize"]), group.get("weight_decay", 0) != 0)

    def _hyper(self, group):
        return tuple(float(_scalar(group[k])) for k in self._hyper_keys)


# ------------------------------------------------------------------------------- RMSprop
def _rmsprop_leaf(g, p, step, square_avg, *rest):
    *bufs, lr, alpha, eps, momentum, has_momentum, centered = rest
    step = step + 1
    square_avg = transforms.addcmul(square_avg * alpha, g, g, 1 - alpha)
    buf = bufs.pop(0) if has_momentum else None
    grad_avg = bufs.pop(0) if centered else None
    if centered:
        grad_avg = transforms.lerp(grad_avg, g, 1 - alpha)
        avg = jnp.sqrt(transforms.addcmul(square_avg, grad_avg, grad_avg, -1))
    else:
        avg = jnp.sqrt(square_avg)
    avg = avg + eps
    if has_momentum:
        buf = transforms.addcdiv(buf * momentum, g, avg, 1)
        u = -lr * buf
    else:
        u = transforms.addcdiv(jnp.zeros_like(p), g, avg, -lr)
    return (u, step, square_avg) + ((buf,) if has_momentum else ()) + \
        ((grad_avg,) if centered else ())


def _build_rmsprop(hp, flags):
    lr, alpha, eps, wd, momentum = hp
    maximize, wd_on, has_momentum, centered = flags
    keys = ("step", "square_avg") + (("momentum_buffer",) if has_momentum else ()) + \
        (("grad_avg",) if centered else ())
    return transforms.common(wd, maximize, 1 if wd_on else 0) + [
        transforms.per_leaf(keys, _rmsprop_leaf, lr, alpha, eps, momentum, has_momentum, centered)]


class RMSprop(_Base):
    """``torch.optim.RMSprop``."""

    _build = staticmethod(_build_rmsprop)
    _hyper_keys = ("lr", "alpha", "eps", "weight_decay", "momentum")

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

    def _zero_keys(self, group):
        return ("square_avg",) + (("momentum_buffer",) if group["momentum"] > 0 else ()) + \
            (("grad_avg",) if group["centered"] else ())

    def _flags(self, group, states):
        return (bool(group["maximize"]), group["weight_decay"] != 0, group["momentum"] > 0,
                bool(group["centered"]))


# ------------------------------------------------------------------------------- Adagrad
def _adagrad_leaf(g, p, step, acc, lr, lr_decay, eps):
    step = step + 1
    clr = lr / (1 + (transforms.f64(step) - 1) * lr_decay)
    acc = transforms.addcmul(acc, g, g, 1)
    std = jnp.sqrt(acc) + eps
    return transforms.addcdiv(jnp.zeros_like(p), g, std, transforms.c(-clr, p)), step, acc


def _build_adagrad(hp, flags):
    lr, lr_decay, wd, eps = hp
    maximize, wd_on = flags
    return transforms.common(wd, maximize, 1 if wd_on else 0) + [
        transforms.per_leaf(("step", "sum"), _adagrad_leaf, lr, lr_decay, eps)]


class Adagrad(_Base):
    """``torch.optim.Adagrad`` (state is created for every parameter at construction)."""

    _build = staticmethod(_build_adagrad)
    _hyper_keys = ("lr", "lr_decay", "weight_decay", "eps")
    _zeros = ("sum",)

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
                self._init_state(p, group, self.state[p])

    def _init_state(self, p, group, state):
        v = self.defaults["initial_accumulator_value"]
        state["step"] = _creation.tensor(0.0, dtype=_scalar_dtype())
        state["sum"] = _creation.full_like(p, complex(v, v) if p.is_complex() else v)


# ------------------------------------------------------------------------------ Adadelta
def _adadelta_leaf(g, p, step, square_avg, acc_delta, lr, rho, eps):
    step = step + 1
    square_avg = transforms.addcmul(square_avg * rho, g, g, 1 - rho)
    std = jnp.sqrt(square_avg + eps)
    delta = jnp.sqrt(acc_delta + eps) / std * g
    acc_delta = transforms.addcmul(acc_delta * rho, delta, delta, 1 - rho)
    return -lr * delta, step, square_avg, acc_delta


def _build_adadelta(hp, flags):
    lr, rho, eps, wd = hp
    maximize, wd_on = flags
    return transforms.common(wd, maximize, 1 if wd_on else 0) + [
        transforms.per_leaf(("step", "square_avg", "acc_delta"), _adadelta_leaf, lr, rho, eps)]


class Adadelta(_Base):
    """``torch.optim.Adadelta``."""

    _build = staticmethod(_build_adadelta)
    _hyper_keys = ("lr", "rho", "eps", "weight_decay")
    _zeros = ("square_avg", "acc_delta")

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


# --------------------------------------------------------------------------------- Rprop
def _rprop_leaf(g, p, step, prev, step_size, etaminus, etaplus, smin, smax):
    step = step + 1
    sign = jnp.sign(g * prev)
    sign = jnp.where(sign > 0, etaplus, jnp.where(sign < 0, etaminus,
                                                  jnp.where(sign == 0, 1, sign)))
    sign = sign.astype(step_size.dtype)
    step_size = jnp.clip(step_size * sign, smin, smax)
    g = jnp.where(sign == etaminus, 0, g)
    return -(jnp.sign(g) * step_size), step, g, step_size


def _build_rprop(hp, flags):
    etaminus, etaplus, smin, smax = hp
    (maximize,) = flags
    return transforms.common(0.0, maximize, 0) + [
        transforms.per_leaf(("step", "prev", "step_size"), _rprop_leaf, etaminus, etaplus,
                            smin, smax)]


class Rprop(_Base):
    """``torch.optim.Rprop``."""

    _build = staticmethod(_build_rprop)

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        super().__init__(params, {"lr": lr, "etas": etas, "step_sizes": step_sizes,
                                  "foreach": foreach, "maximize": maximize,
                                  "differentiable": differentiable, "capturable": capturable})

    def _init_state(self, p, group, state):
        lr = float(_scalar(group["lr"]))
        state["step"] = _creation.zeros((), dtype=_scalar_dtype())
        state["prev"] = _creation.zeros_like(p)
        state["step_size"] = _creation.full_like(p, complex(lr, lr) if p.is_complex() else lr)

    def _keys(self, group):
        return ("step", "prev", "step_size")

    def _flags(self, group, states):
        return (bool(group["maximize"]),)

    def _hyper(self, group):
        (em, ep), (smin, smax) = group["etas"], group["step_sizes"]
        return (float(em), float(ep), float(smin), float(smax))
