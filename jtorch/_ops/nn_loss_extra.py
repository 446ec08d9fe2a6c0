"""nn.functional losses, part 2: CTC, embedding/ranking/triplet margins, Poisson and Gaussian
NLL, multi-class margins. Same structure as ``nn_loss``: one op per loss, eager wrappers for
the legacy arguments and the checks PyTorch makes on values (skipped while tracing)."""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

from .._core.tensor_base import TensorBase
from ._index_util import concrete
from ._registry import export, op
from ._util import check_broadcast, type_name
from .compare import clamp_min as clamp_min_op, minimum
from .nn_distance import pairwise_distance as torch_pairwise_distance
from .nn_loss import (
    _LOSS,
    abs_,
    clamp_min,
    get_reduction,
    no_grad_arg,
    reduce_loss,
    resolve,
    shape_list,
)
from .reduction import mean, sum as sum_op


# ------------------------------------------------------------------ CTC
def _lse(*xs):
    """log(sum(exp(x))) of equally shaped arrays; -inf when all are -inf, with zero (not NaN)
    gradients there, so unreachable CTC states do not poison the backward pass."""
    m = xs[0]
    for x in xs[1:]:
        m = jnp.maximum(m, x)
    m = jax.lax.stop_gradient(jnp.where(jnp.isfinite(m), m, 0))
    s = sum(jnp.exp(x - m) for x in xs)
    pos = s > 0
    return jnp.where(pos, m + jnp.log(jnp.where(pos, s, 1)), -jnp.inf)


def _ctc_grad_name(*args, **kwargs):
    return "CtcLossBackward0"


@op("ctc_loss", tensors=("log_probs",), grad_name=_ctc_grad_name, **_LOSS)
def _ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
              zero_infinity=False):
    """Forward algorithm in log space over time with ``lax.scan``; the backward is its vjp.

    PyTorch's backward returns d loss / d log_probs PLUS ``exp(log_probs)`` on the frames
    ``t < input_length`` (its formula is meant to be chained through log_softmax, which removes
    that term); a zero-valued ``e - stop_gradient(e)`` term reproduces that gradient exactly.
    """
    require = jnp.issubdtype(log_probs.dtype, jnp.floating)
    if not require:
        raise NotImplementedError(f'"ctc_loss_cpu" not implemented for '
                                  f"'{type_name(log_probs)}'")
    unbatched = log_probs.ndim != 3
    if unbatched:
        if log_probs.ndim != 2:
            raise RuntimeError(f"Expected 3-dimensional tensor, but got {log_probs.ndim + 1}-"
                               "dimensional tensor for argument #1 'log_probs' (while checking "
                               "arguments for ctc_loss_allocate_outputs)")
        log_probs = log_probs[:, None]
        targets = targets.reshape(1, -1)
    T, N, C = log_probs.shape
    il = input_lengths.reshape(-1).astype(jnp.int32)
    tl = target_lengths.reshape(-1).astype(jnp.int32)
    if il.shape[0] != N:
        raise RuntimeError("input_lengths must be of size batch_size")
    if tl.shape[0] != N:
        raise RuntimeError("target_lengths must be of size batch_size")
    if not 0 <= blank < C:
        raise RuntimeError("blank must be in label range")
    targets = targets.astype(jnp.int32)
    if targets.ndim == 1:  # concatenated targets: pad to (N, total length), a static bound
        S = targets.shape[0]
        off = jnp.cumsum(tl) - tl
        idx = off[:, None] + jnp.arange(S, dtype=jnp.int32)[None]
        tg = targets[jnp.clip(idx, 0, max(S - 1, 0))] if S else jnp.zeros((N, 0), jnp.int32)
    else:
        tg = targets
    S = tg.shape[1]
    L = 2 * S + 1
    ext = jnp.full((N, L), blank, jnp.int32).at[:, 1::2].set(jnp.clip(tg, 0, C - 1))
    skip = jnp.concatenate([jnp.zeros((N, min(2, L)), bool),
                            (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])], axis=1)
    emit = jnp.take_along_axis(log_probs, jnp.broadcast_to(ext[None], (T, N, L)), axis=2)
    ninf = jnp.asarray(-jnp.inf, log_probs.dtype)
    pos = jnp.arange(L)[None]
    alpha0 = jnp.where(pos < 2, emit[0], ninf) if T else jnp.full((N, L), ninf)
    empty = jnp.where(pos == 0, jnp.zeros((), log_probs.dtype), ninf)
    alpha0 = jnp.where((il > 0)[:, None], alpha0, empty)

    def step(alpha, xs):
        e, t = xs
        a1 = jnp.concatenate([jnp.full((N, 1), ninf), alpha[:, :-1]], axis=1)
        a2 = jnp.concatenate([jnp.full((N, 2), ninf), alpha[:, :-2]], axis=1)[:, :L]
        new = _lse(alpha, a1, jnp.where(skip, a2, ninf)) + e
        return jnp.where((t < il)[:, None], new, alpha), None

    if T > 1:
        alpha, _ = jax.lax.scan(step, alpha0, (emit[1:], jnp.arange(1, T, dtype=jnp.int32)))
    else:
        alpha = alpha0
    last = jnp.take_along_axis(alpha, (2 * tl)[:, None], axis=1)[:, 0]
    prev = jnp.take_along_axis(alpha, jnp.maximum(2 * tl - 1, 0)[:, None], axis=1)[:, 0]
    loss = -_lse(last, jnp.where(tl > 0, prev, ninf))
    e = jnp.exp(log_probs)
    frames = (jnp.arange(T)[:, None] < il[None])[..., None]
    extra = jnp.sum(jnp.where(frames, e - jax.lax.stop_gradient(e), 0), axis=(0, 2))
    loss = loss + extra
    if zero_infinity:
        loss = jnp.where(jnp.isinf(loss), jnp.zeros((), loss.dtype), loss)
    if reduction == "mean":
        return jnp.mean(loss / jnp.maximum(tl, 1).astype(loss.dtype))
    if reduction == "sum":
        return jnp.sum(loss)
    return loss[0] if unbatched else loss


