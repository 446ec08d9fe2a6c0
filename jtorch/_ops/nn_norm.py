"""nn.functional ops: normalization (batch, instance, layer, group, RMS, local response).

Each normalization is one op: its forward is one jitted kernel and its backward one vjp of that
kernel. Batch/instance norm in training mode also return the new running statistics from the
same kernel; the public function writes them into the buffers in place (``_views.assign``, no
autograd), so the buffers change as PyTorch's do: same objects, version counter bumped.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from .._core.tensor_base import Size, TensorBase
from .._core.views import assign
from ._registry import export, op
from ._util import type_name

_LOW = (jnp.float16, jnp.bfloat16)


def _acc(x):
    """Compute dtype: half types accumulate in float32 as PyTorch's CPU kernels do."""
    return jnp.float32 if x.dtype in _LOW else x.dtype


def _bshape(ndim, c):
    return (1, c) + (1,) * (ndim - 2)


def _check_vec(name, v, c):
    if v is not None and v.size != c:
        raise RuntimeError(f"{name} should contain {c} elements not {v.size}")


def _check_param_dtypes(input, *params):
    """PyTorch's (CPU) dtype rule for a norm's affine parameters and running statistics: all of
    the input's dtype; or, when the first given one differs (the "mixed" case), all float32
    with a bfloat16/float16 input."""
    params = [p for p in params if p is not None]
    if not params or all(p.dtype == input.dtype for p in params):
        return
    if params[0].dtype == input.dtype:
        odd = next(p for p in params if p.dtype != input.dtype)
        raise RuntimeError(f"expected scalar type {type_name(input)} but found {type_name(odd)}")
    if any(p.dtype != jnp.float32 for p in params):
        raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
    if input.dtype not in _LOW:
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")


def _moments(x, axes):
    mean = jnp.mean(x, axis=axes, keepdims=True)
    var = jnp.mean(jnp.square(x - mean), axis=axes, keepdims=True)
    return mean, var


def _running(stat_new, old, factor):
    return ((1 - factor) * old.astype(stat_new.dtype) + factor * stat_new).astype(old.dtype)


def _bn_grad_name(*a, **k):
    return "NativeBatchNormBackward0"


@op("_native_batch_norm", method=False, out=False, grad_name=_bn_grad_name,
    tensors=("input", "weight", "bias", "running_mean", "running_var"))
def _native_batch_norm(input, weight, bias, running_mean, running_var, num_batches_tracked,
                       training, momentum, eps):
    """Batch norm over dim 1. In training mode with running stats, returns
    ``(out, new_running_mean, new_running_var[, new_num_batches_tracked])``; momentum None
    (with num_batches_tracked) is the cumulative average 1/num_batches_tracked."""
    c = input.shape[1] if input.ndim > 1 else 0
    for name, v in (("weight", weight), ("bias", bias), ("running_mean", running_mean),
                    ("running_var", running_var)):
        _check_vec(name, v, c)
    _check_param_dtypes(input, weight, bias, running_mean, running_var)
    bs = _bshape(input.ndim, c)
    x = input.astype(_acc(input))
    axes = (0,) + tuple(range(2, input.ndim))
    extra = []
    if training:
        mean, var = _moments(x, axes)
        if running_mean is not None or running_var is not None:
            n = input.size // max(c, 1)
            if momentum is None:
                factor = 1.0 / (num_batches_tracked + 1).astype(x.dtype)
            else:
                factor = momentum
            if running_mean is not None:
                extra.append(_running(mean.reshape(c), running_mean, factor))
            if running_var is not None:
                unbiased = var.reshape(c) * (n / (n - 1) if n > 1 else np.inf)
                extra.append(_running(unbiased, running_var, factor))
    else:
        if running_mean is None:
            raise RuntimeError("running_mean must be defined in evaluation mode")
        if running_var is None:
            raise RuntimeError("running_var must be defined in evaluation mode")
        mean = running_mean.astype(x.dtype).reshape(bs)
        var = running_var.astype(x.dtype).reshape(bs)
    out = _normalize(x, mean, var, weight, bias, eps, bs).astype(input.dtype)
    if num_batches_tracked is not None:
        extra.append(num_batches_tracked + 1)
    return (out, *extra) if extra else out


def _normalize(x, mean, var, weight, bias, eps, bs):
    """``(x - mean) / sqrt(var + eps) * weight + bias``, the affine parameters (either may be
    None) cast to ``x``'s dtype and reshaped to ``bs``."""
    out = (x - mean) * (1 / jnp.sqrt(var + eps))
    if weight is not None:
        out = out * weight.astype(x.dtype).reshape(bs)
    if bias is not None:
        out = out + bias.astype(x.dtype).reshape(bs)
    return out


