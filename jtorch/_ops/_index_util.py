"""Shared helpers of the indexing, scatter and selection ops.

Value checks (index bounds, data-dependent sizes) need concrete numbers, so they run eagerly in
Python before an op is dispatched (``@op(check=...)``) and are skipped while tracing; shape and
dtype checks live in the op bodies, which run at trace time.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from .._core import dtypes
from .._core.errors import concretization_error
from .._core.tensor_base import MetaStorage, TensorBase, host_value, kept_host_value, off_host


def concrete(x):
    """NumPy value of a Tensor/array, or None while tracing or on the meta device (value
    checks are then skipped). A tensor's value comes from its host copy where it has one
    (``tensor_base.host_value``), a view's from its base's when reading the view itself
    would wait (its array not computed yet) or cost a device-to-host copy."""
    if x is None:
        return None
    v = x._value if hasattr(x, "_value") else x
    if isinstance(v, (jax.core.Tracer, MetaStorage)):
        return None
    if not isinstance(x, TensorBase):
        return np.asarray(v)
    if x._base is None:
        return host_value(x)
    if off_host(x._device) or not v.is_ready():
        h = _host_view(x, v)
        if h is not None:
            return h
    return np.asarray(v)


def _host_view(x, v):
    """The value of view ``x`` read from its base's host value when that is known or the
    base is ready: XLA runs computations in order, so waiting for the view's array
    (``y.view(-1)`` in a loss) would wait for every computation queued before it. None
    when the base is stale or not ready, of another dtype, or the view has no known strides."""
    base = x._base
    b = base._array
    lay = x._layout
    if (x._base_version != base._version_counter or not isinstance(lay, tuple)
            or b.dtype != v.dtype
            or not (kept_host_value(base) is not None or b.is_ready())):
        return None
    st, off = lay
    flat = host_value(base).reshape(-1)
    return np.lib.stride_tricks.as_strided(flat[off:], shape=v.shape, writeable=False,
                                           strides=[s * flat.itemsize for s in st])


def need_concrete(x, what):
    """NumPy value of ``x``; raises jtorch's concretization error while tracing."""
    v = concrete(x)
    if v is None:
        raise concretization_error(what)
    return v


def dtype_of(a):
    """The jtorch dtype of a jnp array (inside bodies)."""
    return dtypes.from_np(a.dtype)


def is_index_dtype(a):
    return a.dtype in (np.int64, np.int32)


def first_oob(idx, size, allow_negative):
    """The first out-of-range value of integer array ``idx`` for a dim of ``size``, or None."""
    if idx.size == 0:
        return None
    lo = -size if allow_negative else 0
    try:
        bad = (idx < lo) | (idx >= size)
    except TypeError:   # a symbolic size (jax.export): JAX decides from its bounds
        return _first_oob_symbolic(idx, lo, size)
    if not bad.any():
        return None
    return int(idx.reshape(-1)[np.argmax(bad.reshape(-1))])


def _first_oob_symbolic(idx, lo, size):
    """first_oob for a symbolic ``size``; a comparison JAX cannot decide from the dimension's
    bounds raises its InconclusiveDimensionOperation."""
    if lo <= int(idx.min()) and int(idx.max()) < size:
        return None
    return next(v for v in idx.reshape(-1).tolist() if not lo <= v < size)


# ------------------------------------------------------------------ scatter/gather index grids
def grid(index, dim, shape=None):
    """Full advanced-index tuple addressing, for every position of ``index`` (shape ``S``), the
    element at ``index`` along ``dim`` and at the same position along the other dims."""
    shape = index.shape if shape is None else shape
    nd = len(shape)
    out = []
    for d in range(nd):
        if d == dim:
            out.append(index)
        else:
            s = [1] * nd
            s[d] = shape[d]
            out.append(jnp.arange(shape[d]).reshape(s))
    return tuple(out)


def along(index, dim, shape):
    """Full advanced-index tuple for index_add/index_copy-style ops: source position ``p``
    goes to ``p`` with its ``dim`` coordinate replaced by ``index[p[dim]]``."""
    nd = len(shape)
    out = []
    for d in range(nd):
        s = [1] * nd
        s[d] = shape[d]
        out.append(index.reshape(s) if d == dim else jnp.arange(shape[d]).reshape(s))
    return tuple(out)


# --------------------------------------------------------- scatters with PyTorch's derivatives
def scatter_set(x, src, idx):
    """``x.at[idx].set(src)``; the gradient reaches every duplicate (PyTorch's gather rule).
    ``idx`` may hold full slices (static) besides index arrays."""
    idx = idx if isinstance(idx, tuple) else (idx,)
    where = tuple(isinstance(i, slice) for i in idx)
    return _scatter_set(where, x, src, tuple(i for i in idx if not isinstance(i, slice)))


def _rebuild(where, arrays):
    it = iter(arrays)
    return tuple(slice(None) if w else next(it) for w in where)


@functools.partial(jax.custom_vjp, nondiff_argnums=(0,))
def _scatter_set(where, x, src, arrays):
    return x.at[_rebuild(where, arrays)].set(src)


def _set_fwd(where, x, src, arrays):
    return x.at[_rebuild(where, arrays)].set(src), arrays


def _set_bwd(where, arrays, ct):
    idx = _rebuild(where, arrays)
    return ct.at[idx].set(0), ct[idx], None


_scatter_set.defvjp(_set_fwd, _set_bwd)


