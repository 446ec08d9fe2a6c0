"""Reductions: sum/mean/prod, std/var, min/max and their index forms, all/any, logsumexp and
the softmax family.

Gradient conventions that differ from JAX's own live in two helpers: :func:`even_ties` (PyTorch
spreads the gradient of ``max()``/``min()``/``median()`` evenly over tied elements, NaNs tying
with NaN) and :func:`safe_sqrt` (PyTorch's ``std``/``norm`` give a zero gradient where the result
is zero, not NaN).
"""

from __future__ import annotations

import builtins
import functools
import math
import warnings

import jax
import jax.numpy as jnp
from jax import lax

from .._core import dtypes
from .._core.kernel import HALF, rounded_to
from .._core.tensor_base import TensorBase
from ._registry import export, op
from ._util import check_broadcast, type_name, wrap_dim
from .pointwise import true_div


# ---------------------------------------------------------------------------- shared helpers
def inexact(x):
    return jnp.issubdtype(x.dtype, jnp.inexact)


def reduce_dims(dim, ndim, *, empty_all=True):
    """Wrapped reduction axes for ``dim`` (None, int or tuple). None, and an empty tuple when
    ``empty_all``, mean every dim; a 0-d input has no axes to reduce."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, int):
        dim = (dim,)
    elif not dim:
        return tuple(range(ndim)) if empty_all else ()
    out = []
    for d in dim:
        w = wrap_dim(d, ndim)
        if w in out:
            raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
        out.append(w)
    return tuple(out) if ndim else ()


def numel_of(shape, axes):
    n = 1
    for a in axes:
        n *= shape[a]
    return n


def cast(x, dtype):
    return x if dtype is None else x.astype(dtype.np)


def float_of(x):
    """Integers and bools become the default float dtype (PyTorch's int -> float ops)."""
    return x if inexact(x) else x.astype(dtypes.get_default_dtype().np)


def reduced_shape(shape, axes, keepdim):
    if keepdim:
        return tuple(1 if i in axes else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in axes)


def even_ties(x, v, axes, keepdim):
    """``v`` (a max/min/median of ``x`` over ``axes``) whose gradient is spread evenly over the
    elements equal to it (NaN counts as equal to NaN): PyTorch's evenly_distribute_backward.
    JAX's own max rule splits ties too but gives NaN gradients when the result is NaN."""
    if not inexact(x):
        return v
    return _even(x, lax.stop_gradient(v), axes, keepdim, True)


@functools.partial(jax.custom_jvp, nondiff_argnums=(2, 3, 4))
def _even(x, v, axes, keepdim, nan_ties):
    return v


@_even.defjvp
def _even_jvp(axes, keepdim, nan_ties, primals, tangents):
    """The tangent of ``v``: ``x``'s tangents averaged over the elements equal to ``v``.
    ``nan_ties``: NaN equals NaN, and the other elements get exactly 0 (PyTorch's
    evenly_distribute_backward, a masked fill). Else PyTorch's amax backward, ``grad / count *
    mask``: a NaN ``v`` equals no element, and every element of its slice gets NaN (0 / 0)."""
    x, v = primals
    vk = v if keepdim else jnp.expand_dims(v, axes)
    if nan_ties:
        mask = jnp.where(jnp.isnan(vk), jnp.isnan(x), x == vk)
        count = jnp.sum(mask, axis=axes, keepdims=keepdim)
        return v, jnp.sum(jnp.where(mask, tangents[0], 0), axis=axes, keepdims=keepdim) / count
    mask = x == vk
    count = jnp.sum(mask, axis=axes, keepdims=True)
    # a product, not a select, so that NaN reaches the masked-out elements; NaN in the weights
    # of a slice with no match, as XLA may turn a product with a converted mask into a select
    weight = jnp.where(count == 0, jnp.nan, mask.astype(tangents[0].dtype))
    scaled = tangents[0] * weight
    return v, jnp.sum(scaled, axis=axes, keepdims=keepdim) / (
        count if keepdim else jnp.squeeze(count, axes))


def extreme(x, big, axis=None, keepdims=False, nan_ties=False):
    """``jnp.max`` (``big``) or ``jnp.min`` of ``x`` over ``axis``, NaN where the reduced
    elements hold a NaN, as PyTorch's max, min, amax, amin and inf-norms. XLA:CPU's YNNPACK
    reductions (LIBRARY_FUSION_TYPE_REDUCE, _core/xla_options.py) skip NaN from 4096 elements
    on: ``jnp.max`` of ``ones(5000)`` with one NaN is 1.0. Ties share the gradient evenly; a
    NaN result's gradient follows ``_even``'s ``nan_ties`` (amax's NaN everywhere, or the
    inf-norms' share for the NaN elements)."""
    v = jnp.max(x, axis=axis, keepdims=keepdims) if big else jnp.min(x, axis=axis,
                                                                      keepdims=keepdims)
    if not jnp.issubdtype(x.dtype, jnp.floating):
        return v
    axes = tuple(range(x.ndim)) if axis is None else axis
    v = jnp.where(jnp.isnan(x).any(axis=axes, keepdims=keepdims), jnp.nan, lax.stop_gradient(v))
    return _even(x, v, axes, keepdims, nan_ties)


def safe_sqrt(v):
    """sqrt whose gradient is 0 (not inf * 0 = NaN) where ``v`` is 0, as PyTorch's std/norm."""
    zero = v == 0
    return jnp.where(zero, 0, jnp.sqrt(jnp.where(zero, 1, v))).astype(v.dtype)


def _acc_dtype(x, dtype):
    if dtype is not None:
        return dtype.np
    if not inexact(x):
        return jnp.int64
    return x.dtype


# ---------------------------------------------------------------------------- sums and means
@op("sum", saves=False, opmath=True,
    grad_name=lambda input, dim=None, *a, **k: "SumBackward0" if dim is None else "SumBackward1")
def sum(input, dim=None, keepdim=False, *, dtype=None):
    x = cast(input, dtype)
    return jnp.sum(x, axis=reduce_dims(dim, x.ndim), keepdims=keepdim, dtype=_acc_dtype(x, dtype))


@op("nansum", opmath=True)
def nansum(input, dim=None, keepdim=False, *, dtype=None):
    x = cast(input, dtype)
    if jnp.issubdtype(x.dtype, jnp.complexfloating):
        raise RuntimeError("nansum does not support complex inputs")
    if inexact(x):
        x = jnp.where(jnp.isnan(x), 0, x)
    return jnp.sum(x, axis=reduce_dims(dim, x.ndim), keepdims=keepdim, dtype=_acc_dtype(x, dtype))


def _check_mean_dtype(x, dtype):
    if dtype is not None and not jnp.issubdtype(dtype.np, jnp.inexact):
        raise RuntimeError("mean(): could not infer output dtype. Optional dtype must be either "
                           f"a floating point or complex dtype. Got: {type_name(dtype)}")
    if dtype is None and not inexact(x):
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a "
                           f"floating point or complex dtype. Got: {type_name(x)}")