def _write(buf, new, out):
    """In-place update of a buffer with a kernel result (no autograd, version bumped). The
    node of ``out`` stops tracking the buffer's version, as PyTorch's kernel updates the
    stats it saved without counting a version."""

    assign(buf, TensorBase._make(new._array, new._device))
    node = out._node
    if node is not None and node.saved:
        node.saved = [(s, v) for s, v in node.saved if s is not buf]


def _verify_batch_size(size):
    prod = size[0]
    for s in size[2:]:
        prod *= s
    if prod == 1:

        raise ValueError("Expected more than 1 value per channel when training, got input "
                         f"size {Size(size) if not isinstance(size, list) else size}")


def batch_norm_update(input, running_mean, running_var, weight, bias, training, momentum,
                      eps, num_batches_tracked=None):
    """The whole of BatchNorm's forward: one fused kernel computes the output and the new
    running stats (and num_batches_tracked + 1), written back to the buffers in place."""
    if training:
        _verify_batch_size(tuple(input.shape))
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    if eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    if not training:
        num_batches_tracked = None
    res = _native_batch_norm(input, weight, bias, running_mean, running_var,
                             num_batches_tracked, training, momentum, eps)
    if type(res) is not tuple:
        return res
    it = iter(res[1:])
    for buf in (running_mean, running_var, num_batches_tracked) if training else ():
        if buf is not None:
            _write(buf, next(it), res[0])
    return res[0]


@export("batch_norm", namespace="nn.functional")
def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    if momentum is None:
        raise TypeError("batch_norm(): argument 'momentum' (position 7) must be float, not "
                        "NoneType")
    return batch_norm_update(input, running_mean, running_var, weight, bias, training,
                             momentum, eps)


@export("batch_norm")
def torch_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
                     cudnn_enabled):
    return batch_norm_update(input, running_mean, running_var, weight, bias, training,
                             momentum, eps)


# ------------------------------------------------------------------------ instance norm
@op("_instance_norm", method=False, out=False, grad_name="NativeBatchNormBackward0",
    tensors=("input", "weight", "bias", "running_mean", "running_var"))
def _instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum,
                   eps):
    n, c = input.shape[0], input.shape[1] if input.ndim > 1 else 0
    for name, v in (("running_mean", running_mean), ("running_var", running_var)):
        if v is not None and v.size * n != n * c:
            raise RuntimeError(f"{name} should contain {n * c} elements not {v.size * n}")
    for name, v in (("weight", weight), ("bias", bias)):
        if v is not None and v.size * n != n * c:
            raise RuntimeError(f"{name} should contain {n * c} elements not {v.size * n}")
    _check_param_dtypes(input, weight, bias)
    bs = _bshape(input.ndim, c)
    x = input.astype(_acc(input))
    extra = []
    if use_input_stats:
        axes = tuple(range(2, input.ndim))
        mean, var = _moments(x, axes)
        m = input.size // max(n * c, 1)
        if running_mean is not None:
            extra.append(_running(jnp.mean(mean.reshape(n, c), 0), running_mean, momentum))
        if running_var is not None:
            unb = var.reshape(n, c) * (m / (m - 1) if m > 1 else np.inf)
            extra.append(_running(jnp.mean(unb, 0), running_var, momentum))
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("Expected running_mean and running_var to be defined when "
                               "use_input_stats is false")
        mean = running_mean.astype(x.dtype).reshape(bs)
        var = running_var.astype(x.dtype).reshape(bs)
    out = _normalize(x, mean, var, weight, bias, eps, bs).astype(input.dtype)
    return (out, *extra) if extra else out


def _instance_norm_call(input, running_mean, running_var, weight, bias, use_input_stats,
                        momentum, eps):
    res = _instance_norm(input, weight, bias, running_mean, running_var, use_input_stats,
                         momentum, eps)
    if type(res) is not tuple:
        return res
    it = iter(res[1:])
    for buf in (running_mean, running_var):
        if buf is not None:
            _write(buf, next(it), res[0])
    return res[0]


@export("instance_norm", namespace="nn.functional")
def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    if use_input_stats:
        size = tuple(input.shape)
        prod = 1
        for s in size[2:]:
            prod *= s
        if prod == 1:

            raise ValueError("Expected more than 1 spatial element when training, got input "
                             f"size {Size(size)}")
    return _instance_norm_call(input, running_mean, running_var, weight, bias,
                               use_input_stats, momentum, eps)


@export("instance_norm")
def torch_instance_norm(input, weight, bias, running_mean, running_var, use_input_stats,
                        momentum, eps, cudnn_enabled):
    return _instance_norm_call(input, running_mean, running_var, weight, bias,
                               use_input_stats, momentum, eps)


# ------------------------------------------------------------------------ layer / rms norm
def _shape_list(s):
    return "[" + ", ".join(str(int(v)) for v in s) + "]"


