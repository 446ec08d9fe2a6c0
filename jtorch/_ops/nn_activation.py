"""Activation functions: ``F.<act>``, ``F.<act>_`` and ``inplace=`` forms, and the ``torch.*`` /
``Tensor.*`` forms where PyTorch has them (``torch.selu``, ``torch.celu``, ``torch.threshold``,
``torch.rrelu``, ``torch.prelu``, ``torch.hardshrink``...).

Each activation is one op; its backward is the vjp of the body. At the kinks the body selects
branches with ``jnp.where`` on PyTorch's own comparisons, so the derivative there is PyTorch's
(relu6/hardtanh/hardsigmoid: 0 at the bounds; hardswish: 0 at -3, 1 at 3; leaky_relu/prelu/
rrelu/elu: the negative branch at 0; hard/softshrink: 0 at +-lambda; threshold: 0 at the
threshold). Branches that would overflow where they are not selected are computed on clamped
inputs, so no NaN leaks into gradients.

In-place forms (``F.elu_``, ``F.elu(x, inplace=True)``) write through views like every in-place
op, with PyTorch's in-place grad_fn names (``EluBackward1``...).
"""

from __future__ import annotations

import inspect
import math
import warnings

import jax
import jax.numpy as jnp
import numpy as np

from .._core import dtypes, torch_function
from .._core.dispatch import dispatch
from .._core.generator import next_key, uniform01, wrap
from .._core.kernel import OpDef
from .._core.views import inplace_call
from ._elementwise import category, is_bool, not_implemented_for
from ._registry import export, op
from ._util import type_name, wrap_dim
from .compare import relu as _relu
from .pointwise_math import sigmoid as _sigmoid, tanh as _tanh

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _need_float(x, kernel):
    if category(x) < dtypes.FLOAT:
        raise not_implemented_for(kernel, x)


def _inplace(public, body, grad1, flags):
    """The OpDef the in-place forms use (PyTorch names some of their nodes ``...Backward1``)."""
    opdef = public._opdef
    if grad1 is None:
        return opdef
    return OpDef(opdef.name, body, tensors=tuple(opdef.tensors), promote=opdef.promote,
                 saves=opdef.saves, grad_name=grad1, **flags)


def activation(name, *, torch=False, **flags):
    """Register ``body`` as the op ``F.<name>`` (also ``torch.<name>`` with ``torch``)."""
    return op(name, namespace="nn.functional," if torch else "nn.functional", method=False,
              out=False, **flags)


def functional_forms(name, public, *, grad1=None, torch=False, sig_from=None, publish=True):
    """``(F.<name>(input, *args, inplace=False), F.<name>_)`` of op ``public``, exported unless
    ``publish`` is false (also ``torch.<name>_`` with ``torch``); ``grad1`` is the in-place
    node's grad_fn name where PyTorch gives it another (``...Backward1``)."""
    ipdef = _inplace(public, public._opdef.fn, grad1, {})
    params = list(inspect.signature(sig_from or ipdef.fn).parameters.values())[1:]
    n = sum(1 for p in params if p.kind is p.POSITIONAL_OR_KEYWORD)

    def functional(input, *args, inplace=False, **kwargs):
        if len(args) > n:
            inplace, args = args[n], args[:n]
        if inplace:
            return inplace_call(input, ipdef, args, kwargs)
        return public(input, *args, **kwargs)

    def functional_(input, *args, **kwargs):
        return inplace_call(input, ipdef, args, kwargs)

    functional.__name__ = functional.__qualname__ = name
    # PyTorch's signature, so that __torch_function__ gets the call as PyTorch hands it on
    sig = list(inspect.signature(public).parameters.values())
    functional.__signature__ = inspect.Signature([
        *sig[:n + 1], inspect.Parameter("inplace", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                        default=False), *sig[n + 1:]])
    functional = torch_function.overridable(f"torch.nn.functional.{name}",
                                            keywords=True)(functional)
    functional.__doc__ = public.__doc__
    functional._opdef = public._opdef
    functional_.__name__ = functional_.__qualname__ = name + "_"
    # PyTorch's C++ binding (torch.relu_, torch._C._nn.elu_) hands a call with a subclass or an
    # FX proxy to __torch_function__ as made
    functional_ = torch_function.overridable(f"torch.nn.functional.{name}_", None)(functional_)
    if publish:   # named where it is public, as PyTorch's (pickle finds it there)
        functional.__module__, functional.__qualname__ = "jtorch.nn.functional", name
        export(name, namespace="nn.functional")(functional)
        export(name + "_", namespace="nn.functional," if torch else "nn.functional")(functional_)
    return functional, functional_


