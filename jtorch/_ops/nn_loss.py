"""nn.functional losses, part 1: regression losses, NLL / cross-entropy, BCE, KL, soft margins.

Each loss is one op (one jitted kernel; its backward is one ``jax.vjp``). The public
``F.<loss>`` is a thin eager wrapper that maps the legacy ``size_average``/``reduce`` arguments
(with PyTorch's warning), validates ``reduction`` and runs PyTorch's checks on VALUES (class
index bounds, BCE input range) with NumPy before launching the kernel. Value checks need
concrete numbers: while tracing (jax.jit, jtorch.compile) they are skipped. Shape and dtype
checks live in the op bodies and raise at trace time, on every call.
"""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp

from .._core import torch_function
from .._core.state import STATE
from .._core.tensor_base import TensorBase
from ._index_util import concrete
from ._registry import export, op
from ._util import check_broadcast, type_name
from .reduction import divided_mean, softmax_values

# the loss ops are published through the Python wrappers below (reduction arguments, checks)
_LOSS = {"namespace": None, "method": False, "out": False}
_ENUM = {0: "none", 1: "mean", 2: "sum"}


# ------------------------------------------------------------------ shared helpers
def legacy_get_string(size_average, reduce, emit_warning=True):
    """PyTorch's mapping of the deprecated ``size_average``/``reduce`` pair to a reduction."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    ret = "mean" if size_average and reduce else ("sum" if reduce else "none")
    if emit_warning:
        warnings.warn("size_average and reduce args will be deprecated, please use "
                      f"reduction='{ret}' instead.", stacklevel=4)
    return ret


def get_reduction(reduction):
    """Validates a reduction string (or PyTorch's enum int) as ``_Reduction.get_enum`` does."""
    if isinstance(reduction, int) and not isinstance(reduction, bool):
        reduction = _ENUM.get(reduction, reduction)
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' "
                      "instead.", stacklevel=4)
        return "mean"
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def resolve(size_average, reduce, reduction):
    if size_average is not None or reduce is not None:
        return legacy_get_string(size_average, reduce)
    return get_reduction(reduction)


def reduce_loss(loss, reduction):
    if reduction == "mean":
        return divided_mean(loss, tuple(range(jnp.ndim(loss))))
    if reduction == "sum":
        return jnp.sum(loss)
    return loss


def clamp_min(x, lo):
    """``x.clamp_min(lo)`` with PyTorch's derivative: the gradient passes where ``x >= lo``."""
    return jnp.where(x >= lo, x, jnp.asarray(lo, x.dtype))


def size_warning(input, target):
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(f"Using a target size ({target.size()}) that is different to the input "
                      f"size ({input.size()}). This will likely lead to incorrect results due "
                      "to broadcasting. Please ensure they have the same size.", stacklevel=3)


def no_grad_arg(fn_name, arg_name, t):
    """PyTorch raises when an argument its kernel cannot differentiate requires grad."""
    if isinstance(t, TensorBase) and t.requires_grad and STATE.grad_enabled:
        raise RuntimeError(f"The function '{fn_name}' is not differentiable with respect to "
                           f"argument '{arg_name}'. This input cannot have requires_grad True.")


def shape_list(s):
    return "[" + ", ".join(str(d) for d in s) + "]"


def require_float(x, kernel):
    if not jnp.issubdtype(x.dtype, jnp.inexact):
        raise NotImplementedError(f'"{kernel}" not implemented for \'{type_name(x)}\'')


def abs_(x):
    """``|x|`` with PyTorch's derivative ``sgn(x)``: 0 at 0 (JAX's abs gives 1 there) and 0 at
    NaN (JAX's sign is NaN there; l1_loss of a NaN prediction leaves its gradient 0)."""
    return x * jax.lax.stop_gradient(jnp.where(jnp.isnan(x), 0, jnp.sign(x)))


def _weighted(loss, weight, reduction, mean_by_weight):
    """The Python-level ``weight=`` path of mse/l1/huber: ``mean`` is sum(w*l)/sum(w) for
    mse/l1 and mean(w*l) for huber, as PyTorch computes them."""
    if weight is None:
        return reduce_loss(loss, reduction)
    loss = loss * weight
    if reduction == "mean" and mean_by_weight:
        return jnp.sum(loss) / jnp.sum(weight)
    return reduce_loss(loss, reduction)


def _weight_reduction(weight, reduction):
    """With ``weight=``, mse/l1/huber check the reduction themselves (another message)."""
    if weight is not None and reduction not in ("none", "mean", "sum"):
        raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', "
                         "'sum'.")


