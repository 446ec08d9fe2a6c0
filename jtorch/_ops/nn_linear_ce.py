"""``F.linear_cross_entropy``: ``cross_entropy(linear(input, linear_weight, linear_bias), target)``.

Two paths, as in PyTorch 2.13:

- the reference path (``options=None``, or options PyTorch's chunked path does not take, with
  its warning): the logits are made by ``F.linear``, reshaped to ``(N, C, d_1, ..., d_K)`` for
  a K-dimensional ``linear_weight``, and go to ``F.cross_entropy``;
- the chunked path (``options`` a ``LinearCrossEntropyOptions``, class-index int64 targets,
  ``out_features == ()``, no label smoothing): one kernel that maps over the batch in chunks
  of ``batch_chunk_size`` rows (``jax.lax.map``), each chunk's logits rematerialised in
  backward (``jax.checkpoint``), so the full ``(N, C)`` logits are never kept. Its
  intermediates are computed in ``acc_dtype``; the result has the input's dtype.

Differences from PyTorch (docs/differences.md): ``acc_policy`` only chooses where PyTorch
keeps intermediates in ``acc_dtype``; here XLA plans the buffers and every intermediate is in
``acc_dtype`` (``"accurate"``'s choice). ``allow_retain_graph=False`` does not make a second
backward raise: the chunked kernel's backward is a vjp, which can run again.
"""

from __future__ import annotations

import math
import warnings

import jax
import jax.numpy as jnp

from .._core import dtypes
from ._index_util import concrete
from ._registry import export, op
from .nn_linear import linear
from .nn_loss import _LOSS, cross_entropy
from .shape import reshape, squeeze, unsqueeze


@op("_linear_cross_entropy_chunked", tensors=("input", "linear_weight", "target", "linear_bias",
                                              "weight"), nondiff=("target",), **_LOSS)
def _chunked(input, linear_weight, target, linear_bias=None, weight=None, reduction="mean",
             ignore_index=-100, chunk=1, acc_dtype=None):
    """Per-row losses of a ``(N, F)`` input over chunks of ``chunk`` rows, then reduced."""
    n, f = input.shape
    acc = jnp.dtype(acc_dtype) if acc_dtype is not None else input.dtype
    pad = (-n) % chunk
    xs = jnp.pad(input, ((0, pad), (0, 0))).reshape(-1, chunk, f)
    ts = jnp.pad(target.astype(jnp.int64), (0, pad), constant_values=ignore_index)
    ts = ts.reshape(-1, chunk)
    w_lin = linear_weight.astype(acc)
    bias = None if linear_bias is None else linear_bias.astype(acc)
    cls_w = None if weight is None else weight.astype(acc)

    @jax.checkpoint
    def piece(xt):
        x, t = xt
        logits = x.astype(acc) @ w_lin.T
        if bias is not None:
            logits = logits + bias
        valid = t != ignore_index
        safe = jnp.where(valid, t, 0)
        picked = jnp.take_along_axis(logits, safe[:, None], axis=1)[:, 0]
        nll = jax.nn.logsumexp(logits, axis=1) - picked
        w = jnp.ones_like(nll) if cls_w is None else cls_w[safe]
        w = jnp.where(valid, w, jnp.zeros((), acc))
        return nll * w, w

    losses, ws = jax.lax.map(piece, (xs, ts))
    losses, ws = losses.reshape(-1)[:n], ws.reshape(-1)[:n]
    if reduction == "none":
        return losses.astype(input.dtype)
    total = jnp.sum(losses)
    if reduction == "mean":
        total = total / jnp.sum(ws)
    return total.astype(input.dtype)


def _check_shapes(input, linear_weight, target, linear_bias):
    """PyTorch's argument checks; returns (batch dims, classes, out_features, logits shape)."""
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError("expected linear_weight with dimensionality at least 2, got "
                           f"{linear_weight.dim()}")
    batch, in_features = tuple(input.shape[:-1]), input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions "
                           f"(in_features), got {input.shape[-1]} and "
                           f"{linear_weight.shape[-1]}, respectively")
    num_classes, out_features = linear_weight.shape[0], tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (num_classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(num_classes, *out_features)}, got "
                           f"{tuple(linear_bias.shape)}")
    if out_features and not batch:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape "
                           f"{tuple(linear_weight.shape)} requires batched input, "
                           f"(N, {in_features}), got unbatched input with shape "
                           f"{tuple(input.shape)}")
    return batch, num_classes, out_features, (*batch, num_classes, *out_features)


