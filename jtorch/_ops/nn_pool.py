"""nn.functional ops: max / average / power-average / adaptive pooling and max-unpooling.

Window geometry (output sizes, ceil_mode, divisors, adaptive windows) is static Python. Max
pooling stacks each window on a trailing axis (a reshape when the windows tile the input,
strided slices otherwise) and makes PyTorch's choice in it, the first maximum in row-major
window order or the last NaN (nn_pool_windows.py); its derivative sends each window's gradient
to that element. Average pooling sums with ``lax.reduce_window``, or over the tile axes when
the windows tile the input.
"""

from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ._registry import export, op
from ._util import wrap_dim
from .nn_conv import shape_str, windows
from .nn_pool_windows import (
    first_max,
    flat_indices,
    is_tiled,
    tiled_sum,
    tiles,
    window_axis,
    window_validity,
)
from .reduction import type_name

_WORDS = {1: "one", 2: "two", 3: "three"}


# ---------------------------------------------------------------------------- geometry
def _arg(name, what, v, n, *, word="must either be", omit=False):
    """kernel_size/stride/padding/dilation as an n-tuple, with PyTorch's error texts."""
    t = (v,) * n if isinstance(v, int) else tuple(int(e) for e in v)
    if len(t) == 1:
        t = t * n
    if len(t) != n:
        if n == 1:
            raise RuntimeError(f"{name}() {what} must be an int, list of ints or tuple of ints "
                               f"of size 1 but got size {len(t)}")
        raise RuntimeError(f"{name}: {what} {word} {'omitted, ' if omit else ''}a single int, "
                           f"or a tuple of {_WORDS[n]} ints")
    return t


def _params(name, n, kernel_size, stride, padding, dilation=1, *, avg=False):
    word = "must be" if avg and n == 3 else "must either be"
    ks = _arg(name, "kernel_size", kernel_size, n, word=word)
    ss = ks if stride is None or stride == () else _arg(name, "stride", stride, n, word=word,
                                                         omit=True)
    ps = _arg(name, "padding", padding, n, word=word)
    ds = _arg(name, "dilation", dilation, n, word="must be either")
    if n == 1:
        for what, v in (("kernel_size", ks), ("stride", ss), ("dilation", ds)):
            if v[0] <= 0:
                raise RuntimeError(f"max_pool1d() {what} must be greater than zero, but got "
                                   f"{v[0]}")
    if any(s == 0 for s in ss):
        raise RuntimeError("stride should not be zero")
    if any(d <= 0 for d in ds):
        names = ("T", "H", "W")[3 - n:] if n > 1 else ("H", "W")
        vals = ds if n > 1 else (1,) + ds
        raise RuntimeError("dilation should be greater than zero, but got "
                           + " ".join(f"dilation{a}: {v}" for a, v in zip(names, vals)))
    for k, p, d in zip(ks, ps, ds):
        if p < 0 or p > (d * (k - 1) + 1) // 2:
            if n == 1 and name == "max_pool1d":
                raise RuntimeError("max_pool1d() padding should be at most half of kernel size, "
                                   f"but got padding={p} and kernel_size={k}")
            raise RuntimeError("pad should be at most half of effective kernel size, but got "
                               f"pad={p}, kernel_size={k} and dilation={d}")
    return ks, ss, ps, ds


