"""torch.nn.init: fill parameters in place with PyTorch's initialisation distributions.

Every initialiser runs under ``no_grad``, writes into ``tensor`` in place (through views) and
returns it. Random ones take ``generator=`` like PyTorch and draw one key per call from it
(``jtorch/_random.py``): the numbers differ from PyTorch's streams, the distributions do not.

Differences from PyTorch:
    - ``trunc_normal_`` samples the truncated normal by the inverse CDF in one kernel (PyTorch
      2.13 uses rejection sampling); both draw from the exact truncated distribution.
    - ``sparse_`` draws the zero positions of every column from ``generator`` (PyTorch uses the
      global generator there, whatever ``generator`` is).
"""

from __future__ import annotations

import functools
import inspect
import math
import warnings

import jax
import jax.numpy as jnp
import numpy as np

from .. import linalg
from .._core.errors import torch_name_fallback
from .._core.generator import next_key, wrap
from .._core.kernel import OpDef
from .._core.views import inplace_call
from .._ops import creation, creation_math, random_ops
from .._tensor import Tensor as Tensor  # PyTorch's torch.nn.init re-exports it too
from ..autograd import no_grad
from ..overrides import _dispatch_to_mode, _len_torch_function_stack

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_",
           "zeros_", "eye_", "dirac_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_",
           "kaiming_normal_", "orthogonal_", "sparse_", "uniform", "normal", "constant", "eye",
           "dirac", "xavier_uniform", "xavier_normal", "kaiming_uniform", "kaiming_normal",
           "orthogonal", "sparse"]

_LINEAR = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d")


def calculate_gain(nonlinearity, param=None):
    """The recommended gain for ``nonlinearity`` (PyTorch's table)."""
    if nonlinearity in _LINEAR or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif (not isinstance(param, bool) and isinstance(param, int)) or isinstance(param, float):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         "dimensions")
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= s
    return tensor.size(1) * receptive, tensor.size(0) * receptive


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError(f"Mode {mode} not supported, please use one of {valid_modes}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _write(tensor, value):
    """Overwrite all of ``tensor`` with ``value`` (same shape), without recording grad."""
    with no_grad():
        tensor[...] = value
    return tensor


def _overridable(init):
    """``init`` as PyTorch runs it: under a TorchFunctionMode, the mode's
    ``__torch_function__`` gets the call, every argument by keyword (``torch.overrides``)."""
    signature = inspect.signature(init)

    @functools.wraps(init)
    def dispatched(*args, **kwargs):
        if not _len_torch_function_stack():   # no mode: the body at once (binding is for it)
            return init(*args, **kwargs)
        try:
            call = signature.bind(*args, **kwargs)
        except TypeError:   # a wrong call: Python's own error, as the plain function raises
            return init(*args, **kwargs)
        call.apply_defaults()
        done = _dispatch_to_mode(dispatched, call.arguments["tensor"], dict(call.arguments))
        if done is not NotImplemented:
            return done
        return init(*args, **kwargs)

    return dispatched


@_overridable
def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fills ``tensor`` with samples of U(a, b)."""
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


@_overridable
def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fills ``tensor`` with samples of N(mean, std**2)."""
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


# the bodies without a mode's dispatch, for the initialisers built on them; PyTorch's private
# names for them are imported by libraries (mup.init: _no_grad_uniform_, _no_grad_normal_,
# _no_grad_fill_)
_uniform = _no_grad_uniform_ = uniform_.__wrapped__
_normal = _no_grad_normal_ = normal_.__wrapped__


def _trunc_body(input, key, mean, std, a, b):
    dt = input.dtype
    wt = dt if dt in (jnp.float32, jnp.float64) else jnp.float32
    mean, std, a, b = (jnp.asarray(v, wt) for v in (mean, std, a, b))
    z = jax.random.truncated_normal(wrap(key), (a - mean) / std, (b - mean) / std,
                                    input.shape, wt)
    return jax.lax.stop_gradient(jnp.clip(mean + std * z, a, b).astype(dt))


_TRUNC_NORMAL = OpDef("trunc_normal_", _trunc_body, tensors=("input", "mean", "std", "a", "b"),
                      saves=False)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fills ``tensor`` with samples of N(mean, std**2) truncated to [a, b]."""
    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                      "The distribution of values may be incorrect.", stacklevel=2)
    with no_grad():
        return inplace_call(tensor, _TRUNC_NORMAL,
                            (next_key(generator), float(mean), float(std), float(a), float(b)),
                            {})


_no_grad_trunc_normal_ = trunc_normal_


@_overridable
def constant_(tensor, val):
    """Fills ``tensor`` with ``val``."""
    with no_grad():
        return tensor.fill_(val)


_no_grad_fill_ = constant_.__wrapped__


def ones_(tensor):
    """Fills ``tensor`` with 1."""
    with no_grad():
        return tensor.fill_(1.0)


def zeros_(tensor):
    """Fills ``tensor`` with 0."""
    with no_grad():
        return tensor.zero_()


_no_grad_zero_ = zeros_


def eye_(tensor):
    """Fills the 2-D ``tensor`` with the identity matrix."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _write(tensor, creation_math.eye(*tensor.shape, dtype=tensor.dtype,
                                            device=tensor.device))


