"""Numerical methods PyTorch writes as compositions of other ops: finite differences (diff),
integration (trapezoid, trapz, cumulative_trapezoid), covariance and correlation (cov,
corrcoef), Vandermonde matrices (vander), the p-norm distance (dist) and renorm.

Each is one op whose body follows PyTorch's formula (aten/src/ATen/native), so values, dtypes
and gradients are PyTorch's; errors on shapes and dtypes are raised while tracing, errors on the
values of weights (``cov``) eagerly before dispatch (``check=``), and skipped under a trace.
"""

from __future__ import annotations

import warnings

import jax.numpy as jnp

from .._core import dtypes
from .._core.state import STATE, grad_mode
from ._elementwise import broadcast_check, common_dtype, default_float, is_bool, is_integral
from ._index_util import concrete
from ._registry import export, op
from ._util import type_name, wrap_dim
from .compare import _clamp
from .norms import _fmt, vector_norm_of
from .shape import flatten as _shape  # noqa: F401 - shape before shape_copy (a cycle)
from .shape_copy import _cat


def _slice(x, d, start, stop):
    """``x[start:stop]`` along axis ``d`` (negative: counted from the end)."""
    idx = [slice(None)] * x.ndim
    idx[d] = slice(start, stop)
    return x[tuple(idx)]


# ------------------------------------------------------------------------------ diff
def _diff_grad_name(input, n=1, *args, **kwargs):
    return "CopyBackwards" if n == 0 else "SubBackward0"


@op("diff", tensors=("input", "prepend", "append"), grad_name=_diff_grad_name, saves=False)
def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The n-th forward difference along ``dim`` (``prepend``/``append`` joined first); bools
    give their XOR, as in PyTorch."""
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = wrap_dim(dim, input.ndim)
    parts = [p for p in (prepend, input, append) if p is not None]
    for p in (prepend, append):
        if p is not None and p.ndim != input.ndim:
            raise RuntimeError("diff expects prepend or append to be the same dimension as "
                               "input")
        for i in range(input.ndim):
            if p is not None and i != d and p.shape[i] != input.shape[i]:
                raise RuntimeError("diff expects the shape of tensor to prepend or append to "
                                   "match that of input except along the differencing "
                                   f"dimension; input.size({i}) = {input.shape[i]}, but got "
                                   f"tensor.size({i}) = {p.shape[i]}")
    if len(parts) > 1:
        dt = common_dtype(*parts).np
        input = _cat([p.astype(dt) for p in parts], d)
    for _ in range(min(n, input.shape[d])):   # n >= the size leaves an empty dim
        hi, lo = _slice(input, d, 1, None), _slice(input, d, 0, -1)
        input = jnp.logical_xor(hi, lo) if is_bool(input) else hi - lo
    return input if n else jnp.array(input, copy=True)


# ------------------------------------------------------------------------------ trapezoid
def _float(x):
    """PyTorch's integrals divide by 2.: integer samples give the default float dtype."""
    return x.astype(default_float()) if is_integral(x) else x


def _spacing(y, x, dx, d, name):
    """The spacing of the samples along ``d``: ``dx`` (a number), or the differences of ``x``
    (a 1-D ``x`` lies along ``d``; any other broadcasts against ``y``)."""
    if x is None:
        return dx
    if x.ndim == 1:
        if x.shape[0] != y.shape[d]:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        x = x.reshape((-1,) + (1,) * (y.ndim - 1 - d))
    return _slice(x, d - y.ndim, 1, None) - _slice(x, d - y.ndim, 0, -1)


def _check_sample_dim(y, dim):
    if y.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return wrap_dim(dim, y.ndim)


def _trapezoid(y, x, dx, dim, name):
    d = _check_sample_dim(y, dim)
    if y.shape[d] == 0:
        return jnp.zeros(y.shape[:d] + y.shape[d + 1:], _float(y).dtype)
    if x is None:   # PyTorch: (sum(y) - (y[0] + y[-1]) * 0.5) * dx
        ends = jnp.take(y, 0, d) + jnp.take(y, -1, d)
        return (_float(jnp.sum(y, d)) - ends * 0.5) * dx
    return _float(jnp.sum(_times(_spacing(y, x, dx, d, name), _pairs(y, d)), d)) / 2.0