def _check_chunk_targets(target, num_classes, ignore_index):
    t = concrete(target)
    if t is None:
        return
    t = t.reshape(-1)
    bad = (t != ignore_index) & ((t < 0) | (t >= num_classes))
    if bad.any():
        raise RuntimeError(f"index {int(t[bad.argmax()])} is out of bounds for dimension 1 "
                           f"with size {num_classes}")


@export("linear_cross_entropy", namespace="nn.functional")
def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None,
                         reduction="mean", ignore_index=None, label_smoothing=0.0,
                         options=None):
    """Cross entropy of ``linear(input, linear_weight, linear_bias)`` against ``target``.

    Args:
        input: ``(in_features)`` or ``(N, in_features)``.
        linear_weight: ``(C, in_features)``, or ``(C, d_1, ..., d_K, in_features)`` for a
            K-dimensional loss (batched input only).
        target: class indices ``()``, ``(N)`` or ``(N, d_1, ..., d_K)``; or class
            probabilities with the logits' shape.
        linear_bias: ``(C)`` or ``(C, d_1, ..., d_K)``. Default ``None``.
        weight, reduction, label_smoothing: as :func:`cross_entropy`.
        ignore_index: a class index to ignore; ``None`` (default) is -100 for class indices
            and must stay ``None`` for class probabilities.
        options: a ``LinearCrossEntropyOptions`` to compute in batch chunks (see the module
            docstring), or ``None`` for the reference path.

    Returns:
        The loss: a scalar, or the per-element losses for ``reduction='none'``.
    """
    batch, num_classes, out_features, logits_shape = _check_shapes(
        input, linear_weight, target, linear_bias)
    probabilities = tuple(target.shape) == logits_shape
    if probabilities and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    ignore_index = -100 if ignore_index is None else ignore_index
    if options is not None:
        chunkable = (not out_features and reduction in ("mean", "sum", "none")
                     and label_smoothing == 0.0 and target.dtype == dtypes.int64)
        if not chunkable:
            warnings.warn(
                "linear_cross_entropy: ``options`` ignored; chunked path needs reduction in "
                "{'mean','sum','none'}, label_smoothing == 0, target.dtype == int64, "
                f"out_features == (). Got reduction={reduction!r}, label_smoothing="
                f"{label_smoothing}, target.dtype={target.dtype}, out_features="
                f"{tuple(out_features)}, tracing=False, linear_bias.shape="
                f"{tuple(linear_bias.shape) if linear_bias is not None else None}.",
                stacklevel=2)
        else:
            return _chunked_path(input, linear_weight, target, linear_bias, weight, reduction,
                                 ignore_index, options, num_classes)
    if out_features:
        flat = math.prod(out_features, start=num_classes)
        linear_weight = reshape(linear_weight, (flat, input.shape[-1]))
        if linear_bias is not None:
            linear_bias = reshape(linear_bias, (flat,))
    logits = reshape(linear(input, linear_weight, linear_bias), logits_shape)
    return cross_entropy(logits, target, weight=weight, reduction=reduction,
                         ignore_index=ignore_index, label_smoothing=label_smoothing)


def _chunked_path(input, linear_weight, target, linear_bias, weight, reduction, ignore_index,
                  options, num_classes):
    batched = input.dim() == 2
    if not batched:
        input, target = unsqueeze(input, 0), unsqueeze(target, 0)
    opts = options._adjust(num_batches=input.shape[0], in_features=input.shape[-1],
                           num_classes=num_classes, dtype=input.dtype, device=input.device)
    _check_chunk_targets(target, num_classes, ignore_index)
    acc = opts.acc_dtype
    if acc != input.dtype and not (input.dtype in (dtypes.float16, dtypes.bfloat16)
                                   and acc == dtypes.float32):
        raise RuntimeError("linear_cross_entropy supports float32 acc_dtype with float16/bfloat16 "
                           f"inputs, but got {acc} acc_dtype and {input.dtype} inputs.")
    out = _chunked(input, linear_weight, target, linear_bias, weight, reduction, ignore_index,
                   int(opts.batch_chunk_size), None if acc is None else str(acc.np))
    return out if batched else squeeze(out, 0)