@op("mean", saves=False, opmath=True,
    grad_name=lambda input, dim=None, *a, **k: "MeanBackward0" if dim is None else
    "MeanBackward1")
def mean(input, dim=None, keepdim=False, *, dtype=None):
    _check_mean_dtype(input, dtype)
    x = cast(input, dtype)
    return divided_mean(x, reduce_dims(dim, x.ndim), keepdim)


def divided_mean(x, axes, keepdims=False):
    """The mean of array ``x`` over ``axes``: the sum divided by the count as an IEEE division,
    as PyTorch's ``mean`` (and a loss's ``reduction="mean"``) computes it. jnp.mean divides by
    a constant count, which XLA makes a product with its reciprocal: one step off for about a
    fifth of float32 means (see ``true_div``)."""
    total = jnp.sum(x, axis=axes, keepdims=keepdims)
    count = math.prod(x.shape[a] for a in axes)
    # a 0-d total is divided as it is (true_div's equal-shape case): keep the count from
    # being a constant there too
    return true_div(total, lax.optimization_barrier(jnp.asarray(count, total.dtype)))


@op("nanmean", grad_name="DivBackward0", opmath=True)
def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    if not inexact(input):
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype "
                           f"but got {type_name(input)}")
    x = cast(input, dtype)
    axes = reduce_dims(dim, x.ndim)
    keep = ~jnp.isnan(x)
    total = jnp.sum(jnp.where(keep, x, 0), axis=axes, keepdims=keepdim)
    return (total / jnp.sum(keep, axis=axes, keepdims=keepdim)).astype(x.dtype)


@op("prod")
def prod(input, dim=None, keepdim=False, *, dtype=None):
    if dim is not None and not isinstance(dim, int):
        raise TypeError(f"prod(): argument 'dim' must be int, not {type(dim).__name__}")
    x = cast(input, dtype)
    return jnp.prod(x, axis=reduce_dims(dim, x.ndim), keepdims=keepdim,
                    dtype=_acc_dtype(x, dtype))