# ------------------------------------------------------------------ regression losses
_REG = dict(tensors=("input", "target", "weight"), promote="common", **_LOSS)


@op("mse_loss", **_REG)
def _mse_loss(input, target, reduction="mean", weight=None):
    check_broadcast(input.shape, target.shape)
    require_float(input, "mse_cpu")
    return _weighted(jnp.square(input - target), weight, reduction, True)


@op("l1_loss", grad_name="MeanBackward0", **_REG)
def _l1_loss(input, target, reduction="mean", weight=None):
    check_broadcast(input.shape, target.shape)
    return _weighted(abs_(input - target), weight, reduction, True)


@op("smooth_l1_loss", **_REG)
def _smooth_l1_loss(input, target, reduction="mean", beta=1.0):
    check_broadcast(input.shape, target.shape)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    d = input - target
    if beta == 0:  # PyTorch calls l1_loss
        return reduce_loss(abs_(d), reduction)
    # PyTorch's own backward, d/beta inside, sign(d) outside (NaN at NaN); the quadratic
    # branch sees 0 outside (its masked gradient times an infinite d would be NaN)
    z = d * jax.lax.stop_gradient(jnp.sign(d))
    inside = z < beta
    q = jnp.where(inside, d, 0)
    return reduce_loss(jnp.where(inside, 0.5 * q * q / beta, z - 0.5 * beta), reduction)


@op("huber_loss", **_REG)
def _huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    check_broadcast(input.shape, target.shape)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    d = input - target
    z = d * jax.lax.stop_gradient(jnp.sign(d))  # PyTorch's backward: NaN at NaN
    inside = z < delta
    q = jnp.where(inside, d, 0)  # an infinite d outside would make the masked gradient NaN
    loss = jnp.where(inside, 0.5 * q * q, delta * (z - 0.5 * delta))
    return _weighted(loss, weight, reduction, False)


def _check_weight_size(input, weight):
    if weight is not None and tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")


def _elementwise_loss(kernel, input, target, size_average, reduce, reduction, weight):
    """mse_loss/l1_loss: the legacy ``size_average``/``reduce``, the weight checks, then
    ``kernel``."""
    size_warning(input, target)
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    _check_weight_size(input, weight)
    _weight_reduction(weight, reduction)
    return kernel(input, target, get_reduction(reduction), weight)


@export("mse_loss", namespace="nn.functional")
@torch_function.input_overridable("torch.nn.functional.mse_loss", keywords=2)
def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    return _elementwise_loss(_mse_loss, input, target, size_average, reduce, reduction, weight)


@export("l1_loss", namespace="nn.functional")
@torch_function.input_overridable("torch.nn.functional.l1_loss", keywords=2)
def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    return _elementwise_loss(_l1_loss, input, target, size_average, reduce, reduction, weight)


@export("smooth_l1_loss", namespace="nn.functional")
@torch_function.input_overridable("torch.nn.functional.smooth_l1_loss", keywords=2)
def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    size_warning(input, target)
    reduction = resolve(size_average, reduce, reduction)
    return _smooth_l1_loss(input, target, reduction, float(beta))


@export("huber_loss", namespace="nn.functional")
def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    size_warning(input, target)
    _check_weight_size(input, weight)
    _weight_reduction(weight, reduction)
    return _huber_loss(input, target, get_reduction(reduction), float(delta), weight)


# ------------------------------------------------------------------ NLL / cross-entropy
def _check_nll(input, target, weight, name=""):
    """PyTorch's nll_loss_nd shape/dtype checks (trace time)."""
    if input.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.ndim})")
    tb = target.shape[0] if target.ndim else 0
    if input.ndim != 1 and input.shape[0] != tb:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target "
                         f"batch_size ({tb}).")
    nd = input.ndim
    if nd <= 2:
        if target.ndim > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        if nd == 1 and target.ndim == 1 and target.shape[0] != 1:
            raise ValueError("For 1D input, 1D target must have size 1, but got target size: "
                             f"{target.shape[0]}")
    elif nd == 4:
        if target.ndim != 3:
            raise RuntimeError("only batches of spatial targets supported (3D tensors) but got "
                               f"targets of dimension: {target.ndim}")
        if target.shape != (input.shape[0],) + input.shape[2:]:
            raise RuntimeError(f"size mismatch (got input: {shape_list(input.shape)} , target: "
                               f"{shape_list(target.shape)}")
    else:
        want = (input.shape[0],) + input.shape[2:]
        if target.shape != want:
            raise RuntimeError(f"Expected target size {shape_list(want)}, got "
                               f"{shape_list(target.shape)}")
    if target.dtype not in (jnp.int64, jnp.uint8):
        raise RuntimeError("expected target dtype to be Long or Byte, but got "
                           f"{type_name(target)}")
    n_cls = input.shape[0 if nd == 1 else 1]
    if weight is not None:
        if weight.ndim != 1 or weight.shape[0] != n_cls:
            raise RuntimeError(f"{name}weight tensor should be defined either for all {n_cls} "
                               "classes or no classes but got weight tensor of shape: "
                               f"{shape_list(weight.shape)}")
        if weight.dtype != input.dtype:
            raise RuntimeError(f"expected scalar type {type_name(input)} but found "
                               f"{type_name(weight)}")