def _pairs(y, d):
    """``y[1:] + y[:-1]`` along ``d``, in y's dtype (PyTorch adds before it multiplies)."""
    return _slice(y, d, 1, None) + _slice(y, d, 0, -1)


def _times(step, pairs):
    """``step * pairs`` in PyTorch's result dtype (JAX would widen int64 * float32)."""
    dt = common_dtype(step, pairs).np
    return step.astype(dt) * pairs.astype(dt)


_TRAPZ = {"tensors": ("y", "x"), "method": False, "out": False, "saves": False}


@op("trapezoid", **_TRAPZ)
def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The trapezoidal rule along ``dim``, with sample points ``x`` or spacing ``dx``
    (default 1)."""
    return _trapezoid(y, x, 1 if dx is None else dx, dim, "trapezoid")


@op("trapz", **_TRAPZ)
def trapz(y, x=None, *, dx=None, dim=-1):
    """Alias of :func:`trapezoid` (``trapz(y, dx=...)`` and ``trapz(y, x, dim=...)``)."""
    return _trapezoid(y, x, 1 if dx is None else dx, dim, "trapezoid")


@op("cumulative_trapezoid", **_TRAPZ)
def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running trapezoidal rule along ``dim``: one value fewer than ``y`` has."""
    d = _check_sample_dim(y, dim)
    if y.shape[d] == 0:
        return _float(y)
    if x is None:
        return jnp.cumsum(_float(_pairs(y, d)) * 0.5 * (1 if dx is None else dx), d)
    step = _spacing(y, x, dx, d, "cumulative_trapezoid")
    return _float(jnp.cumsum(_times(step, _pairs(y, d)), d)) / 2.0


# ------------------------------------------------------------------------------ cov / corrcoef
def _check_weights(input, correction=1, fweights=None, aweights=None):
    """PyTorch's checks of the weights' values (eager; skipped under a trace), and its warning
    when weights leave no degrees of freedom."""
    n = input.shape[-1] if input.ndim else 1
    w = None
    for name, t in (("fweights", fweights), ("aweights", aweights)):
        v = concrete(t) if t is not None and t.numel() == n else None
        if v is not None and n and v.min() < 0:
            raise RuntimeError(f"cov(): {name} cannot be negative")
        w = v if w is None else w * v if v is not None else w
    if w is not None and (fweights is None or concrete(fweights) is not None) and (
            aweights is None or concrete(aweights) is not None):
        total = w.sum()
        if total == 0:
            raise RuntimeError("cov(): weights sum to zero, can't be normalized")
        factor = total - (correction * (w * concrete(aweights)).sum() / total
                          if aweights is not None else correction)
        if factor <= 0:
            _dof_warning()


def _dof_warning():
    warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than "
                  "the number of observations.", UserWarning, stacklevel=5)


def _check_weight_arg(w, name, kind, ok, n):
    if w.ndim > 1:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got "
                           f"{name} with {w.ndim} dimensions")
    if not ok:
        raise RuntimeError(f"cov(): expected {name} to have {kind} dtype but got {name} with "
                           f"{type_name(w)} dtype")
    if w.size != n:
        raise RuntimeError(f"cov(): expected {name} to have the same numel as there are "
                           f"observations in the input but got {w.size} != {n}")


