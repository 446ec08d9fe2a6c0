"""``torch.optim.Adafactor``: Adam's second moment kept as a row and a column factor for
matrices (and for the last two dims of higher-rank parameters), a full variance for vectors.

The update follows PyTorch's single-tensor kernel (``torch/optim/_adafactor.py``) operation by
operation: the step size ``alpha = max(eps2, RMS(p)) * min(lr, 1/sqrt(step))`` and the clipping
denominator ``max(1, RMS(update) / d)`` are formed in float64 (PyTorch reads them back to
Python with ``.item()``) and cast to the parameter's dtype where they scale it; the moments are
ATen lerps. Weight decay shrinks the parameter by ``1 - lr * weight_decay`` (decoupled).
"""

from __future__ import annotations

from collections import namedtuple
from typing import NamedTuple

import jax.numpy as jnp

from .._core import dtypes
from .._ops.typeinfo import finfo
from . import _transforms as transforms
from ._optax_optimizer import OptaxOptimizer, initial_state
from ._transforms import WeightDecay

__all__ = ["Adafactor"]

AdafactorHyper = namedtuple("AdafactorHyper", "lr beta2_decay eps1 eps2 d weight_decay")


class AdafactorFlags(NamedTuple):
    maximize: bool
    weight_decay: WeightDecay


def _norm64(x):
    """``x.norm(2).item()``: the 2-norm in x's dtype, then as a Python (float64) number."""
    return jnp.sqrt(jnp.sum(x * x)).astype(jnp.float64)


def _mean_square(g, axis):
    """``torch.norm(g, dim=axis, keepdim=True).square_().div_(g.size(axis))``."""
    norm = jnp.sqrt(jnp.sum(g * g, axis=axis, keepdims=True))
    return norm * norm / g.shape[axis]


def _adafactor_update(g, p, state, hyper, flags):
    step = state["step"] + 1
    step64 = transforms.as_float64(step)
    one_minus_beta2 = step64 ** hyper.beta2_decay
    rho = jnp.minimum(hyper.lr, 1 / jnp.sqrt(step64))
    alpha = jnp.maximum(hyper.eps2, _norm64(p) / p.size ** 0.5) * rho
    eps1 = transforms.scalar_as(hyper.eps1, p)
    written = {"step": step}
    if g.ndim > 1:
        row_var = written["row_var"] = transforms.lerp(state["row_var"], _mean_square(g, -1),
                                                       one_minus_beta2)
        col_var = written["col_var"] = transforms.lerp(state["col_var"], _mean_square(g, -2),
                                                       one_minus_beta2)
        row_mean = jnp.maximum(jnp.mean(row_var, axis=-2, keepdims=True), eps1)
        var_estimate = jnp.matmul(row_var, col_var) / row_mean
    else:
        var_estimate = written["variance"] = transforms.lerp(state["variance"], g * g,
                                                             one_minus_beta2)
    floor = transforms.scalar_as(jnp.asarray(hyper.eps1, jnp.float64) ** 2, p)
    update = jnp.reciprocal(jnp.sqrt(jnp.maximum(var_estimate, floor))) * g
    denom = jnp.maximum(1.0, _norm64(update) / (update.size ** 0.5 * hyper.d))
    return transforms.scalar_as(-alpha / denom, p) * update, written


class Adafactor(OptaxOptimizer):
    """``torch.optim.Adafactor`` (``eps=(None, 1e-3)``: eps1 None is the machine epsilon of
    the parameters' dtype, read from the group's first parameter with a gradient, as
    PyTorch's loop sets it once)."""

    _chain = staticmethod(transforms.update_chain(_adafactor_update))
    _tensor_steps = True

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0,
                 weight_decay=0.0, *, foreach=None, maximize=False):
        if hasattr(lr, "numel") and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        super().__init__(params, {"lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d,
                                  "weight_decay": weight_decay, "foreach": foreach,
                                  "maximize": maximize})

    def _hyper(self, group):
        eps1, eps2 = group["eps"]
        if eps1 is None:
            first = next((p for p in group["params"] if p.grad is not None), None)
            eps1 = finfo(first.dtype if first is not None else
                                dtypes.get_default_dtype()).eps
        return AdafactorHyper(float(group["lr"]), float(group["beta2_decay"]), float(eps1),
                              float(eps2), float(group["d"]), float(group["weight_decay"]))

    def _flags(self, group):
        return AdafactorFlags(bool(group["maximize"]),
                              transforms.weight_decay_mode(group, decoupled=True))

    def _init_state(self, p, group):
        if p.is_complex():
            raise RuntimeError("Adafactor does not support complex parameters")
        if p.dim() > 1:
            state = initial_state(p)
            state["row_var"] = p.new_zeros((*p.shape[:-1], 1))
            state["col_var"] = p.new_zeros((*p.shape[:-2], 1, p.shape[-1]))
            return state
        return initial_state(p, "variance")