def _nll(logp, target, weight, reduction, ignore_index):
    """Weighted NLL of log-probabilities ``logp`` (class dim 1, or 0 for 1-D input) at
    ``target``; ``mean`` divides by the summed weights of the non-ignored targets.
    Returns (loss, target with ignored entries made safe, mask of non-ignored)."""
    cdim = 0 if logp.ndim == 1 else 1
    t = target.reshape(()) if logp.ndim == 1 else target
    t = t.astype(jnp.int32)
    valid = t != ignore_index
    ts = jnp.where(valid, t, 0)
    picked = jnp.squeeze(jnp.take_along_axis(logp, jnp.expand_dims(ts, cdim), axis=cdim,
                                             mode="clip"), cdim)
    w = jnp.ones_like(picked) if weight is None else weight[ts]
    w = jnp.where(valid, w, jnp.zeros((), logp.dtype))
    loss = -picked * w
    if reduction == "mean":
        return jnp.sum(loss) / jnp.sum(w), ts, valid, w
    return reduce_loss(loss, reduction), ts, valid, w


@op("nll_loss", tensors=("input",), grad_name="NllLossBackward0", **_LOSS)
def _nll_loss(input, target, weight=None, reduction="mean", ignore_index=-100):
    _check_nll(input, target, weight)
    require_float(input, "nll_loss_out_frame")
    return _nll(input, target, weight, reduction, ignore_index)[0]


def _class_count(input):
    return input.shape[0] if input.ndim == 1 else input.shape[1]


def _check_targets(input, target, ignore_index):
    """Eager bounds check of class-index targets (skipped while tracing, and when the shapes
    or dtype are wrong: the kernel then raises PyTorch's shape/dtype error)."""
    if input.ndim < 1 or str(target.dtype) not in ("torch.int64", "torch.uint8"):
        return
    shape = tuple(target.shape)
    if input.ndim == 1:
        if shape not in ((), (1,)):
            return
    elif shape != (input.shape[0],) + tuple(input.shape[2:]):
        return
    t = concrete(target)
    if t is None:
        return
    n_cls = input.shape[0] if input.ndim == 1 else input.shape[1]
    t = t.reshape(-1).astype("int64")
    bad = (t != ignore_index) & ((t < 0) | (t >= n_cls))
    if bad.any():
        raise IndexError(f"Target {int(t[bad.argmax()])} is out of bounds.")


@export("nll_loss", namespace="nn.functional")
def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    reduction = resolve(size_average, reduce, reduction)
    no_grad_arg("nll_loss_forward", "weight", weight)
    _check_targets(input, target, ignore_index)
    return _nll_loss(input, target, weight, reduction, ignore_index)


def _ce_grad_name(input, target, weight=None, reduction="mean", ignore_index=-100,
                  label_smoothing=0.0):
    return "NllLossBackward0" if label_smoothing == 0.0 else "AddBackward0"