# ---------------------------------------------------------------------------- std and var
def _var_mean(name, x, dim, unbiased, keepdim, correction):
    """(var, mean) with PyTorch's argument forms: ``std(x, unbiased)`` and ``std(x, dim,
    unbiased, keepdim)`` or ``correction=``; degrees of freedom below zero count as zero."""
    if isinstance(dim, bool):  # std(input, unbiased)
        dim, unbiased = None, dim
    if not inexact(x):
        raise RuntimeError("std and var only support floating point and complex dtypes")
    if correction is None:
        correction = 0 if unbiased is False else 1
    axes = reduce_dims(dim, x.ndim)
    n = numel_of(x.shape, axes)
    m = jnp.mean(x, axis=axes, keepdims=True)
    dev = x - m
    sq = dev.real * dev.real + dev.imag * dev.imag if jnp.iscomplexobj(x) else dev * dev
    dof = builtins.max(0, n - correction)
    if dof <= 0:
        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the reduction factor (input numel divided by output numel).",
                      UserWarning, stacklevel=2)
    var = (jnp.sum(sq, axis=axes, keepdims=keepdim) / dof).astype(sq.dtype)
    return var, (m if keepdim else jnp.squeeze(m, axes))


@op("var", opmath=True)
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _var_mean("var", input, dim, unbiased, keepdim, correction)[0]


@op("std", opmath=True)
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return safe_sqrt(_var_mean("std", input, dim, unbiased, keepdim, correction)[0])


@op("var_mean", method=False, opmath=True)
def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return _var_mean("var_mean", input, dim, unbiased, keepdim, correction)


@op("std_mean", method=False, opmath=True)
def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    v, m = _var_mean("std_mean", input, dim, unbiased, keepdim, correction)
    return safe_sqrt(v), m


# ---------------------------------------------------------------------------- min and max
def check_nonempty_dim(name, x, d, sep="():"):
    if x.ndim and x.shape[d] == 0:
        raise IndexError(f"{name}{sep} Expected reduction dim {d} to have non-zero size.")


def _no_dim_empty(name, x):
    if x.size == 0:
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() "
                           "== 0. Specify the reduction dim with the 'dim' argument.")


def select_along(x, idx, d, keepdim):
    """(x's values at ``idx`` along dim ``d``, idx) as int64; the gradient goes to the index."""
    idx = lax.stop_gradient(idx).astype(jnp.int64)
    if x.ndim == 0:
        return x, idx.reshape(())
    vals = jnp.take_along_axis(x, idx, axis=d)
    if not keepdim:
        vals, idx = jnp.squeeze(vals, d), jnp.squeeze(idx, d)
    return vals, idx


def _minmax(name, x, dim, keepdim, other):
    big = name == "max"
    if other is not None:
        check_broadcast(x.shape, other.shape)
        return jnp.maximum(x, other) if big else jnp.minimum(x, other)
    if jnp.iscomplexobj(x):
        raise RuntimeError(f"{name}(): does not support complex input")
    if dim is None:
        _no_dim_empty(name, x)
        v = extreme(x, big)
        return even_ties(x, v, tuple(range(x.ndim)), False)
    d = wrap_dim(dim, x.ndim)
    if x.ndim == 0:
        return select_along(x, jnp.zeros((), jnp.int64), 0, keepdim)
    check_nonempty_dim(name, x, d)
    if x.size == 0:
        shape = reduced_shape(x.shape, (d,), keepdim)
        return jnp.zeros(shape, x.dtype), jnp.zeros(shape, jnp.int64)
    idx = (jnp.argmax if big else jnp.argmin)(x, axis=d, keepdims=True)
    return select_along(x, idx, d, keepdim)


def _route_other(public):
    """``torch.max(a, b)`` is ``maximum``: a Tensor second positional argument becomes
    ``other=`` (a differentiable, promoted operand) instead of ``dim``."""

    def routed(input, *args, **kwargs):
        if args and isinstance(args[0], TensorBase):
            kwargs["other"] = args[0]
            args = args[1:]
        return public(input, *args, **kwargs)

    routed.__name__ = routed.__qualname__ = public.__name__
    routed.__doc__ = public.__doc__
    routed._opdef = public._opdef
    return export(public.__name__, method=True)(routed)


_MINMAX = {"tensors": ("input", "other"), "promote": "common", "returns": ("values", "indices")}


def _minmax_name(kind):
    cap = kind.capitalize()

    def name(input, dim=None, keepdim=False, *, other=None):
        if other is not None or (dim is None and keepdim is not False):
            return ("Maximum" if kind == "max" else "Minimum") + "Backward0"
        return f"{cap}Backward1" if dim is None else f"{cap}Backward0"

    return name