def _cov(input, correction, fweights, aweights):
    if input.ndim > 2:
        raise RuntimeError("cov(): expected input to have two or fewer dimensions but got an "
                           f"input with {input.ndim} dimensions")
    if is_bool(input):
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = input.reshape(1, -1) if input.ndim < 2 else input
    n = x.shape[1]
    if fweights is not None:
        _check_weight_arg(fweights, "fweights", "integral", is_integral(fweights) and
                          not is_bool(fweights), n)
    if aweights is not None:
        _check_weight_arg(aweights, "aweights", "floating point",
                          jnp.issubdtype(aweights.dtype, jnp.floating), n)
    dt = common_dtype(*(a for a in (x, aweights) if a is not None))
    if dt.category < dtypes.FLOAT:
        dt = dtypes.get_default_dtype()
    x = x.astype(dt.np)
    w = None if fweights is None else fweights.astype(dt.np)
    if aweights is not None:
        a = aweights.astype(dt.np)
        w = a if w is None else w * a
    if w is None:
        total = n
        factor = n - correction
        if factor <= 0:
            _dof_warning()
            factor = 0
    else:
        total = jnp.sum(w)
        factor = total - (correction * jnp.sum(w * aweights.astype(dt.np)) / total
                          if aweights is not None and correction != 0 else correction)
        factor = jnp.where(factor <= 0, 0, factor)
    avg = jnp.sum(x if w is None else x * w, axis=1) / total
    x = x - avg[:, None]
    c = x @ jnp.conj(x if w is None else x * w).T
    return jnp.squeeze(c / factor)


@op("cov", tensors=("input", "fweights", "aweights"), out=False, check=_check_weights,
    grad_name="SqueezeBackward0")
def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the variables in the rows of ``input`` (observations in the
    columns), with frequency (``fweights``, integers) and importance (``aweights``) weights."""
    return _cov(input, correction, fweights, aweights)


@op("corrcoef", out=False, grad_name="ClampBackward1")
def corrcoef(input):
    """Pearson's correlation coefficients of the rows of ``input``, clipped to [-1, 1]."""
    if input.ndim > 2:
        raise RuntimeError("corrcoef(): expected input to have two or fewer dimensions but got "
                           f"an input with {input.ndim} dimensions")
    c = _cov(input, 1, None, None)
    if c.ndim == 0:
        return c / c
    d = jnp.diagonal(c)
    std = jnp.sqrt(d.real if jnp.iscomplexobj(d) else d)
    c = c / std[:, None] / std[None, :]
    if jnp.iscomplexobj(c):
        return jnp.clip(c.real, -1, 1) + 1j * jnp.clip(c.imag, -1, 1)
    return _clamp(c, -1, 1)


# ------------------------------------------------------------------------------ vander
@op("vander", namespace=None, method=False, out=False, tensors=("x",),
    grad_name="FlipBackward0")
def _vander(x, N=None, increasing=False):
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    if is_integral(x):
        x = x.astype(jnp.int64)
    cols = [jnp.ones_like(x)] + [x] * (n - 1) if n else []
    out = jnp.cumprod(jnp.stack(cols, 1), axis=1) if n else jnp.zeros((x.shape[0], 0), x.dtype)
    return out if increasing else jnp.flip(out, 1)


@export("vander", opdef_of=_vander)
def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of ``x``: columns ``x**(N-1) ... x**0`` (increasing powers with
    ``increasing``); integer and bool inputs give int64. With no columns the result is a new
    empty tensor, outside autograd, as PyTorch's."""
    with grad_mode(STATE.grad_enabled and N != 0):
        return _vander(x, N, increasing)


# ------------------------------------------------------------------------------ dist / renorm
@op("dist", tensors=("input", "other"), promote="common", out=False)
def dist(input, other, p=2):
    """The p-norm of ``input - other`` (broadcast)."""
    broadcast_check(input, other)
    if is_integral(input):
        raise RuntimeError("norm(): input dtype should be either floating point or complex. "
                           f"Got {type_name(input)} instead.")
    return vector_norm_of(input - other, p, None, False, None)


@op("renorm", inplace=True)
def renorm(input, p, dim, maxnorm):
    """Each sub-tensor along ``dim`` (``input.select(dim, i)``) whose p-norm exceeds
    ``maxnorm`` is scaled to norm ``maxnorm`` (PyTorch's factor ``maxnorm / (norm + 1e-7)``)."""
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {_fmt(maxnorm)}")
    if input.ndim <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.ndim} "
                           "dimensions")
    d = wrap_dim(dim, input.ndim)
    axes = tuple(i for i in range(input.ndim) if i != d)
    norms = vector_norm_of(input, p, axes, True, None)
    factor = jnp.where(norms > maxnorm, maxnorm / (norms + 1e-7), 1.0).astype(norms.dtype)
    return input * factor