def _norm_shape(input, normalized_shape, rms=False):
    ns = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    k = len(ns)
    if k == 0 or input.ndim < k or tuple(input.shape[input.ndim - k:]) != ns:
        star = "[*" + ", ".join(str(v) for v in ns) + "]" if rms else \
            "[*, " + ", ".join(str(v) for v in ns) + "]"
        raise RuntimeError(f"Given normalized_shape={_shape_list(ns)}, expected input with "
                           f"shape {star}, but got input of size{_shape_list(input.shape)}")
    return ns, tuple(range(input.ndim - k, input.ndim))


def _check_affine(name, v, ns):
    if v is not None and tuple(v.shape) != ns:
        raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got "
                           f"{name} of shape {_shape_list(v.shape)} and normalized_shape = "
                           f"{_shape_list(ns)}")


@op("layer_norm", namespace=",nn.functional", method=False, out=False,
    grad_name="NativeLayerNormBackward0", tensors=("input", "weight", "bias"))
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):
    ns, axes = _norm_shape(input, normalized_shape)
    _check_affine("weight", weight, ns)
    _check_affine("bias", bias, ns)
    _check_param_dtypes(input, weight, bias)
    x = input.astype(_acc(input))
    mean, var = _moments(x, axes)
    out = (x - mean) * (1 / jnp.sqrt(var + eps))
    if weight is not None:
        out = out * weight.astype(x.dtype)
    if bias is not None:
        out = out + bias.astype(x.dtype)
    return out.astype(input.dtype)


@op("rms_norm", namespace=",nn.functional", method=False, out=False,
    grad_name="RmsNormBackward0", tensors=("input", "weight"))
def rms_norm(input, normalized_shape, weight=None, eps=None):
    ns, axes = _norm_shape(input, normalized_shape, rms=True)
    _check_affine("weight", weight, ns)
    # PyTorch computes in float32 for half inputs (the default eps too: float32's), applies
    # the weight before rounding once, and returns the input's dtype
    x = input.astype(_acc(input))
    if eps is None:
        eps = float(jnp.finfo(x.dtype).eps)
    out = x * (1 / jnp.sqrt(jnp.mean(x * x, axis=axes, keepdims=True) + eps))
    if weight is not None:
        out = out * weight
    return out.astype(input.dtype)


# ------------------------------------------------------------------------ group norm
def check_groups(input, weight, bias, c, groups):
    """PyTorch's group-norm errors: ``c`` channels not divisible into ``groups``, or an affine
    ``weight``/``bias`` that is not a vector of ``c`` values."""
    shp = _shape_list(input.shape)
    if c % groups:
        raise RuntimeError("Expected number of channels in input to be divisible by "
                           f"num_groups, but got input of shape {shp} and num_groups={groups}")
    for name, v in (("weight", weight), ("bias", bias)):
        if v is not None and (v.ndim != 1 or v.size != c):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of "
                               f"channels in input, but got {name} of shape "
                               f"{_shape_list(v.shape)} and input of shape {shp}")


@op("group_norm", method=False, out=False, grad_name="NativeGroupNormBackward0",
    tensors=("input", "weight", "bias"))
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    n, c = input.shape[0], input.shape[1]
    check_groups(input, weight, bias, c, num_groups)
    _check_param_dtypes(input, weight, bias)
    x = input.astype(_acc(input))
    g = x.reshape(n, num_groups, -1)
    mean, var = _moments(g, (2,))
    out = ((g - mean) * (1 / jnp.sqrt(var + eps))).reshape(input.shape)
    bs = _bshape(input.ndim, c)
    if weight is not None:
        out = out * weight.astype(x.dtype).reshape(bs)
    if bias is not None:
        out = out + bias.astype(x.dtype).reshape(bs)
    return out.astype(input.dtype)


@export("group_norm", namespace="nn.functional")
def f_group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    if input.dim() < 2:
        raise RuntimeError("Expected at least 2 dimensions for input tensor but received "
                           f"{input.dim()}")
    _verify_batch_size([input.size(0) * input.size(1) // num_groups, num_groups]
                       + list(input.shape[2:]))
    return group_norm(input, num_groups, weight, bias, eps)


# ------------------------------------------------------------------------ local response
@op("_local_response_norm", method=False, out=False, grad_name="DivBackward0")
def _lrn(input, size, alpha=1e-4, beta=0.75, k=1.0):
    c = input.shape[1]
    sq = jnp.square(input)
    lo, hi = size // 2, (size - 1) // 2
    pad = [(0, 0)] * input.ndim
    pad[1] = (lo, hi)
    sq = jnp.pad(sq, pad)
    win = sum(jnp.take(sq, jnp.arange(i, i + c), axis=1) for i in range(size))
    div = jnp.power(win / size * alpha + k, beta)
    return input / div


@export("local_response_norm", namespace="nn.functional")
def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    dim = input.dim()
    if dim < 3:
        raise ValueError("Expected 3D or higher dimensionality                          "
                         f"input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    return _lrn(input, size, alpha, beta, k)