@op("max", namespace=None, method=False, grad_name=_minmax_name("max"), **_MINMAX)
def max(input, dim=None, keepdim=False, *, other=None):
    return _minmax("max", input, dim, keepdim, other)


@op("min", namespace=None, method=False, grad_name=_minmax_name("min"), **_MINMAX)
def min(input, dim=None, keepdim=False, *, other=None):
    return _minmax("min", input, dim, keepdim, other)


max = _route_other(max)
min = _route_other(min)


def _amax(name, x, dim, keepdim):
    axes = reduce_dims(dim, x.ndim)
    if x.size == 0:
        if dim is None or dim == ():
            _no_dim_empty(name, x)
        for d in axes:
            check_nonempty_dim(name, x, d)
        return jnp.zeros(reduced_shape(x.shape, axes, keepdim), x.dtype)
    return extreme(x, name == "amax", axes, keepdim)


@op("amax")
def amax(input, dim=(), keepdim=False):
    return _amax("amax", input, dim, keepdim)


@op("amin")
def amin(input, dim=(), keepdim=False):
    return _amax("amin", input, dim, keepdim)


@op("aminmax", returns=("min", "max"))
def aminmax(input, *, dim=None, keepdim=False):
    axes = reduce_dims(dim, input.ndim)
    if input.size == 0:
        if dim is None:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                               "operation has no identity.")
        check_nonempty_dim("aminmax", input, axes[0] if axes else 0, sep=":")
        z = jnp.zeros(reduced_shape(input.shape, axes, keepdim), input.dtype)
        return z, z
    return extreme(input, False, axes, keepdim), extreme(input, True, axes, keepdim)


def _argext(name, x, dim, keepdim):
    if x.dtype == jnp.bool_:
        raise RuntimeError(f"{name}(): does not support bool input")
    f = jnp.argmax if name == "argmax" else jnp.argmin
    if dim is None:
        if x.size == 0:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for "
                             "input.numel() == 0.")
        r = f(x.reshape(-1)).astype(jnp.int64)
        return r.reshape((1,) * x.ndim) if keepdim else r
    d = wrap_dim(dim, x.ndim)
    if x.ndim == 0:
        return jnp.zeros((), jnp.int64)
    check_nonempty_dim(name, x, d)
    if x.size == 0:
        return jnp.zeros(reduced_shape(x.shape, (d,), keepdim), jnp.int64)
    return f(x, axis=d, keepdims=keepdim).astype(jnp.int64)


@op("argmax", differentiable=False)
def argmax(input, dim=None, keepdim=False):
    return _argext("argmax", input, dim, keepdim)


@op("argmin", differentiable=False)
def argmin(input, dim=None, keepdim=False):
    return _argext("argmin", input, dim, keepdim)


# ---------------------------------------------------------------------------- logical, counts
def _logical(f, x, dim, keepdim):
    r = f(x, axis=reduce_dims(dim, x.ndim, empty_all=False) if dim is not None else None,
          keepdims=keepdim)
    return r.astype(jnp.uint8) if x.dtype == jnp.uint8 else r


@op("all", differentiable=False)
def all(input, dim=None, keepdim=False):
    return _logical(jnp.all, input, dim, keepdim)


@op("any", differentiable=False)
def any(input, dim=None, keepdim=False):
    return _logical(jnp.any, input, dim, keepdim)


@op("count_nonzero", differentiable=False, out=False)
def count_nonzero(input, dim=None):
    return jnp.sum(input != 0, axis=reduce_dims(dim, input.ndim), dtype=jnp.int64)


# ---------------------------------------------------------------------------- logsumexp, softmax
def _shifted(x, axes):
    """x's max over ``axes`` (kept), no gradient, infinities replaced by 0 (PyTorch's shift)."""
    if x.size == 0:
        return jnp.zeros(reduced_shape(x.shape, axes, True), x.dtype)
    m = lax.stop_gradient(jnp.max(x, axis=axes, keepdims=True))
    return jnp.where(jnp.isinf(m), 0, m)


@op("logsumexp", namespace=",special")
def logsumexp(input, dim, keepdim=False):
    x = float_of(input)
    axes = reduce_dims(dim, x.ndim)
    m = _shifted(x, axes)
    s = jnp.log(jnp.sum(jnp.exp(x - m), axis=axes, keepdims=True)) + m
    return s if keepdim else jnp.squeeze(s, axes)