# ------------------------------------------------------------------ relu family
relu_functional, relu_ = functional_forms("relu", _relu, torch=True)
export("tanh", namespace="nn.functional")(_tanh)
export("sigmoid", namespace="nn.functional")(_sigmoid)


@op("threshold", namespace="", method=False, out=False)
def threshold(input, threshold, value):
    """``value`` where ``input <= threshold``, else ``input``."""
    if is_bool(input):
        raise RuntimeError("Boolean inputs not supported for threshold")
    return jnp.where(input <= threshold, jnp.asarray(value).astype(input.dtype), input)


threshold_functional, threshold_ = functional_forms("threshold", threshold,
                                                   grad1="ThresholdBackward1", torch=True)


def _hardtanh_body(input, min_val=-1.0, max_val=1.0):
    if is_bool(input):
        raise RuntimeError("Bool inputs not supported for hardtanh")
    dt = input.dtype
    lo, hi = jnp.asarray(min_val).astype(dt), jnp.asarray(max_val).astype(dt)
    clipped = jax.lax.stop_gradient(jnp.clip(input, lo, hi))
    return jnp.where((input > lo) & (input < hi), input, clipped)


_hardtanh_op = op("hardtanh", namespace=None, method=False, out=False)(_hardtanh_body)
_hardtanh_f, _ = functional_forms("hardtanh", _hardtanh_op, publish=False)


@export("hardtanh", namespace="nn.functional")
def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """``clamp(input, min_val, max_val)``; the gradient is 0 at and beyond the bounds."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _hardtanh_f(input, min_val, max_val, inplace=inplace)


@export("hardtanh_", namespace="nn.functional")
def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return hardtanh(input, min_val, max_val, inplace=True)


@export("relu6", namespace="nn.functional")
def relu6(input, inplace=False):
    """``min(max(0, x), 6)`` (PyTorch computes it as ``hardtanh(x, 0, 6)``)."""
    return _hardtanh_f(input, 0.0, 6.0, inplace=inplace)


@op("leaky_relu", namespace=None, method=False, out=False, opmath=True)
def leaky_relu(input, negative_slope=0.01):
    """``x`` for ``x > 0`` else ``negative_slope * x`` (slope at 0 is ``negative_slope``)."""
    _need_float(input, "leaky_relu_cpu")
    return jnp.where(input > 0, input, input * negative_slope)


leaky_relu_functional, leaky_relu_ = functional_forms("leaky_relu", leaky_relu,
                                                     grad1="LeakyReluBackward1")


def _elu(x, alpha, scale, input_scale):
    neg = alpha * jnp.expm1(jnp.where(x > 0, 0, x) * input_scale)
    return jnp.where(x > 0, x * scale, neg * scale)


@op("elu", namespace=None, method=False, out=False, opmath=True)
def elu(input, alpha=1.0):
    """``x`` for ``x > 0`` else ``alpha * (exp(x) - 1)``."""
    _need_float(input, "elu_cpu")
    return _elu(input, alpha, 1.0, 1.0)


elu_functional, elu_ = functional_forms("elu", elu, grad1="EluBackward1")


@op("selu", namespace="", method=False, out=False, grad_name="EluBackward0", opmath=True)
def selu(input):
    """``scale * elu(x, alpha)`` with SELU's constants."""
    _need_float(input, "elu_cpu")
    return _elu(input, _SELU_ALPHA, _SELU_SCALE, 1.0)


selu_functional, selu_ = functional_forms("selu", selu, grad1="EluBackward1", torch=True)