def _lengths(x):
    if isinstance(x, TensorBase):
        return x
    if isinstance(x, (list, tuple)):
        if not all(isinstance(v, (int, np.integer)) for v in x):
            raise TypeError("ctc_loss() received an invalid combination of arguments - got "
                            f"lengths of type {type(x).__name__} holding non-integers")
        return jnp.asarray(np.asarray(x, dtype=np.int64))
    if isinstance(x, int):
        return jnp.asarray(x, jnp.int64)
    return x


def _check_ctc(log_probs, targets, il, tl):
    """Eager value checks of the lengths (skipped while tracing)."""
    if log_probs.ndim not in (2, 3):
        return  # the kernel raises PyTorch's shape error
    T = log_probs.shape[0]
    il_np, tl_np = concrete(il), concrete(tl)
    where = " (while checking arguments for ctc_loss_allocate_outputs)"
    if il_np is not None and il_np.size:
        if il_np.min() < 0:
            raise RuntimeError(f"Expected input_lengths to have value at least 0, but got value "
                               f"{int(il_np.min())}{where}")
        if il_np.max() > T:
            raise RuntimeError(f"Expected input_lengths to have value at most {T}, but got value "
                               f"{int(il_np.max())}{where}")
    if tl_np is None or not tl_np.size:
        return
    if tl_np.min() < 0:
        raise RuntimeError(f"Expected target_lengths to have value at least 0, but got value "
                           f"{int(tl_np.min())}{where}")
    batched = log_probs.ndim == 3
    if batched and targets.ndim == 1:
        if targets.shape[0] != int(tl_np.sum()):
            raise RuntimeError(f"Expected tensor to have size {int(tl_np.sum())} at dimension 0, "
                               f"but got size {targets.shape[0]} for argument #2 'targets'"
                               f"{where}")
    else:
        dim = 1 if batched else 0
        if int(tl_np.max()) > targets.shape[dim]:
            raise RuntimeError(f"Expected tensor to have size at least {int(tl_np.max())} at "
                               f"dimension {dim}, but got size {targets.shape[dim]} for argument "
                               f"#2 'targets'{where}")


@export("ctc_loss", namespace="nn.functional")
def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    reduction = get_reduction(reduction)
    il, tl = _lengths(input_lengths), _lengths(target_lengths)
    _check_ctc(log_probs, targets, il, tl)
    return _ctc_loss(log_probs, targets, il, tl, int(blank), reduction, bool(zero_infinity))


@export("ctc_loss")
def _torch_ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=1,
                    zero_infinity=False):
    return ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                    get_reduction(reduction), zero_infinity)


# ------------------------------------------------------------------ embedding / ranking
@op("cosine_embedding_loss", tensors=("input1", "input2"), promote=None,
    grad_name="MeanBackward0", **_LOSS)
