"""PyTorch's low-level normalization and norm entry points: ``torch.native_layer_norm``,
``native_batch_norm``, ``native_group_norm`` (each returns the output and the statistics it
normalized with), ``native_dropout`` (output and keep mask), ``native_norm``, and the
deprecated ``frobenius_norm``, ``nuclear_norm`` and ``norm_except_dim``.

The outputs come from the same ops as ``F.layer_norm``/``F.batch_norm``/``F.group_norm`` (one
kernel each, gradients by its vjp); the statistics PyTorch returns beside them come from one
small kernel that is not differentiable (``_norm_stats``), except group norm's, which PyTorch
returns with the output's grad_fn and so come from one op returning all three.
"""

from __future__ import annotations

import jax.numpy as jnp

from .._core import dtypes
from .._core.dispatch import dispatch
from .._core.generator import keep_mask, next_key, wrap
from .._core.kernel import OpDef
from .._core.tensor_base import TensorBase
from .._core.warn_once import is_always, set_always, warn_once
from ._registry import export, op
from .creation import empty, ones
from .nn_norm import (
    _acc,
    _bshape,
    _moments,
    _native_batch_norm,
    _norm_shape,
    _write,
    check_groups,
    layer_norm,
)
from .norms import matrix_norm, vector_norm
from .shape import reshape, transpose


@export()
def set_warn_always(b):
    """When on, warnings PyTorch gives once per process (deprecations) are given every time."""
    set_always(b)


@export()
def is_warn_always_enabled():
    """Whether :func:`set_warn_always` is on."""
    return is_always()


# ------------------------------------------------------------------------ statistics
def _stats_body(input, kind, arg, eps):
    """``(mean, 1 / sqrt(biased var + eps))`` of ``input``: ``kind`` "layer" (over the last
    ``arg`` dims, kept as size 1), "batch" (per channel, dim 1) or "group" (``arg`` groups of
    each sample's channels, shaped ``(N, arg)``)."""
    x = input.astype(_acc(input))
    if kind == "layer":
        mean, var = _moments(x, tuple(range(x.ndim - arg, x.ndim)))
        dt = input.dtype
    else:
        axes = (0,) + tuple(range(2, x.ndim))
        mean, var = _moments(x, axes)
        mean, var = mean.reshape(-1), var.reshape(-1)
        dt = arg
    return mean.astype(dt), (1 / jnp.sqrt(var + eps)).astype(dt)


_STATS = OpDef("_norm_stats", _stats_body, saves=False, differentiable=False)


@export()
def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """``(layer_norm(input, ...), mean, rstd)``; mean and rstd keep the normalized dims as
    size 1, in input's dtype."""
    ns, _ = _norm_shape(input, normalized_shape)
    out = layer_norm(input, ns, weight, bias, eps)
    mean, rstd = dispatch(_STATS, (input, "layer", len(ns), float(eps)), {})
    return out, mean, rstd


@export()
def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """``(batch_norm(...), save_mean, save_invstd)``: in training the batch's per-channel mean
    and ``1 / sqrt(var + eps)`` (the running stats, when given, are updated in place); in
    evaluation two empty tensors."""
    if not training and (running_mean is None or running_var is None):
        # (PyTorch 2.13 crashes here)
        raise RuntimeError("running_mean must be defined in evaluation mode")
    res = _native_batch_norm(input, weight, bias, running_mean, running_var, None,
                             bool(training), momentum, eps)
    out = res[0] if type(res) is tuple else res
    stat_dt = running_mean.dtype if running_mean is not None else input.dtype
    if not training:
        return out, empty(0, dtype=stat_dt, device=input.device), \
            empty(0, dtype=stat_dt, device=input.device)
    it = iter(res[1:] if type(res) is tuple else ())
    for buf in (running_mean, running_var):
        if buf is not None:
            _write(buf, next(it), out)
    mean, invstd = dispatch(_STATS, (input, "batch", stat_dt.np, float(eps)), {})
    return out, mean, invstd


def _check_group(input, weight, bias, n, c, hxw, group):
    if input.size != n * c * hxw:
        raise RuntimeError("Expected X.numel() == N * C * HxW to be true, but got false.  "
                           "(Could this error message be improved?  If so, please report an "
                           "enhancement request to PyTorch.)")
    if group <= 0:
        raise RuntimeError(f"Expected num groups to be greater than 0, got {group}")
    check_groups(input, weight, bias, c, group)


@op("native_group_norm", method=False, out=False, grad_name="NativeGroupNormBackward0",
    tensors=("input", "weight", "bias"))