def out_len(size, k, s, p, d, ceil_mode):
    """PyTorch's ``pooling_output_shape``: the last window must start inside the input or the
    left padding."""
    o = (size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (o - 1) * s >= size + p:
        o -= 1
    return o


def _batchify(name, x, n):
    """Adds the batch dim to an unbatched input; PyTorch's per-op dimension error texts."""
    shp = shape_str(x.shape)
    if x.ndim not in (n + 1, n + 2):
        if name == "max_pool1d":
            raise RuntimeError(f"max_pool1d: Expected 2D or 3D (batch mode) tensor with optional "
                               f"0 dim batch size for input, but got:{shp}")
        if n == 1:
            raise RuntimeError(f"Expected 2 to 3 dimensions, but got {x.ndim}-dimensional tensor "
                               f"for argument #1 'self' (while checking arguments for {name})")
        if name == "avg_pool2d":
            if x.ndim < 3:
                wrap_dim(-3, x.ndim)
            raise RuntimeError("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch "
                               f"size for input, but got:{shp}")
        if name.startswith("adaptive"):
            colon = ":" if "max" in name else ""
            raise RuntimeError(f"{name}(): Expected {n + 1}D or {n + 2}D tensor, but got{colon} "
                               f"{shp}")
        raise RuntimeError(f"non-empty {n + 1}D or {n + 2}D (batch mode) tensor expected for "
                           "input")
    batched = x.ndim == n + 2
    first = 1 if batched else 0
    empty = [i for i in range(first, x.ndim) if x.shape[i] == 0]
    if empty:
        if name.startswith("adaptive"):
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {shp} with dimension "
                               f"{empty[0]} being empty")
        if name == "max_pool1d":
            raise RuntimeError(f"max_pool1d: Expected 2D or 3D (batch mode) tensor with optional "
                               f"0 dim batch size for input, but got:{shp}")
        if n == 3:
            who = "max_pool3d_with_indices_out_cpu_template" if "max" in name else name
            raise RuntimeError(f"{who}(): Expected input's non-batch dimensions to have positive "
                               f"length, but input has a shape of {shp} and non-batch dimension "
                               f"{empty[0] - first} has length zero!")
        raise RuntimeError(f"Expected {n + 1}D or {n + 2}D (batch mode) tensor with optional 0 "
                           f"dim batch size for input, but got:{shp}")
    return (x if batched else x[None]), batched


def _outs(name, x, n, ks, ss, ps, ds, ceil_mode):
    spatial = x.shape[2:]
    outs = tuple(out_len(L, k, s, p, d, ceil_mode)
                 for L, k, s, p, d in zip(spatial, ks, ss, ps, ds))
    if any(o <= 0 for o in outs):
        if name == "max_pool1d":
            raise RuntimeError(f"max_pool1d() Invalid computed output size: {outs[0]}")
        c = x.shape[1]
        if n == 1:
            dims_in, dims_out = (c, 1, spatial[0]), (c, 1, outs[0])
        else:
            dims_in, dims_out = (c, *spatial), (c, *outs)
        raise RuntimeError(f"Given input size: ({'x'.join(map(str, dims_in))}). Calculated "
                           f"output size: ({'x'.join(map(str, dims_out))}). Output size is too "
                           "small")
    return outs


def _lowest(dtype):
    if jnp.issubdtype(dtype, jnp.floating):
        return -jnp.inf
    return jnp.iinfo(dtype).min


# ---------------------------------------------------------------------------- max pooling
def _max_pool(name, n, input, kernel_size, stride, padding, dilation, ceil_mode, indices):
    ks, ss, ps, ds = _params(name, n, kernel_size, stride, padding, dilation)
    kind = "max1d" if name == "max_pool1d" and not indices else "max"
    x, batched = _batchify(name, input, n)
    if x.dtype == jnp.bool_ or (kind == "max1d" and jnp.issubdtype(x.dtype, jnp.integer)):
        kernel = "max_pool1d_impl" if kind == "max1d" else f"max_pool{n}d"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{type_name(x)}'")
    outs = _outs(name if kind == "max1d" else "", x, n, ks, ss, ps, ds, ceil_mode)
    valid = None
    if is_tiled(x.shape[2:], ks, ss, ps, ds, outs):
        win = tiles(x, ks)                                      # (N, C, *outs, K)
    else:
        win = windows(x, ks, ss, ps, ds, outs, _lowest(x.dtype))
        valid = window_validity(x.shape[2:], ks, ss, ps, ds, outs)
    val, am = first_max(win, indices, valid)
    if not indices:
        return val if batched else val[0]
    flat = flat_indices(am, x.shape[2:], ks,
                        lambda i, o, off: o * ss[i] - ps[i] + off * ds[i])
    return (val, flat) if batched else (val[0], flat[0])