@op("celu", namespace="", method=False, out=False, opmath=True)
def celu(input, alpha=1.0):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``."""
    _need_float(input, "elu_cpu")
    return _elu(input, alpha, 1.0, 1.0 / alpha)


celu_functional, celu_ = functional_forms("celu", celu, grad1="CeluBackward1", torch=True)


@op("gelu", namespace="nn.functional", method=False, out=False, opmath=True)
def gelu(input, approximate="none"):
    """``x * Phi(x)``; ``approximate="tanh"`` uses the tanh approximation."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    _need_float(input, "GeluKernelImpl")
    x = input
    if approximate == "tanh":
        inner = math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)
        return 0.5 * x * (1 + jnp.tanh(inner))
    return 0.5 * x * (1 + jax.lax.erf(x * (1 / math.sqrt(2))))


@op("silu", namespace=None, method=False, out=False, opmath=True)
def silu(input):
    """``x * sigmoid(x)``."""
    _need_float(input, "silu_cpu")
    return input * jax.nn.sigmoid(input)


silu_functional, silu_ = functional_forms("silu", silu)


@op("mish", namespace=None, method=False, out=False, opmath=True)
def mish(input):
    """``x * tanh(softplus(x))``."""
    _need_float(input, "mish_cpu")
    return input * jnp.tanh(jnp.logaddexp(input, 0))


mish_functional, mish_ = functional_forms("mish", mish)


@op("hardsigmoid", namespace=None, method=False, out=False, opmath=True)
def hardsigmoid(input):
    """``relu6(x + 3) / 6``; the gradient is 0 at -3 and 3."""
    _need_float(input, "hardsigmoid_cpu")
    mid = (input > -3) & (input < 3)
    const = jax.lax.stop_gradient(jnp.where(input <= -3, 0, 1).astype(input.dtype))
    # PyTorch's backward multiplies by the float32 constant 1/6 (also for double inputs)
    c = float(np.float32(1 / 6))
    lin = input * c + jax.lax.stop_gradient(input / 6 + 0.5 - input * c)
    return jnp.where(mid, lin, const)


hardsigmoid_functional, hardsigmoid_ = functional_forms("hardsigmoid", hardsigmoid)


@op("hardswish", namespace=None, method=False, out=False, opmath=True)
def hardswish(input):
    """``x * relu6(x + 3) / 6``; gradient 0 at -3 and 1 at 3 (PyTorch's)."""
    _need_float(input, "hardswish_cpu")
    return jnp.where(input <= -3, jnp.zeros_like(input),
                     jnp.where(input < 3, input * (input + 3) / 6, input))


hardswish_functional, hardswish_ = functional_forms("hardswish", hardswish)


@op("logsigmoid", namespace="nn.functional", method=False, out=False,
    grad_name="LogSigmoidBackward0", opmath=True)
def logsigmoid(input):
    """``log(sigmoid(x))``, computed stably."""
    _need_float(input, "log_sigmoid_cpu")
    return -jnp.logaddexp(-input, 0)


@op("softplus", namespace="nn.functional", method=False, out=False, opmath=True)
def softplus(input, beta=1.0, threshold=20.0):
    """``log(1 + exp(beta * x)) / beta``; ``x`` where ``beta * x > threshold``."""
    _need_float(input, "softplus_cpu")
    z = input * beta
    return jnp.where(z > threshold, input, jnp.logaddexp(z, 0) / beta)


@op("hardshrink", namespace="nn.functional,", inplace=False)
def hardshrink(input, lambd=0.5):
    """0 for ``-lambd <= x <= lambd``, else ``x``."""
    _need_float(input, "hardshrink_cpu")
    return jnp.where((input >= -lambd) & (input <= lambd), jnp.zeros_like(input), input)