def native_group_norm(input, weight, bias, N, C, HxW, group, eps):  # noqa: N803 - PyTorch's
    """``(group_norm(input, group, weight, bias, eps), mean, rstd)``; mean and rstd are
    ``(N, group)``, in input's dtype."""
    _check_group(input, weight, bias, N, C, HxW, group)
    x = input.astype(_acc(input))
    g = x.reshape(N, group, -1)
    mean, var = _moments(g, (2,))
    rstd = 1 / jnp.sqrt(var + eps)
    out = ((g - mean) * rstd).reshape(input.shape)
    bs = _bshape(input.ndim, C) if input.ndim >= 2 else (C,)
    if weight is not None:
        out = out * weight.astype(x.dtype).reshape(bs)
    if bias is not None:
        out = out + bias.astype(x.dtype).reshape(bs)
    dt = input.dtype
    return out.astype(dt), mean.reshape(N, group).astype(dt), rstd.reshape(N, group).astype(dt)


# ------------------------------------------------------------------------ dropout
def _keep_body(input, key, p):
    return keep_mask(wrap(key), 1 - p, input.shape, input.dtype)


_KEEP = OpDef("_native_dropout_mask", _keep_body, saves=False, differentiable=False)


@op("_native_dropout", method=False, out=False, grad_name="NativeDropoutBackward0",
    tensors=("input", "mask"), nondiff=("mask",))
def _native_dropout(input, mask, scale):
    return jnp.where(mask, input * jnp.asarray(scale, input.dtype), jnp.zeros((), input.dtype))


@export()
def native_dropout(input, p, train):
    """``(output, mask)``: in training (``train`` True or None) each element is kept with
    probability ``1 - p`` (``mask`` True) and scaled by ``1 / (1 - p)``; otherwise the output
    is a copy of input and the mask all True. The random values are JAX's, not PyTorch's."""
    if not isinstance(input, TensorBase):
        raise TypeError(f"native_dropout(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    p = float(p)
    if train is None or train:
        if not 0.0 <= 1 - p <= 1.0:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={1 - p}")
        mask = dispatch(_KEEP, (input, next_key(), p), {})
        scale = 0.0 if p == 1 else 1.0 / (1.0 - p)
    else:
        mask = ones(tuple(input.shape), dtype=dtypes.bool_, device=input.device)
        scale = 1.0
    return _native_dropout(input, mask, scale), mask


# ------------------------------------------------------------------------ norms
@export()
def native_norm(input, p=2, dim=None, keepdim=False, dtype=None):
    """The ``p``-norm of all elements (or over ``dim``), of a dense or sparse COO tensor.

    Differences from PyTorch: PyTorch's runs on sparse tensors only (a full reduction);
    jtorch's also on dense ones and over ``dim``."""
    if input.is_sparse:
        input = input.to_dense()
    return vector_norm(input, 2 if p is None else p, dim, keepdim, dtype=dtype)


@export()
def frobenius_norm(input, dim, keepdim=False):
    """Deprecated: ``linalg.vector_norm(input, 2, dim, keepdim)`` over at most 2 dims."""
    warn_once("frobenius_norm", "at::frobenius_norm is deprecated and it is just left for JIT "
              "compatibility. It will be removed in a future PyTorch release. Please use "
              "`linalg.vector_norm(A, 2., dim, keepdim)` instead")
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(dims) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dims)} dimensions "
                           "instead.")
    return vector_norm(input, 2, dims, keepdim)


@export()
def nuclear_norm(input, dim=(-2, -1), keepdim=False):
    """Deprecated: ``linalg.matrix_norm(input, 'nuc', dim, keepdim)``;
    ``nuclear_norm(input, keepdim)`` takes the last two dims."""
    warn_once("nuclear_norm", "at::nuclear_norm is deprecated and it is just left for JIT "
              "compatibility. It will be removed in a future PyTorch release. Please use "
              "`linalg.matrix_norm(A, 'nuc', dim, keepdim)` instead")
    if isinstance(dim, bool):   # nuclear_norm(input, keepdim)
        dim, keepdim = (-2, -1), dim
    return matrix_norm(input, "nuc", tuple(dim), keepdim)


@export()
def norm_except_dim(v, pow=2, dim=0):
    """The ``pow``-norm of ``v`` over every dim but ``dim``, keeping them as size 1 (``dim``
    -1: the norm of everything, 0-d), as weight normalization uses it."""
    if dim == -1:
        return vector_norm(v, pow)
    if dim == 0:
        shape = (v.shape[0],) + (1,) * (v.ndim - 1)
        return vector_norm(reshape(v, (v.shape[0], -1)), pow, 1).reshape(shape)
    if dim == v.ndim - 1:
        shape = (1,) * (v.ndim - 1) + (v.shape[-1],)
        return vector_norm(reshape(v, (-1, v.shape[-1])), pow, 0).reshape(shape)
    return transpose(norm_except_dim(transpose(v, 0, dim), pow, 0), 0, dim)

