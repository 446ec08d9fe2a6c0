"""``torch.optim.Muon``: momentum, then the update orthogonalised by a quintic Newton-Schulz
iteration in bfloat16, for 2-D parameters.

As PyTorch's single-tensor kernel (``torch/optim/_muon.py``): ``buf.lerp_(g, 1 - momentum)``,
the Nesterov update ``g.lerp(buf, momentum)``, ``ns_steps`` iterations of
``X <- a X + (b G + c G G) X`` with ``G = X X^T`` on the bfloat16 update (transposed when it has
more rows than columns) scaled to unit norm, the learning rate adjusted to the parameter's
shape, and decoupled weight decay. Each bfloat16 matrix product accumulates in float32 and
rounds once, with ``addmm``'s scaled addend folded in before that rounding (the values are
held in float32 and rounded to bfloat16's precision where PyTorch stores bfloat16).
"""

from __future__ import annotations

import math
from collections import namedtuple
from typing import NamedTuple

import jax.numpy as jnp
from jax import lax

from .._ops import creation
from . import _transforms as transforms
from ._optax_optimizer import OptaxOptimizer
from ._transforms import WeightDecay

__all__ = ["Muon"]

EPS = 1e-7
DEFAULT_A, DEFAULT_B, DEFAULT_C = 3.4445, -4.7750, 2.0315
DEFAULT_NS_STEPS = 5

MuonHyper = namedtuple("MuonHyper", "lr weight_decay momentum eps a b c")


class MuonFlags(NamedTuple):
    maximize: bool          # (always False: Muon has no maximize)
    weight_decay: WeightDecay
    nesterov: bool
    ns_steps: int
    adjust_lr_fn: str | None


def _bf16(x):
    """Round float32 ``x`` to bfloat16's precision, kept in float32: inside one XLA program a
    float32 -> bfloat16 -> float32 conversion pair may be dropped (XLA allows excess
    precision), an explicit ``reduce_precision`` is not."""
    return lax.reduce_precision(x, exponent_bits=8, mantissa_bits=7)


def _matmul_add(x, y, addend, beta, alpha=1.0):
    """``torch.addmm(addend, x, y, beta=beta, alpha=alpha)`` on bfloat16 values: float32
    products and sums, one rounding."""
    return _bf16(beta * addend + alpha * jnp.matmul(x, y))


def _zeropower_via_newtonschulz(update, hyper, steps):
    x = _bf16(update.astype(jnp.float32))
    tall = update.shape[0] > update.shape[1]
    if tall:
        x = x.T
    norm = _bf16(jnp.sqrt(jnp.sum(jnp.square(x))))
    x = _bf16(x / jnp.maximum(norm, _bf16(jnp.float32(hyper.eps))))
    for _ in range(steps):
        gram = _bf16(jnp.matmul(x, x.T))
        gram_update = _matmul_add(gram, gram, gram, hyper.b, hyper.c)
        x = _matmul_add(gram_update, x, x, hyper.a)
    return (x.T if tall else x).astype(jnp.bfloat16)


def _adjusted_ratio(adjust_lr_fn, shape):
    rows, cols = shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        return math.sqrt(max(1, rows / cols))
    if adjust_lr_fn == "match_rms_adamw":
        return 0.2 * math.sqrt(max(rows, cols))
    return 1.0


def _muon_update(g, p, state, hyper, flags):
    buf = transforms.lerp(state["momentum_buffer"], g, 1 - hyper.momentum)
    update = transforms.lerp(g, buf, hyper.momentum) if flags.nesterov else buf
    update = _zeropower_via_newtonschulz(update, hyper, flags.ns_steps)
    lr = hyper.lr * _adjusted_ratio(flags.adjust_lr_fn, p.shape)
    return transforms.scalar_as(-lr, p) * update.astype(p.dtype), {"momentum_buffer": buf}


class Muon(OptaxOptimizer):
    """``torch.optim.Muon`` (2-D parameters only; use AdamW for the others)."""

    _chain = staticmethod(transforms.update_chain(_muon_update))

    def __init__(self, params, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True,
                 ns_coefficients=(DEFAULT_A, DEFAULT_B, DEFAULT_C), eps=EPS,
                 ns_steps=DEFAULT_NS_STEPS, adjust_lr_fn=None):
        if hasattr(lr, "numel") and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ["original", "match_rms_adamw"]:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        super().__init__(params, {"lr": lr, "weight_decay": weight_decay,
                                  "momentum": momentum, "nesterov": nesterov,
                                  "ns_coefficients": ns_coefficients, "eps": eps,
                                  "ns_steps": ns_steps, "adjust_lr_fn": adjust_lr_fn})
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError("Muon only supports 2D parameters whereas we found a "
                                     f"parameter with size: {p.size()}")

    def _hyper(self, group):
        coefficients = group["ns_coefficients"]
        if len(coefficients) != 3:
            raise ValueError("Coefficients must be a tuple of exactly 3 values")
        return MuonHyper(float(group["lr"]), float(group["weight_decay"]),
                         float(group["momentum"]), float(group["eps"]),
                         *(float(v) for v in coefficients))

    def _flags(self, group):
        if group["ns_steps"] >= 100:
            raise ValueError("Number of steps must be less than 100 for computational "
                             "efficiency")
        return MuonFlags(False, transforms.weight_decay_mode(group, decoupled=True),
                         bool(group["nesterov"]), int(group["ns_steps"]),
                         group["adjust_lr_fn"])

    def _init_state(self, p, group):
        if p.is_complex():
            raise RuntimeError("Muon does not support complex parameters")
        return {"momentum_buffer": creation.zeros_like(p)}