def _max_pool_op(n, namespace, grad_name, with_indices):
    """``max_pool{n}d`` as an op; its ``_with_indices`` form always returns the indices."""
    name = f"max_pool{n}d"

    @op(name + "_with_indices" * with_indices, namespace=namespace, grad_name=grad_name,
        method=False)
    def max_pool(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                 return_indices=False):
        return _max_pool(name, n, input, kernel_size, stride, padding, dilation, ceil_mode,
                         with_indices or return_indices)

    return max_pool


_GRAD = {1: "SqueezeBackward1", 2: "MaxPool2DWithIndicesBackward0",
         3: "MaxPool3DWithIndicesBackward0"}
max_pool1d = _max_pool_op(1, "nn.functional,", _GRAD[1], False)
max_pool2d = _max_pool_op(2, "nn.functional,", _GRAD[2], False)
max_pool3d = _max_pool_op(3, "nn.functional,", _GRAD[3], False)
max_pool1d_with_indices = _max_pool_op(1, "nn.functional,", _GRAD[1], True)
max_pool2d_with_indices = _max_pool_op(2, "nn.functional", _GRAD[2], True)
max_pool3d_with_indices = _max_pool_op(3, "nn.functional", _GRAD[3], True)


# ---------------------------------------------------------------------------- average pooling
def _divisor(spatial, ks, ss, ps, outs, count_include_pad):
    """Static per-output-position divisor (PyTorch's pool_size / count of real elements)."""
    per_dim = []
    for L, k, s, p, o in zip(spatial, ks, ss, ps, outs):
        start = np.arange(o) * s - p
        end = np.minimum(start + k, L + p)
        if count_include_pad:
            per_dim.append(end - start)
        else:
            per_dim.append(np.minimum(end, L) - np.maximum(start, 0))
    div = per_dim[0]
    for d in per_dim[1:]:
        div = np.multiply.outer(div, d)
    return div


def _sum_dtype(dtype):
    return dtype if jnp.issubdtype(dtype, jnp.floating) else jnp.int64


def _avg_sum(x, ks, ss, ps, outs):
    right = [(o - 1) * s + k - L - p for L, k, s, p, o in zip(x.shape[2:], ks, ss, ps, outs)]
    pad = [(0, 0), (0, 0)] + [(p, max(r, 0)) for p, r in zip(ps, right)]
    acc = _sum_dtype(x.dtype)
    out = lax.reduce_window(x.astype(acc), np.array(0, acc), lax.add, (1, 1) + ks,
                            (1, 1) + ss, pad)
    return out[(slice(None), slice(None)) + tuple(slice(0, o) for o in outs)]


def _avg_pool(name, n, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
              divisor_override):
    ks, ss, ps, _ = _params(name, n, kernel_size, stride, padding, avg=True)
    x, batched = _batchify(name, input, n)
    if x.dtype == jnp.bool_:
        raise NotImplementedError(f"\"{name}\" not implemented for 'Bool'")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    outs = _outs("", x, n, ks, ss, ps, (1,) * n, ceil_mode)
    if is_tiled(x.shape[2:], ks, ss, ps, (1,) * n, outs):
        total = tiled_sum(x, ks, _sum_dtype(x.dtype))
    else:
        total = _avg_sum(x, ks, ss, ps, outs)
    if divisor_override is not None:
        div = np.full(outs, divisor_override)
    else:
        div = _divisor(x.shape[2:], ks, ss, ps, outs, count_include_pad)
    if jnp.issubdtype(x.dtype, jnp.floating):
        out = total / jnp.asarray(div, x.dtype)
    else:
        out = lax.div(total, jnp.broadcast_to(jnp.asarray(div, total.dtype), total.shape))
        out = out.astype(x.dtype)
    return out if batched else out[0]


