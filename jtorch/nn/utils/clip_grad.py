"""nn.utils.clip_grad: gradient clipping over all gradients at once.

The norms of every gradient, the total norm, the clip coefficient and the clipped gradients are
computed in ONE jitted call over the gradient pytree (per device when gradients live on several
devices), then written back into the ``.grad`` tensors. ``error_if_nonfinite`` needs the norm's
value, so it is checked eagerly (and skipped while tracing, where the value is unknown);
the gradients are left untouched when it raises, as in PyTorch.
"""

from __future__ import annotations

import functools
import math
import types
import warnings

import jax
import jax.numpy as jnp

from ..._core.views import assign
from ..._ops.creation import tensor
from ..._ops.reduction import extreme
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "get_total_norm",
           "clip_grads_with_norm_"]


def _vector_norm(x, p):
    a = jnp.abs(x)
    if p == math.inf:
        return extreme(a, True) if x.size else jnp.zeros((), x.dtype)
    if p == -math.inf:
        return extreme(a, False)
    if p == 0:
        return jnp.sum(a != 0).astype(x.dtype)
    if p == 1:
        return jnp.sum(a)
    if p == 2:
        return jnp.sqrt(jnp.sum(jnp.square(a)))
    return jnp.sum(a ** p) ** (1.0 / p)


def _norm_of(grads, p):
    norms = [_vector_norm(g, p) for g in grads]
    dt = jnp.result_type(*norms)
    return _vector_norm(jnp.stack([n.astype(dt) for n in norms]), p)


def _scale(grads, max_norm, total):
    coef = jnp.minimum(max_norm / (total + 1e-6), 1.0)
    return [g * coef.astype(g.dtype) for g in grads]


@functools.partial(jax.jit, static_argnums=1)
def _total_norm_jit(grads, p):
    return _norm_of(grads, p)


@functools.partial(jax.jit, static_argnums=2)
def _norm_and_clip_jit(grads, max_norm, p):
    total = _norm_of(grads, p)
    return total, _scale(grads, max_norm, total)


_clip_jit = jax.jit(_scale)


@jax.jit
def _clamp_jit(grads, v):
    return [jnp.clip(g, -v, v).astype(g.dtype) for g in grads]


def _as_list(parameters):
    if isinstance(parameters, Tensor):
        return [parameters]
    return list(parameters)


def _grads(parameters):
    return [p.grad for p in _as_list(parameters) if p.grad is not None]


def _by_device(tensors):
    groups = {}
    for t in tensors:
        groups.setdefault(t.device, []).append(t)
    return groups


def _write(grads, values):
    with no_grad():
        for g, v in zip(grads, values):
            assign(g, Tensor._make(v, g._device))


def _check_finite(total, p, error_if_nonfinite):
    if not error_if_nonfinite or isinstance(total, jax.core.Tracer):
        return
    if not bool(jnp.isfinite(total)):
        raise RuntimeError(f"The total norm of order {p} for gradients from `parameters` is "
                           "non-finite, so it cannot be clipped. To disable this error and "
                           "scale the gradients by the non-finite norm anyway, set "
                           "`error_if_nonfinite=False`")


def _total(tensors, p):
    """Total p-norm (a jnp array on the first tensor's device) of tensors on any devices."""
    groups = _by_device(tensors)
    if len(groups) == 1:
        return _total_norm_jit([t._value for t in tensors], p)
    first = tensors[0]._value
    dev = next(iter(first.devices()))
    norms = [jax.device_put(_total_norm_jit([t._value for t in ts], p), dev)
             for ts in groups.values()]
    return _total_norm_jit(norms, p)


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The p-norm of the norms of ``tensors`` (``torch.nn.utils.get_total_norm``)."""
    tensors = _as_list(tensors)
    p = float(norm_type)
    if not tensors:
        return tensor(0.0)
    total = _total(tensors, p)
    _check_finite(total, p, error_if_nonfinite)
    return Tensor._make(total, tensors[0].device)


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scale the gradients by ``min(max_norm / (total_norm + 1e-6), 1)``."""
    grads = _grads(parameters)
    if not grads:
        return
    tv = total_norm._value if isinstance(total_norm, Tensor) else jnp.asarray(total_norm)
    max_norm = float(max_norm)
    for gs in _by_device(grads).values():
        vals = [g._value for g in gs]
        t = tv if isinstance(tv, jax.core.Tracer) else \
            jax.device_put(tv, next(iter(vals[0].devices())))
        _write(gs, _clip_jit(vals, max_norm, t))


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                    foreach=None):
    """Clip the gradients' total norm to ``max_norm`` in place; returns the total norm."""
    is_generator = isinstance(parameters, types.GeneratorType)
    parameters = _as_list(parameters)
    if is_generator and not parameters:
        warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.",
                      stacklevel=2)
    grads = [p.grad for p in parameters if p.grad is not None]
    p = float(norm_type)
    if not grads:
        return tensor(0.0)
    max_norm = float(max_norm)
    if len(_by_device(grads)) == 1:  # the common case: one jitted call for everything
        total, new = _norm_and_clip_jit([g._value for g in grads], max_norm, p)
        _check_finite(total, p, error_if_nonfinite)
        _write(grads, new)
        return Tensor._make(total, grads[0].device)
    total = get_total_norm(grads, p, error_if_nonfinite)
    clip_grads_with_norm_(parameters, max_norm, total)
    return total


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient to ``[-clip_value, clip_value]`` in place (one jitted call)."""
    clip_value = float(clip_value)
    grads = _grads(parameters)
    for gs in _by_device(grads).values():
        _write(gs, _clamp_jit([g._value for g in gs], clip_value))