def _softmax_dim(name, x, dim, stacklevel, dtype):
    if isinstance(stacklevel, dtypes.dtype):  # torch.softmax(x, dim, dtype) passed positionally
        dtype = stacklevel
    if dim is None:
        warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the "
                      "call to include dim=X as an argument.", UserWarning, stacklevel=3)
        dim = 0 if x.ndim in (0, 1, 3) else 1
    if dtype is None and not inexact(x):
        impl = "log_softmax" if name == "log_softmax" else "softmax"
        last = "lastdim_" if wrap_dim(dim, x.ndim) == builtins.max(x.ndim - 1, 0) else ""
        raise NotImplementedError(f'"{impl}_{last}kernel_impl" not implemented for '
                                  f"'{type_name(x)}'")
    return cast(x, dtype), wrap_dim(dim, x.ndim)


def _softmax(x, d, log):
    if x.ndim == 0:
        return jnp.zeros_like(x) if log else jnp.ones_like(x)
    z = x - _shifted(x, (d,))
    if log:
        return z - jnp.log(jnp.sum(jnp.exp(z), axis=d, keepdims=True))
    e = jnp.exp(z)
    return e / jnp.sum(e, axis=d, keepdims=True)


def _half_softmax_values(x, d, log):
    """PyTorch's float16/bfloat16 (log_)softmax: computed in float32 and rounded once, except
    that along the last dim its log_softmax kernel rounds the sum of exponentials, then its
    log, to the half type before subtracting."""
    z = x.astype(jnp.float32)
    z = z - _shifted(z, (d,))
    if not log:
        e = jnp.exp(z)
        return (e / jnp.sum(e, axis=d, keepdims=True)).astype(x.dtype)
    total = jnp.sum(jnp.exp(z), axis=d, keepdims=True)
    if d == x.ndim - 1:
        log_total = rounded_to(jnp.log(rounded_to(total, x.dtype)), x.dtype)
    else:
        log_total = jnp.log(total)
    return (z - log_total).astype(x.dtype)


@functools.partial(jax.custom_vjp, nondiff_argnums=(1, 2))
def _half_softmax(x, d, log):
    return _half_softmax_values(x, d, log)


def _half_softmax_fwd(x, d, log):
    y = _half_softmax_values(x, d, log)
    return y, y


def _half_softmax_bwd(d, log, y, g):
    """PyTorch's softmax and log_softmax backward kernels: from the rounded output, in float32,
    rounded once."""
    dtype = y.dtype
    y, g = rounded_to(y.astype(jnp.float32), dtype), g.astype(jnp.float32)
    if log:
        grad = g - jnp.exp(y) * jnp.sum(g, axis=d, keepdims=True)
    else:
        grad = y * (g - jnp.sum(g * y, axis=d, keepdims=True))
    return (grad.astype(dtype),)


_half_softmax.defvjp(_half_softmax_fwd, _half_softmax_bwd)


def softmax_values(x, d, log):
    """(log_)softmax of ``x`` along the (wrapped) dim ``d``, rounded as PyTorch's kernels
    round it (cross_entropy's log-probabilities too)."""
    if x.ndim and x.dtype in HALF:
        return _half_softmax(x, d, log)
    return _softmax(x, d, log)


@op("softmax", namespace=",nn.functional,special")
def softmax(input, dim=None, _stacklevel=3, dtype=None):
    x, d = _softmax_dim("softmax", input, dim, _stacklevel, dtype)
    return softmax_values(x, d, False)


@op("log_softmax", namespace=",nn.functional,special")
def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    x, d = _softmax_dim("log_softmax", input, dim, _stacklevel, dtype)
    return softmax_values(x, d, True)


@op("_softmax_backward_data", method=False, public=True, tensors=("grad_output", "output"))
def _softmax_backward_data(grad_output, output, dim, input_dtype):
    """softmax's input gradient from its output (``torch._softmax_backward_data``):
    ``output * (grad - sum(grad * output))`` along ``dim``. ``input_dtype`` is accepted as
    PyTorch's CPU kernel does: the result has the gradient's dtype."""
    if grad_output.dtype != output.dtype:
        raise RuntimeError(f"expected scalar type {type_name(grad_output)} but found "
                           f"{type_name(output)}")
    d = wrap_dim(dim, output.ndim)
    inner = jnp.sum(grad_output * output, axis=d, keepdims=True) if output.ndim else 0
    return output * (grad_output - inner)


@op("softmin", namespace="nn.functional", method=False, grad_name="SoftmaxBackward0")
def softmin(input, dim=None, _stacklevel=3, dtype=None):
    x, d = _softmax_dim("softmin", input, dim, _stacklevel, dtype)
    return _softmax(-x, d, False)