@op("avg_pool1d", namespace="nn.functional,", method=False, grad_name="SqueezeBackward1",
    opmath="forward")
def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    return _avg_pool("avg_pool1d", 1, input, kernel_size, stride, padding, ceil_mode,
                     count_include_pad, None)


@op("avg_pool2d", namespace="nn.functional", method=False, opmath="forward")
def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    return _avg_pool("avg_pool2d", 2, input, kernel_size, stride, padding, ceil_mode,
                     count_include_pad, divisor_override)


@op("avg_pool3d", namespace="nn.functional", method=False, opmath="forward")
def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    return _avg_pool("avg_pool3d", 3, input, kernel_size, stride, padding, ceil_mode,
                     count_include_pad, divisor_override)


# ---------------------------------------------------------------------------- power-average
def _lp_pool(name, n, input, norm_type, kernel_size, stride, ceil_mode):
    ks = _arg(name, "kernel_size", kernel_size, n)
    if norm_type == math.inf:
        return _max_pool(f"max_pool{n}d", n, jnp.abs(input), kernel_size, stride, 0, 1,
                         ceil_mode, False)
    if norm_type == -math.inf:
        return -_max_pool(f"max_pool{n}d", n, -jnp.abs(input), kernel_size, stride, 0, 1,
                          ceil_mode, False)
    out = _avg_pool(f"avg_pool{n}d", n, input ** norm_type, kernel_size, stride, 0, ceil_mode,
                    True, None)
    a = jnp.abs(out)
    out = jnp.sign(out) * jnp.where(a > 0, a, jnp.zeros((), a.dtype))
    return (out * math.prod(ks)) ** (1.0 / norm_type)


_LP = {"namespace": "nn.functional", "method": False, "grad_name": "PowBackward0"}


@op("lp_pool1d", **_LP)
def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool("avg_pool1d", 1, input, norm_type, kernel_size, stride, ceil_mode)


@op("lp_pool2d", **_LP)
def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool("avg_pool2d", 2, input, norm_type, kernel_size, stride, ceil_mode)


@op("lp_pool3d", **_LP)
def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool("avg_pool3d", 3, input, norm_type, kernel_size, stride, ceil_mode)