def dirac_(tensor, groups=1):
    """Fills the {3, 4, 5}-D ``tensor`` with the Dirac delta (identity convolution)."""
    dims = tensor.dim()
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tuple(tensor.shape)
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per = sizes[0] // groups
    w = np.zeros(sizes, np.float64)
    centre = tuple(s // 2 for s in sizes[2:])
    for g in range(groups):
        for d in range(min(per, sizes[1])):
            w[(g * per + d, d) + centre] = 1
    return _write(tensor, creation.tensor(w, dtype=tensor.dtype, device=tensor.device))


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """Glorot uniform: U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return _uniform(tensor, -a, a, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """Glorot normal: N(0, std**2) with std = gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return _normal(tensor, 0.0, std, generator)


def _kaiming_std(tensor, a, mode, nonlinearity):
    return calculate_gain(nonlinearity, a) / math.sqrt(_calculate_correct_fan(tensor, mode))


@_overridable
def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He uniform: U(-bound, bound) with bound = gain * sqrt(3 / fan_mode)."""
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return tensor
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    return _uniform(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He normal: N(0, std**2) with std = gain / sqrt(fan_mode)."""
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    return _normal(tensor, 0, _kaiming_std(tensor, a, mode, nonlinearity), generator)


def orthogonal_(tensor, gain=1, generator=None):
    """Fills ``tensor`` (>= 2-D, trailing dims flattened) with a (semi-)orthogonal matrix."""
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    with no_grad():
        flat = creation.empty((rows, cols), dtype=tensor.dtype, device=tensor.device)
        flat.normal_(0, 1, generator=generator)
        if rows < cols:
            flat = flat.t()
        q, r = linalg.qr(flat)
        q = q * r.diagonal(0).sign()
        if rows < cols:
            q = q.t()
        return _write(tensor, (q * gain).reshape(tuple(tensor.shape)))


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """Fills the 2-D ``tensor`` with N(0, std**2) samples, ``ceil(sparsity * rows)`` of every
    column set to zero."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tuple(tensor.shape)
    num_zeros = math.ceil(sparsity * rows)
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        rank = random_ops.rand(rows, cols, generator=generator, device=tensor.device)
        rank = rank.argsort(dim=0).argsort(dim=0)
        return tensor.masked_fill_(rank < num_zeros, 0)


def _make_deprecate(meth):
    new_name = meth.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of "
                      f"`nn.init.{new_name}`.", FutureWarning, stacklevel=2)
        return meth(*args, **kwargs)

    deprecated_init.__doc__ = f"{old_name}(...): deprecated; use ``nn.init.{new_name}``."
    deprecated_init.__name__ = old_name
    return deprecated_init


uniform = _make_deprecate(uniform_)
normal = _make_deprecate(normal_)
constant = _make_deprecate(constant_)
eye = _make_deprecate(eye_)
dirac = _make_deprecate(dirac_)
xavier_uniform = _make_deprecate(xavier_uniform_)
xavier_normal = _make_deprecate(xavier_normal_)
kaiming_uniform = _make_deprecate(kaiming_uniform_)
kaiming_normal = _make_deprecate(kaiming_normal_)
orthogonal = _make_deprecate(orthogonal_)
sparse = _make_deprecate(sparse_)

# a name PyTorch has here and jtorch lacks raises NotImplementedError naming it
__getattr__ = torch_name_fallback("torch.nn.init")