def _cosine_embedding_loss(input1, input2, target, margin=0.0, reduction="mean"):
    td = target.ndim
    if td > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    want = 2 if td == 1 else 1
    if input1.ndim != want or input2.ndim != want:
        raise RuntimeError(f"{td}D target tensor expects {want}D input tensors, but found inputs "
                           f"with sizes {shape_list(input1.shape)} and "
                           f"{shape_list(input2.shape)}.")
    check_broadcast(input1.shape, input2.shape)
    dt = jnp.result_type(input1, input2)
    x1, x2 = input1.astype(dt), input2.astype(dt)
    eps = 1e-12
    prod = jnp.sum(x1 * x2, axis=td)
    m1 = jnp.sum(x1 * x1, axis=td) + eps
    m2 = jnp.sum(x2 * x2, axis=td) + eps
    cos = prod / jnp.sqrt(m1 * m2)
    check_broadcast(target.shape, cos.shape)
    zero = jnp.zeros((), dt)
    out = jnp.where(target == 1, 1 - cos, zero) + jnp.where(target == -1,
                                                          clamp_min(cos - margin, 0), zero)
    return reduce_loss(out, reduction)


@export("cosine_embedding_loss", namespace="nn.functional")
def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                          reduction="mean"):
    reduction = resolve(size_average, reduce, reduction)
    return _cosine_embedding_loss(input1, input2, target, float(margin), reduction)


@op("margin_ranking_loss", tensors=("input1", "input2", "target"), promote="common",
    grad_name="MeanBackward0", **_LOSS)
def _margin_ranking_loss(input1, input2, target, margin=0.0, reduction="mean"):
    check_broadcast(input1.shape, input2.shape)
    d = input1 - input2
    check_broadcast(target.shape, d.shape)
    return reduce_loss(clamp_min(-target * d + margin, 0), reduction)


@export("margin_ranking_loss", namespace="nn.functional")
def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                        reduction="mean"):
    reduction = resolve(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError("margin_ranking_loss : All input tensors should have same dimension "
                           f"but got sizes: input1: {input1.size()}, input2: {input2.size()}, "
                           f"target: {target.size()} ")
    return _margin_ranking_loss(input1, input2, target, float(margin), reduction)


@op("hinge_embedding_loss", tensors=("input",), promote=None,
    grad_name="MeanBackward0", **_LOSS)
def _hinge_embedding_loss(input, target, margin=1.0, reduction="mean"):
    check_broadcast(target.shape, input.shape)
    zero = jnp.zeros((), input.dtype)
    out = jnp.where(target != 1, clamp_min(margin - input, 0), zero) + \
        jnp.where(target != -1, input, zero)
    return reduce_loss(out, reduction)


@export("hinge_embedding_loss", namespace="nn.functional")
def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    reduction = resolve(size_average, reduce, reduction)
    return _hinge_embedding_loss(input, target, float(margin), reduction)


# ------------------------------------------------------------------ triplet
def pairwise_distance(x1, x2, p, eps):
    """PyTorch's pairwise_distance body: ``norm(x1 - x2 + eps, p, dim=-1)``."""
    d = x1 - x2 + eps
    if d.ndim == 0:
        return jnp.abs(d)
    a = jnp.abs(d)
    if p == math.inf:
        return jnp.max(a, axis=-1)
    if p == -math.inf:
        return jnp.min(a, axis=-1)
    if p == 0:
        return jnp.sum(a != 0, axis=-1).astype(d.dtype)
    if p == 2:
        return jnp.sqrt(jnp.sum(d * d, axis=-1))
    if p == 1:
        return jnp.sum(abs_(d), axis=-1)
    return jnp.sum(a ** p, axis=-1) ** (1.0 / p)


@op("triplet_margin_loss", tensors=("anchor", "positive", "negative"), promote="common",
    grad_name="MeanBackward0", **_LOSS)
def _triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6, swap=False,
                         reduction="mean"):
    a, b, c = anchor.ndim, positive.ndim, negative.ndim
    if not a == b == c:
        raise RuntimeError("The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {a}D, positive {b}D, "
                           f"and negative {c}D inputs")
    check_broadcast(anchor.shape, positive.shape)
    check_broadcast(anchor.shape, negative.shape)
    dp = pairwise_distance(anchor, positive, p, eps)
    dn = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dn = jnp.minimum(dn, pairwise_distance(positive, negative, p, eps))
    return reduce_loss(clamp_min(margin + dp - dn, 0), reduction)