# ---------------------------------------------------------------------------- adaptive pooling
def _adaptive_windows(size, out):
    start = [(i * size) // out for i in range(out)]
    end = [-(-((i + 1) * size) // out) for i in range(out)]
    return start, end


def _adaptive_prep(name, n, input, output_size):
    x, batched = _batchify(name, input, n)
    sizes = (output_size,) * n if isinstance(output_size, int) else tuple(output_size)
    if len(sizes) == 1 and n > 1:
        sizes = sizes * n
    if len(sizes) != n:
        raise RuntimeError(f"{name}: output_size must be {n}")
    sizes = tuple(x.shape[2 + i] if s is None else int(s) for i, s in enumerate(sizes))
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"{name}: elements of output_size must be greater than or equal to 0 ")
    if jnp.issubdtype(x.dtype, jnp.integer) or x.dtype == jnp.bool_:
        raise NotImplementedError(f"\"{name}\" not implemented for '{type_name(x)}'")
    return x, batched, sizes


def _adaptive_avg(name, n, input, output_size):
    x, batched, sizes = _adaptive_prep(name, n, input, output_size)
    spatial = x.shape[2:]
    if all(o > 0 and L % o == 0 for L, o in zip(spatial, sizes)):
        shape = list(x.shape[:2])
        for L, o in zip(spatial, sizes):
            shape += [o, L // o]
        out = jnp.mean(x.reshape(shape), axis=tuple(3 + 2 * i for i in range(n)))
    else:
        # each window's sum divided by its size, as PyTorch's kernel
        out, count = x, np.ones(())
        for i, (L, o) in enumerate(zip(spatial, sizes)):
            start, end = _adaptive_windows(L, o)
            m = np.zeros((L, o))
            for j in range(o):
                m[start[j]:end[j], j] = 1.0
            out = jnp.moveaxis(jnp.tensordot(out, jnp.asarray(m, x.dtype), ((2 + i,), (0,))),
                               -1, 2 + i)
            count = np.multiply.outer(count, np.asarray(end) - np.asarray(start))
        out = out / jnp.asarray(count, x.dtype)
    return out if batched else out[0]


@op("adaptive_avg_pool1d", namespace="nn.functional,", method=False,
    grad_name="SqueezeBackward1", opmath=True)
def adaptive_avg_pool1d(input, output_size):
    return _adaptive_avg("adaptive_avg_pool1d", 1, input, output_size)


@op("adaptive_avg_pool2d", namespace="nn.functional", method=False,
    grad_name="AdaptiveAvgPool2DBackward0", opmath=True)
def adaptive_avg_pool2d(input, output_size):
    return _adaptive_avg("adaptive_avg_pool2d", 2, input, output_size)


@op("adaptive_avg_pool3d", namespace="nn.functional", method=False,
    grad_name="AdaptiveAvgPool3DBackward0", opmath=True)
def adaptive_avg_pool3d(input, output_size):
    return _adaptive_avg("adaptive_avg_pool3d", 3, input, output_size)


def _adaptive_max(name, n, input, output_size, indices):
    x, batched, sizes = _adaptive_prep(name, n, input, output_size)
    spatial = x.shape[2:]
    win = x
    tables = []
    for i, (L, o) in enumerate(zip(spatial, sizes)):
        start, end = _adaptive_windows(L, o)
        width = max((e - s for s, e in zip(start, end)), default=1)
        tab = np.array([[min(s + j, e - 1) for j in range(width)] for s, e in zip(start, end)],
                       dtype=np.int64).reshape(o, width)
        tables.append(tab)
        ax = 2 + 2 * i
        win = jnp.take(win, jnp.asarray(tab.reshape(-1)), axis=ax)
        win = win.reshape(win.shape[:ax] + (o, width) + win.shape[ax + 1:])
    win = window_axis(win)
    widths = tuple(t.shape[1] for t in tables)
    val, am = first_max(win, indices)
    if not indices:
        return val if batched else val[0]
    flat = flat_indices(am, spatial, widths, lambda i, o, off: jnp.asarray(tables[i])[o, off])
    if not batched:
        val, flat = val[0], flat[0]
    return val, flat


_AMAX = {"method": False}


@op("adaptive_max_pool1d", namespace="nn.functional", grad_name="SqueezeBackward1", **_AMAX)
def adaptive_max_pool1d(input, output_size, return_indices=False):
    return _adaptive_max("adaptive_max_pool1d", 1, input, output_size, return_indices)


@op("adaptive_max_pool2d", namespace="nn.functional",
    grad_name="AdaptiveMaxPool2DBackward0", **_AMAX)
def adaptive_max_pool2d(input, output_size, return_indices=False):
    return _adaptive_max("adaptive_max_pool2d", 2, input, output_size, return_indices)


@op("adaptive_max_pool3d", namespace="nn.functional",
    grad_name="AdaptiveMaxPool3DBackward0", **_AMAX)
def adaptive_max_pool3d(input, output_size, return_indices=False):
    return _adaptive_max("adaptive_max_pool3d", 3, input, output_size, return_indices)


def _with_indices(n):
    opfn = {1: adaptive_max_pool1d, 2: adaptive_max_pool2d, 3: adaptive_max_pool3d}[n]

    def f(input, output_size, return_indices=False):
        return opfn(input, output_size, True)

    f.__name__ = f.__qualname__ = f"adaptive_max_pool{n}d_with_indices"
    return f


adaptive_max_pool1d_with_indices = export("adaptive_max_pool1d_with_indices",
                                          namespace="nn.functional")(_with_indices(1))
adaptive_max_pool2d_with_indices = export("adaptive_max_pool2d_with_indices",
                                          namespace="nn.functional")(_with_indices(2))
adaptive_max_pool3d_with_indices = export("adaptive_max_pool3d_with_indices",
                                          namespace="nn.functional")(_with_indices(3))


@export("adaptive_max_pool1d")
def _torch_adaptive_max_pool1d(input, output_size):
    """``torch.adaptive_max_pool1d``: always (values, indices)."""
    return adaptive_max_pool1d(input, output_size, True)


# ---------------------------------------------------------------------------- max unpooling
def unpool_output_size(input_shape, ks, ss, ps, output_size):
    """F._unpool_output_size: the default size, or the requested one within one stride."""
    n = len(ks)
    default = [(input_shape[-n + d] - 1) * ss[d] + ks[d] - 2 * ps[d] for d in range(n)]
    if output_size is None:
        return tuple(default)
    output_size = tuple(output_size)
    if len(output_size) == n + 2:
        output_size = output_size[2:]
    if len(output_size) != n:
        raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} elements, "
                         f"but it has a length of '{len(output_size)}'")
    for d in range(n):
        lo, hi = default[d] - ss[d], default[d] + ss[d]
        if not lo < output_size[d] < hi:
            raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between '
                             f"{lo} and {hi})")
    return output_size