def _identity(reduce, dtype):
    if reduce == "prod":
        return jnp.ones((), dtype)
    if jnp.issubdtype(dtype, jnp.floating):
        return jnp.array(-jnp.inf if reduce == "amax" else jnp.inf, dtype)
    if dtype == jnp.bool_:
        return jnp.array(reduce != "amax", dtype)
    info = jnp.iinfo(dtype)
    return jnp.array(info.min if reduce == "amax" else info.max, dtype)


def _touched(x, idx):
    return jnp.zeros(x.shape, jnp.int32).at[idx].add(1) > 0


def _reduce_fwd_value(reduce, include_self, x, src, idx):
    if not include_self:
        x = x.at[idx].set(_identity(reduce, x.dtype))
    if reduce == "prod":
        return x.at[idx].multiply(src)
    if reduce == "amax":
        return x.at[idx].max(src)
    return x.at[idx].min(src)


@functools.partial(jax.custom_vjp, nondiff_argnums=(0, 1))
def scatter_extreme(reduce, include_self, x, src, idx):
    """Scatter with prod/amax/amin; the derivative is PyTorch's (ties share the gradient
    evenly for amax/amin; products of the other elements, exact with zeros, for prod)."""
    return _reduce_fwd_value(reduce, include_self, x, src, idx)


def _ext_fwd(reduce, include_self, x, src, idx):
    out = _reduce_fwd_value(reduce, include_self, x, src, idx)
    return out, (x, src, idx, out)


def _ext_bwd(reduce, include_self, res, ct):
    x, src, idx, out = res
    self_in = jnp.ones(x.shape, bool) if include_self else ~_touched(x, idx)
    if reduce == "prod":
        one = jnp.ones((), x.dtype)
        zx = self_in & (x == 0)
        zs = src == 0
        nzeros = zx.astype(jnp.int32).at[idx].add(zs.astype(jnp.int32))
        nzprod = jnp.where(self_in & ~zx, x, one).at[idx].multiply(jnp.where(zs, one, src))

        def others(v, zv, nz, p):  # product of the other elements scattered to v's place
            return jnp.where(zv, jnp.where(nz == 1, p, 0),
                             jnp.where(nz == 0, p / jnp.where(zv, one, v), 0))

        gx = jnp.where(self_in, ct * others(x, zx, nzeros, nzprod), 0)
        gs = ct[idx] * others(src, zs, nzeros[idx], nzprod[idx])
        return gx.astype(x.dtype), gs.astype(src.dtype), None
    # PyTorch counts self among the tied extremes even when include_self=False, then zeroes
    # the gradient of the self entries that were scattered to
    ex = x == out
    es = src == out[idx]
    count = ex.astype(x.dtype).at[idx].add(es.astype(x.dtype))
    share = ct / jnp.where(count == 0, 1, count)
    return jnp.where(ex & self_in, share, 0), jnp.where(es, share[idx], 0), None


scatter_extreme.defvjp(_ext_fwd, _ext_bwd)


def scatter_reduce_core(x, src, idx, reduce, include_self):
    """PyTorch's scatter_reduce over a full advanced index ``idx`` (src has idx's shape)."""
    if reduce == "sum":
        if not include_self:
            x = x.at[idx].set(0)
        return x.at[idx].add(src)
    if reduce == "mean":
        cnt = jnp.zeros(x.shape, x.dtype).at[idx].add(jnp.ones((), x.dtype))
        base = x if include_self else x.at[idx].set(0)
        total = base.at[idx].add(src)
        cnt = cnt + 1 if include_self else cnt
        safe = jnp.where(cnt == 0, 1, cnt)
        if jnp.issubdtype(x.dtype, jnp.integer):
            res = jnp.floor_divide(total, safe)
        else:
            res = total / safe
        return jnp.where(cnt == 0, x, res).astype(x.dtype)
    return scatter_extreme(reduce, include_self, x, src, idx)


# ------------------------------------------------------------------ Python scalars into a dtype
_C_NAMES = {"int8": "int8_t", "uint8": "uint8_t", "int16": "int16_t", "int32": "int",
            "int64": "int64_t", "float32": "float", "complex64": "c10::complex<float>"}


def check_scalar(v, dtype):
    """PyTorch's overflow checks when a Python number is written into a tensor of ``dtype``."""
    if isinstance(v, (bool, np.bool_)):
        return
    if isinstance(v, (int, np.integer)) and not -2 ** 63 <= int(v) < 2 ** 63:
        raise ValueError("Overflow when unpacking long long")
    cat = dtype.category
    if cat == dtypes.BOOL or dtype.name in ("float64", "complex128", "float16", "bfloat16"):
        return
    bad = False
    if isinstance(v, complex):
        bad = cat != dtypes.COMPLEX and v.imag != 0
        v = v.real if cat != dtypes.COMPLEX else v
    if not bad and cat == dtypes.INT:
        if isinstance(v, float) and not np.isfinite(v):
            bad = True
        else:
            info = np.iinfo(dtype.np)
            # unsigned types let negative ints wrap around (two's complement), as PyTorch
            lo = info.min if dtype.is_signed or isinstance(v, float) else -info.max
            bad = not lo <= v <= info.max
    elif not bad and dtype.name in ("float32", "complex64"):
        mag = abs(v)
        bad = np.isfinite(mag) and mag > float(np.finfo(np.float32).max)
    if bad:
        raise RuntimeError(f"value cannot be converted to type {_C_NAMES[dtype.name]} without "
                           "overflow")