@export("triplet_margin_loss", namespace="nn.functional")
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    reduction = resolve(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    return _triplet_margin_loss(anchor, positive, negative, float(margin), float(p), float(eps),
                                bool(swap), reduction)


@export("triplet_margin_with_distance_loss", namespace="nn.functional")
def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    """Composed from jtorch ops (the distance function is arbitrary Python)."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a, b, c = anchor.ndim, positive.ndim, negative.ndim
    if not a == b == c:
        raise RuntimeError("The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {a}D, positive {b}D, "
                           f"and negative {c}D inputs")
    if distance_function is None:
        distance_function = torch_pairwise_distance
    dist_pos = distance_function(anchor, positive)
    dist_neg = distance_function(anchor, negative)
    if swap:
        dist_neg = minimum(dist_neg, distance_function(positive, negative))
    loss = clamp_min_op(margin + dist_pos - dist_neg, 0)
    if reduction == "sum":
        return sum_op(loss)
    if reduction == "mean":
        return mean(loss)
    return loss


# ------------------------------------------------------------------ Poisson / Gaussian NLL
@op("poisson_nll_loss", tensors=("input", "target"), promote="common",
    grad_name="MeanBackward0", **_LOSS)
def _poisson_nll_loss(input, target, log_input=True, full=False, eps=1e-8, reduction="mean"):
    check_broadcast(input.shape, target.shape)
    if log_input:
        loss = jnp.exp(input) - target * input
    else:
        loss = input - target * jnp.log(input + eps)
    if full:
        st = target * jnp.log(target) - target + 0.5 * jnp.log(2 * math.pi * target)
        loss = loss + jnp.where(target <= 1, jnp.zeros((), st.dtype), st)
    return reduce_loss(loss, reduction)


@export("poisson_nll_loss", namespace="nn.functional")
def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    if size_average is not None or reduce is not None:
        reduction = resolve(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    return _poisson_nll_loss(input, target, bool(log_input), bool(full), float(eps), reduction)


@export("poisson_nll_loss")
def _torch_poisson_nll_loss(input, target, log_input, full, eps, reduction):
    return _poisson_nll_loss(input, target, bool(log_input), bool(full), float(eps),
                             get_reduction(reduction))


@op("gaussian_nll_loss", tensors=("input", "target", "var"), promote="common",
    grad_name="MeanBackward0", **_LOSS)
def _gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean",
                       var_is_float=False):
    if var_is_float:
        var = jnp.broadcast_to(var, input.shape)
    elif var.shape != input.shape:
        if input.shape[:-1] == var.shape:
            var = var[..., None]
        elif not (input.ndim == var.ndim and
                  sum(y for x, y in zip(input.shape, var.shape) if x != y) == 1):
            raise ValueError("var is of incorrect size")
    # PyTorch clamps a clone of var under no_grad: the value is clamped, the gradient flows as
    # through the identity
    var = var + jax.lax.stop_gradient(jnp.maximum(var, eps) - var)
    loss = 0.5 * (jnp.log(var) + jnp.square(input - target) / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return reduce_loss(loss, reduction)


@export("gaussian_nll_loss", namespace="nn.functional")
def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    is_float = isinstance(var, float)
    if is_float:
        if var < 0:
            raise ValueError("var has negative entry/entries")
    elif not isinstance(var, TensorBase):
        raise TypeError("any() received an invalid combination of arguments - got (bool), but "
                        "expected one of:")
    else:
        v = concrete(var)
        if v is not None and (v < 0).any():
            raise ValueError("var has negative entry/entries")
    if not is_float and tuple(var.shape) != tuple(input.shape):
        ish, vsh = tuple(input.shape), tuple(var.shape)
        if ish[:-1] != vsh and not (len(ish) == len(vsh) and
                                    sum(y for x, y in zip(ish, vsh) if x != y) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    return _gaussian_nll_loss(input, target, var, bool(full), float(eps), reduction, is_float)


# ------------------------------------------------------------------ multi-class margins
def _check_margin_input(input):
    if input.ndim > 2 or input.size == 0 and input.ndim != 2:
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch size, "
                           f"but got: {shape_list(input.shape)}")


def _require_long(target):
    if target.dtype != jnp.int64:
        raise RuntimeError(f"expected scalar type Long but found {type_name(target)}")


@op("multilabel_margin_loss", tensors=("input",), **_LOSS)
def _multilabel_margin_loss(input, target, reduction="mean"):
    _check_margin_input(input)
    _require_long(target)
    if target.shape != input.shape:
        raise RuntimeError(f"inconsistent target size: {shape_list(target.shape)} for input of "
                           f"size: {shape_list(input.shape)}")
    C = input.shape[-1] if input.ndim else 1
    x = input.reshape(-1, C)
    t = target.reshape(-1, C).astype(jnp.int32)
    valid = jnp.cumprod(t != -1, axis=1).astype(bool)  # the labels before the first -1
    ts = jnp.where(valid, jnp.clip(t, 0, C - 1), 0)
    is_tgt = jnp.any(valid[:, :, None] & (ts[:, :, None] == jnp.arange(C)[None, None]), axis=1)
    xy = jnp.take_along_axis(x, ts, axis=1)
    z = 1 - xy[:, :, None] + x[:, None, :]
    keep = valid[:, :, None] & ~is_tgt[:, None, :] & (z > 0)
    loss = jnp.sum(jnp.where(keep, z, jnp.zeros((), z.dtype)), axis=(1, 2)) / C
    if input.ndim <= 1:
        loss = loss.reshape(())
    return reduce_loss(loss, reduction)


@export("multilabel_margin_loss", namespace="nn.functional")
def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction = resolve(size_average, reduce, reduction)
    t = concrete(target)
    if t is not None and t.size and tuple(target.shape) == tuple(input.shape):
        C = input.shape[-1] if input.ndim else 1
        t = t.reshape(-1, C)
        valid = np.cumprod(t != -1, axis=1).astype(bool)
        if ((t < 0) | (t >= C))[valid].any():
            raise RuntimeError("argument #2 'target' is out of range")
    return _multilabel_margin_loss(input, target, reduction)


@op("multi_margin_loss", tensors=("input",), **_LOSS)
def _multi_margin_loss(input, target, p=1, margin=1.0, weight=None, reduction="mean"):
    _check_margin_input(input)
    C = input.shape[-1] if input.ndim else 1
    N = input.shape[0] if input.ndim == 2 else 1
    if (target.ndim > 1 or target.size != N) and not (input.ndim <= 1 and target.size == 1):
        raise RuntimeError("multi_margin_loss: target tensor should be 1-D with size equal to "
                           "the number of input samples (batch size). Expected target size "
                           f"[{N}], but got {shape_list(target.shape)}. Input has shape "
                           f"{shape_list(input.shape)}.")
    _require_long(target)
    if weight is not None and (weight.ndim != 1 or weight.shape[0] != C):
        raise RuntimeError(f"inconsistent weight size, expected {C} but got "
                           f"{shape_list(weight.shape)}")
    x = input.reshape(N, C)
    y = jnp.clip(target.reshape(N).astype(jnp.int32), 0, C - 1)
    xy = jnp.take_along_axis(x, y[:, None], axis=1)
    z = margin - xy + x
    keep = (jnp.arange(C)[None] != y[:, None]) & (z > 0)
    h = z if p == 1 else z * z
    if weight is not None:
        h = h * weight.astype(x.dtype)[y][:, None]
    loss = jnp.sum(jnp.where(keep, h, jnp.zeros((), h.dtype)), axis=1) / C
    if input.ndim <= 1:
        loss = loss.reshape(target.shape if target.ndim else ())
    return reduce_loss(loss, reduction)


@export("multi_margin_loss", namespace="nn.functional")
def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    reduction = resolve(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    no_grad_arg("multi_margin_loss", "weight", weight)
    t = concrete(target) if 0 < input.ndim <= 2 and str(target.dtype) == "torch.int64" else None
    if t is not None and t.size:
        C = input.shape[-1]
        if ((t < 0) | (t >= C)).any():
            raise RuntimeError("target out of range")
    return _multi_margin_loss(input, target, int(p), float(margin), weight, reduction)


# ------------------------------------------------------------------ torch.* forms
@export("cosine_embedding_loss")
def _torch_cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=1):
    return _cosine_embedding_loss(input1, input2, target, float(margin),
                                  get_reduction(reduction))


@export("margin_ranking_loss")
def _torch_margin_ranking_loss(input1, input2, target, margin=0.0, reduction=1):
    return _margin_ranking_loss(input1, input2, target, float(margin), get_reduction(reduction))


@export("hinge_embedding_loss")
def _torch_hinge_embedding_loss(input, target, margin=1.0, reduction=1):
    return _hinge_embedding_loss(input, target, float(margin), get_reduction(reduction))


@export("triplet_margin_loss")
def _torch_triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6,
                               swap=False, reduction=1):
    return _triplet_margin_loss(anchor, positive, negative, float(margin), float(p), float(eps),
                                bool(swap), get_reduction(reduction))