def _max_unpool(n, input, indices, kernel_size, stride, padding, output_size):
    expand = lambda v: (v,) * n if isinstance(v, int) else tuple(v)  # noqa: E731
    ks = expand(kernel_size)
    ss = ks if stride is None else expand(stride)
    ps = expand(padding)
    size = unpool_output_size(input.shape, ks, ss, ps, output_size)
    if indices.dtype != jnp.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: "
                           f"{type_name(indices)}")
    m = max(n, 2)
    if n > 1 and input.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"Input to max_unpooling{n}d should be a {m + 1}d or {m + 2}d Tensor, "
                           f"but got a tensor with {input.ndim} dimensions.")
    if indices.shape != input.shape:
        raise RuntimeError("Expected shape of indices to be same as that of the input tensor ("
                           f"{shape_str(input.shape)}) but got indices tensor with shape: "
                           f"{shape_str(indices.shape)}")
    if input.dtype == jnp.bool_ or jnp.issubdtype(input.dtype, jnp.integer):
        raise NotImplementedError(f"\"max_unpool{m}d\" not implemented for '{type_name(input)}'")
    lead = input.shape[:input.ndim - n]
    plane = math.prod(size)
    rows = math.prod(lead)
    x = input.reshape(rows, -1)
    idx = indices.reshape(rows, -1)
    return _unpool_scatter(x, idx, plane).reshape(lead + tuple(size))


@functools.partial(jax.custom_vjp, nondiff_argnums=(2,))
def _unpool_scatter(x, idx, plane):
    out = jnp.zeros((x.shape[0], plane), x.dtype)
    return out.at[jnp.arange(x.shape[0])[:, None], idx].set(x, mode="drop")


def _unpool_fwd(x, idx, plane):
    return _unpool_scatter(x, idx, plane), idx


def _unpool_bwd(plane, idx, ct):
    # PyTorch's derivative gathers the output gradient at every index, repeated ones included
    # (JAX's scatter-set derivative credits only the one write that survives)
    rows = jnp.arange(ct.shape[0])[:, None]
    return ct.at[rows, idx].get(mode="fill", fill_value=0), None


_unpool_scatter.defvjp(_unpool_fwd, _unpool_bwd)


_UNPOOL = {"namespace": "nn.functional", "method": False, "saves": False}


@op("max_unpool1d", grad_name="SqueezeBackward1", **_UNPOOL)
def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(1, input, indices, kernel_size, stride, padding, output_size)


@op("max_unpool2d", **_UNPOOL)
def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(2, input, indices, kernel_size, stride, padding, output_size)


@op("max_unpool3d", **_UNPOOL)
def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _max_unpool(3, input, indices, kernel_size, stride, padding, output_size)