@op("softshrink", namespace="nn.functional", method=False, out=False)
def softshrink(input, lambd=0.5):
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, else 0."""
    _need_float(input, "softshrink_check")
    top = float(np.finfo(input.dtype).max) if category(input) >= dtypes.FLOAT else 0.0
    if not 0 <= lambd <= top:
        raise RuntimeError(f"lambda must be in range [0, {top:g}] for input dtype "
                           f"{type_name(input)}, but found {lambd:g}")
    zero = jnp.zeros_like(input)
    return jnp.where(input > lambd, input - lambd,
                     jnp.where(input < -lambd, input + lambd, zero))


@op("tanhshrink", namespace="nn.functional", method=False, out=False, promote="float",
    grad_name="SubBackward0")
def tanhshrink(input):
    """``x - tanh(x)``."""
    return input - jnp.tanh(input)


@op("softsign", namespace="nn.functional", method=False, out=False, promote="float",
    grad_name="DivBackward0")
def softsign(input):
    """``x / (1 + |x|)``."""
    return input / (jnp.abs(input) + 1)


@op("glu", namespace="nn.functional", method=False, out=False, opmath=True)
def glu(input, dim=-1):
    """``a * sigmoid(b)`` with ``a, b`` the halves of ``input`` along ``dim``."""
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = wrap_dim(dim, input.ndim)
    _need_float(input, "glu_cpu")
    if input.shape[d] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size "
                           f"{input.shape[d]}")
    a, b = jnp.split(input, 2, axis=d)
    return a * jax.nn.sigmoid(b)


@op("prelu", namespace="nn.functional,", tensors=("input", "weight"),
    grad_name="PreluKernelBackward0")
def prelu(input, weight):
    """``x`` for ``x > 0`` else ``weight * x``; ``weight`` has 1 or ``C`` (dim 1) entries."""
    if input.ndim == 0:
        raise RuntimeError("Not allow zero-dim input tensor.")
    if weight.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.ndim}")
    if input.dtype != weight.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {type_name(input)} and "
                           f"{type_name(weight)}")
    channels = input.shape[1] if input.ndim >= 2 else 1
    if weight.size != 1 and weight.size != channels:
        raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found "
                           f"parameter numbers = {weight.size} and channel size = {channels}.")
    if weight.size == 1:
        w = weight.reshape(())
    else:
        w = weight.reshape((channels,) + (1,) * (input.ndim - 2))
    return jnp.where(input > 0, input, w * input)


# ------------------------------------------------------------------ rrelu
def _rrelu_body(input, key, lower, upper, training):
    _need_float(input, "leaky_relu_cpu")
    if training:
        u = uniform01(wrap(key), input.shape, input.dtype)
        slope = jax.lax.stop_gradient(lower + (upper - lower) * u)
    else:
        slope = (lower + upper) / 2
    return jnp.where(input > 0, input, input * slope)


_RRELU = OpDef("rrelu_with_noise", _rrelu_body, saves=True)
_RRELU_ = OpDef("rrelu_with_noise", _rrelu_body, saves=True,
                grad_name="RreluWithNoiseBackward1")


def _rrelu(input, lower, upper, training, inplace, generator):
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    args = (next_key(generator) if training else None, float(lower), float(upper),
            bool(training))
    if inplace:
        return inplace_call(input, _RRELU_, args, {})
    return dispatch(_RRELU, (input, *args), {})


@export("rrelu", namespace="nn.functional")
def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Randomized leaky ReLU: in training the negative slope of every element is drawn from
    U(lower, upper) (one key per call); otherwise it is ``(lower + upper) / 2``."""
    return _rrelu(input, lower, upper, training, inplace, None)


@export("rrelu_", namespace="nn.functional")
def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    return _rrelu(input, lower, upper, training, True, None)


@export("rrelu")
def _torch_rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    return _rrelu(input, lower, upper, training, False, generator)


@export("rrelu_")
def _torch_rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    return _rrelu(input, lower, upper, training, True, generator)


# ------------------------------------------------------------------ gumbel_softmax
def _gumbel_body(logits, key, tau, hard, dim):
    d = wrap_dim(dim, logits.ndim)
    dt = logits.dtype
    e = jax.random.exponential(wrap(key), logits.shape, dt)
    y = jax.nn.softmax((logits - jnp.log(e)) / tau, axis=d)
    if not hard:
        return y
    idx = jnp.argmax(y, axis=d, keepdims=True)
    onehot = (jnp.arange(y.shape[d]).reshape((-1,) + (1,) * (y.ndim - d - 1)) == idx)
    return onehot.astype(dt) - jax.lax.stop_gradient(y) + y


_GUMBEL = OpDef("gumbel_softmax", _gumbel_body, tensors=("logits",), grad_name=lambda logits,
                key, tau, hard, dim: "AddBackward0" if hard else "SoftmaxBackward0")


@export("gumbel_softmax", namespace="nn.functional")
def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """Samples of the Gumbel-softmax distribution (``hard``: one-hot, straight-through
    gradient). ``eps`` is unused, as in PyTorch."""
    if eps != 1e-10:

        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)

    return dispatch(_GUMBEL, (logits, next_key(), float(tau), bool(hard), dim), {})