@op("cross_entropy", tensors=("input", "target", "weight"), grad_name=_ce_grad_name, **_LOSS)
def _cross_entropy(input, target, weight=None, reduction="mean", ignore_index=-100,
                   label_smoothing=0.0):
    prob = input.shape == target.shape  # class probabilities
    if prob and not jnp.issubdtype(target.dtype, jnp.floating):
        raise RuntimeError("Expected floating point type for target with class "
                           f"probabilities, got {type_name(target)}")
    if input.ndim == 0:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    require_float(input, "log_softmax_lastdim_kernel_impl")
    cdim = 0 if input.ndim == 1 else 1
    n_cls = input.shape[cdim]
    logp = softmax_values(input, cdim, True)
    wshape = (n_cls,) + (1,) * (input.ndim - cdim - 1)
    if prob:
        if weight is not None and (weight.ndim != 1 or weight.shape[0] != n_cls):
            raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all "
                               f"{n_cls} classes or no classes but got weight tensor of shape: "
                               f"{shape_list(weight.shape)}")
        target = target.astype(input.dtype)
        if label_smoothing > 0:
            target = target * (1 - label_smoothing) + label_smoothing / n_cls
        prod = logp * target
        if weight is not None:
            prod = prod * weight.astype(input.dtype).reshape(wshape)
        loss = -jnp.sum(prod, axis=cdim)
        if reduction == "mean":
            return jnp.sum(loss) / (input.size // n_cls) if input.size else jnp.sum(loss) * jnp.nan
        return reduce_loss(loss, reduction)
    _check_nll(input, target, weight)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    nll, ts, valid, w = _nll(logp, target, weight, reduction, ignore_index)
    if label_smoothing == 0:
        return nll
    prod = logp if weight is None else logp * weight.reshape(wshape)
    smooth = jnp.where(valid, -jnp.sum(prod, axis=cdim), jnp.zeros((), input.dtype))
    if reduction == "mean":
        smooth = jnp.sum(smooth) / (jnp.sum(w) if weight is not None else jnp.sum(valid))
    else:
        smooth = reduce_loss(smooth, reduction)
    return (1 - label_smoothing) * nll + smooth * (label_smoothing / n_cls)


@export("cross_entropy", namespace="nn.functional")
def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    reduction = resolve(size_average, reduce, reduction)
    if tuple(input.shape) != tuple(target.shape):  # class indices
        no_grad_arg("nll_loss_forward", "weight", weight)
        _check_targets(input, target, ignore_index)
    return _cross_entropy(input, target, weight, reduction, ignore_index, float(label_smoothing))


# ------------------------------------------------------------------ binary cross-entropy
@jax.custom_jvp
def _bce_elem(x, t):
    return (t - 1) * jnp.maximum(jnp.log1p(-x), -100.0) - t * jnp.maximum(jnp.log(x), -100.0)


@_bce_elem.defjvp
def _bce_elem_jvp(primals, tangents):
    # PyTorch's derivatives: d/dx = (x - t) / max(x (1 - x), 1e-12) (finite at 0 and 1), and
    # d/dt = log(1 - x) - log(x) (not clamped)
    x, t = primals
    dx, dt = tangents
    gx = (x - t) / jnp.maximum((1 - x) * x, 1e-12)
    gt = jnp.log1p(-x) - jnp.log(x)
    return _bce_elem(x, t), gx * dx + gt * dt


@op("binary_cross_entropy", tensors=("input", "target"), **_LOSS)
def _binary_cross_entropy(input, target, weight=None, reduction="mean"):
    if target.dtype != input.dtype:
        raise RuntimeError(f"Found dtype {type_name(target)} but expected "
                           f"{type_name(input)}")
    loss = _bce_elem(input, target)
    if weight is not None:
        loss = loss * weight.astype(input.dtype)
    return reduce_loss(loss, reduction)


def _expand_error(shape, target):
    """PyTorch's ``expand`` message for a weight that does not broadcast to ``target``."""
    n, m = len(shape), len(target)
    for i in range(1, n + 1):
        if i > m or (shape[-i] != 1 and shape[-i] != target[-i]):
            raise RuntimeError(f"Attempting to broadcast a dimension of length {shape[-i]} at "
                               f"-{i}! Mismatching argument at index 1 had torch.Size("
                               f"{list(shape)}); but expected shape should be broadcastable to "
                               f"{list(target)}")


@export("binary_cross_entropy", namespace="nn.functional")
def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    reduction = resolve(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.size()}) that is different to the input "
                         f"size ({input.size()}) is deprecated. Please ensure they have the "
                         "same size.")
    if weight is not None:
        _expand_error(tuple(weight.shape), tuple(input.shape))
    no_grad_arg("binary_cross_entropy", "weight", weight)
    x = concrete(input)
    if x is not None and x.size and not ((x >= 0) & (x <= 1)).all():
        raise RuntimeError("all elements of input should be between 0 and 1")
    return _binary_cross_entropy(input, target, weight, reduction)


@op("binary_cross_entropy_with_logits", tensors=("input", "target"), **_LOSS)
def _bce_with_logits(input, target, weight=None, pos_weight=None, reduction="mean"):
    if not jnp.issubdtype(target.dtype, jnp.inexact):
        raise RuntimeError(f"result type {type_name(input)} can't be cast to the desired "
                           f"output type {type_name(target)}")
    # PyTorch computes ``(1 - target).mul_(input).sub_(...)``: the loss takes the target's dtype
    # (a float64 input with a float32 target gives a float32 loss, rounded at each step)
    out, common = target.dtype, jnp.promote_types(input.dtype, target.dtype)
    ls = jax.nn.log_sigmoid(input).astype(common)
    loss = ((1 - target).astype(common) * input.astype(common)).astype(out).astype(common)
    if pos_weight is not None:
        check_broadcast(pos_weight.shape, target.shape)
        wdt = jnp.promote_types(pos_weight.dtype, out)
        lw = (pos_weight - 1).astype(wdt) * target.astype(wdt) + 1
        ls = ls * lw.astype(common)
    loss = (loss - ls).astype(out)
    if weight is not None:
        check_broadcast(loss.shape, weight.shape)
        wdt = jnp.promote_types(weight.dtype, out)
        loss = (loss.astype(wdt) * weight.astype(wdt)).astype(out)
    return reduce_loss(loss, reduction)


@export("binary_cross_entropy_with_logits", namespace="nn.functional")
def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    reduction = resolve(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.size()}) must be the same as input size "
                         f"({input.size()})")
    no_grad_arg("binary_cross_entropy_with_logits", "weight", weight)
    no_grad_arg("binary_cross_entropy_with_logits", "pos_weight", pos_weight)
    return _bce_with_logits(input, target, weight, pos_weight, reduction)


# ------------------------------------------------------------------ KL divergence
@op("kl_div", tensors=("input", "target"), promote="common", **_LOSS)
def _kl_div(input, target, reduction="mean", log_target=False):
    check_broadcast(target.shape, input.shape)
    if log_target:
        loss = jnp.exp(target) * (target - input)
    else:
        loss = jax.scipy.special.xlogy(target, target) - target * input
    if reduction == "batchmean":
        s = jnp.sum(loss)
        return s / input.shape[0] if input.ndim else s
    return reduce_loss(loss, reduction)


@export("kl_div", namespace="nn.functional")
def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    else:
        if reduction == "mean":
            warnings.warn("reduction: 'mean' divides the total loss by both the batch size and "
                          "the support size.'batchmean' divides only by the batch size, and "
                          "aligns with the KL div math definition.'mean' will be changed to "
                          "behave the same as 'batchmean' in the next major release.",
                          stacklevel=2)
        if reduction != "batchmean":
            reduction = get_reduction(reduction)
    return _kl_div(input, target, reduction, bool(log_target))


# ------------------------------------------------------------------ soft margins
@op("soft_margin_loss", tensors=("input", "target"), promote="common", **_LOSS)
def _soft_margin_loss(input, target, reduction="mean"):
    check_broadcast(input.shape, target.shape)
    return reduce_loss(jnp.log1p(jnp.exp(-input * target)), reduction)


@export("soft_margin_loss", namespace="nn.functional")
def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction = resolve(size_average, reduce, reduction)
    no_grad_arg("soft_margin_loss", "target", target)
    return _soft_margin_loss(input, target, reduction)


@op("multilabel_soft_margin_loss", tensors=("input", "target", "weight"), promote="common",
    grad_name="MeanBackward0", **_LOSS)
def _multilabel_soft_margin_loss(input, target, weight=None, reduction="mean"):
    check_broadcast(input.shape, target.shape)
    loss = -(target * jax.nn.log_sigmoid(input) + (1 - target) * jax.nn.log_sigmoid(-input))
    if weight is not None:
        loss = loss * weight
    cdim = input.ndim - 1
    loss = jnp.sum(loss, axis=cdim) / input.shape[cdim]
    return reduce_loss(loss, reduction)


@export("multilabel_soft_margin_loss", namespace="nn.functional")
def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    return _multilabel_soft_margin_loss(input, target, weight, reduction)


@export("binary_cross_entropy_with_logits")
def _torch_bce_with_logits(input, target, weight=None, pos_weight=None, reduction=1):
    """``torch.binary_cross_entropy_with_logits`` (reduction as PyTorch's enum int)."""
    return binary_cross_entropy_with_logits(input, target, weight, pos_weight=pos_weight,
                                            reduction=get_reduction(reduction))


@export("kl_div")
def _torch_kl_div(input, target, reduction=1, *, log_target=False):
    """``torch.kl_div`` (reduction as PyTorch's enum int; no batchmean, no warning)."""
    return _kl_div(input, target, get_reduction(reduction), bool(log_target))
