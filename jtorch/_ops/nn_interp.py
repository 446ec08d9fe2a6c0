"""nn.functional ops: interpolate/upsample, grid_sample, affine_grid.

``interpolate`` is one op per call. Its sampling positions depend only on shapes and static
arguments, so the source indices and weights of every output position are computed in NumPy
at trace time with PyTorch's formulas (``area_pixel_compute_source_index``, ``nearest_idx``,
the cubic convolution with A = -0.75, adaptive-pool windows), in PyTorch's compute precision
(float32 for float32/half inputs, float64 for double), and baked into the kernel as
constants. The kernel applies them one spatial axis at a time (gathers times weights; area is a
small averaging matrix), and its vjp is the matching scatter-add.
"""

from __future__ import annotations

import math
import warnings

import jax
import jax.numpy as jnp
import numpy as np

from .._core import torch_function
from .._core.tensor_base import TensorBase
from ._registry import export, op
from ._util import type_name

_LOW = (jnp.float16, jnp.bfloat16)
_A = -0.75


# ------------------------------------------------------------------ NumPy index/weight tables
def _scale_value(in_size, out_size, scale, t):
    """PyTorch's compute_scales_value: 1/scale when a scale was given, else in/out."""
    if scale is not None and scale > 0:
        return t(1.0 / scale)
    return t(in_size) / t(out_size)


def _area_scale(in_size, out_size, align_corners, scale, t):
    if align_corners:
        return t(in_size - 1) / t(out_size - 1) if out_size > 1 else t(0)
    return _scale_value(in_size, out_size, scale, t)


def _source_index(scale, out_size, align_corners, cubic, t):
    dst = np.arange(out_size).astype(t)
    if align_corners:
        return scale * dst
    src = scale * (dst + t(0.5)) - t(0.5)
    return src if cubic else np.maximum(src, t(0))


def _nearest_table(in_size, out_size, scale, exact, two_d):
    if two_d and not exact:  # only PyTorch's 2-D nearest kernel takes these shortcuts
        if out_size == in_size:
            return np.arange(out_size)
        if out_size == 2 * in_size:
            return np.arange(out_size) >> 1
    s = _scale_value(in_size, out_size, scale, np.float32)
    dst = np.arange(out_size)
    if exact:
        src = np.floor(((dst + 0.5) * np.float64(s)).astype(np.float32))
    else:
        src = np.floor(dst.astype(np.float32) * s)
    return np.minimum(src.astype(np.int64), in_size - 1)


def _linear_table(in_size, out_size, align_corners, scale, t):
    s = _area_scale(in_size, out_size, align_corners, scale, t)
    src = _source_index(s, out_size, align_corners, False, t)
    i0 = src.astype(np.int64)
    i1 = i0 + (i0 < in_size - 1)
    lam1 = np.clip(src - i0.astype(t), 0, 1).astype(t)
    return (i0, i1), (t(1) - lam1, lam1)


def _cubic1(v, a):
    """PyTorch's cubic_convolution1: the cubic kernel on |v| <= 1."""
    return ((a + 2) * v - (a + 3)) * v * v + 1


def _cubic2(v, a):
    """PyTorch's cubic_convolution2: the cubic kernel on 1 < |v| < 2."""
    return ((a * v - 5 * a) * v + 8 * a) * v - 4 * a


def _cubic_coeffs(t, a=_A):
    """PyTorch's get_cubic_upsample_coefficients (A = -0.75) for fractional offset t."""
    return (_cubic2(t + 1, a), _cubic1(t, a), _cubic1(1 - t, a), _cubic2(2 - t, a))


def _np_fma(p, q, r, t):
    """``p * q + r`` rounded once to float32 ``t``, as a fused multiply-add (for float64 ``t``,
    rounded twice)."""
    return (np.asarray(p, np.float64) * np.float64(q) + np.float64(r)).astype(t)


def _aa_filter(x, mode, t):
    """The antialiasing filters of PyTorch's ``HelperInterpLinear/Cubic::aa_filter``: the
    triangle, or Keys' cubic with a = -0.5 (Pillow's; not the -0.75 of plain bicubic). The cubic
    is evaluated as PyTorch's kernels are compiled (its CPU kernels for AVX2, with FMA, and its
    CUDA ones): each ``u * v + w`` of ``cubic_convolution1/2`` fused and rounded once, which
    gives its float32 weights to the last bit."""
    x = np.abs(x)
    if mode == "bilinear":
        return np.where(x < 1, t(1) - x, t(0)).astype(t)
    a = t(-0.5)
    near = _np_fma((_np_fma(x, a + 2, -(a + 3), t) * x).astype(t), x, 1, t)
    far = _np_fma(_np_fma(_np_fma(x, a, -5 * a, t), x, 8 * a, t), x, -4 * a, t)
    return np.where(x < 1, near, np.where(x < 2, far, t(0))).astype(t)


def _aa_table(in_size, out_size, align_corners, scale, mode, t):
    """PyTorch's antialiased taps (``_compute_indices_min_size_weights_aa``): output ``i`` reads
    the inputs within ``support`` of ``center = scale * (i + 0.5)``, the filter stretched by
    the downscaling factor, its weights normalised to sum to one; in PyTorch's mixed float32 and
    double arithmetic. Returns ``taps`` index arrays and weight arrays (weights past an
    output's window are 0)."""
    s = _area_scale(in_size, out_size, align_corners, scale, t)
    half = 1.0 if mode == "bilinear" else 2.0  # interp_size * 0.5
    support = t(half * np.float64(s)) if s >= 1 else t(half)
    taps = int(math.ceil(support)) * 2 + 1
    invscale = t(1.0 / np.float64(s)) if s >= 1 else t(1)
    center = (np.float64(s) * (np.arange(out_size) + 0.5)).astype(t)
    xmin = np.maximum(((center - support).astype(np.float64) + 0.5).astype(np.int64), 0)
    xmax = np.minimum(((center + support).astype(np.float64) + 0.5).astype(np.int64), in_size)
    xsize = np.clip(xmax - xmin, 0, taps)
    j = np.arange(taps)
    offset = ((xmin[:, None] + j).astype(t) - center[:, None]).astype(np.float64) + 0.5
    w = _aa_filter((offset * np.float64(invscale)).astype(t), mode, t)
    w = np.where(j < xsize[:, None], w, t(0))
    total = np.zeros(out_size, t)
    for k in range(taps):  # PyTorch's running sum
        total = (total + w[:, k]).astype(t)
    w = np.where(total[:, None] != 0, w / np.where(total == 0, t(1), total)[:, None], w)
    idx = np.minimum(xmin[:, None] + j, in_size - 1)
    return tuple(idx.T), tuple(w.astype(t).T)


def _cubic_table(in_size, out_size, align_corners, scale, t):
    s = _area_scale(in_size, out_size, align_corners, scale, t)
    src = _source_index(s, out_size, align_corners, True, t)
    base = np.floor(src)
    x = (src - base).astype(t)
    base = base.astype(np.int64)
    ws = _cubic_coeffs(x, t(_A))
    idx = tuple(np.clip(base - 1 + k, 0, in_size - 1) for k in range(4))
    return idx, tuple(w.astype(t) for w in ws)


def _area_matrix(in_size, out_size, t):
    m = np.zeros((out_size, in_size), t)
    for i in range(out_size):
        start = (i * in_size) // out_size
        end = -((-(i + 1) * in_size) // out_size)
        m[i, start:end] = t(1) / t(end - start)
    return m


# ------------------------------------------------------------------ the op
_NAMES = {"nearest": "UpsampleNearest{}DBackward0", "nearest-exact":
          "UpsampleNearestExact{}DBackward0", "linear": "UpsampleLinear1DBackward0",
          "bilinear": "UpsampleBilinear2DBackward0", "bicubic": "UpsampleBicubic2DBackward0",
          "trilinear": "UpsampleTrilinear3DBackward0", "area": "AdaptiveAvgPool{}DBackward0",
          "bilinear-aa": "UpsampleBilinear2DAaBackward0",
          "bicubic-aa": "UpsampleBicubic2DAaBackward0"}


def _upsample_grad_name(input, mode, output_size, scales, align_corners):
    return _NAMES[mode].format(len(output_size))


def _along(x, axis, fn):
    x = jnp.moveaxis(x, axis, -1)
    return jnp.moveaxis(fn(x), -1, axis)


@op("_upsample", method=False, out=False, saves=False, grad_name=_upsample_grad_name)
def _upsample(input, mode, output_size, scales, align_corners):
    low = input.dtype in _LOW
    x = input.astype(jnp.float32) if low else input
    t = np.float64 if x.dtype == jnp.float64 else np.float32
    nd = len(output_size)
    antialias = mode.endswith("-aa")
    # PyTorch's antialiased kernel resamples the last (contiguous) axis first
    for k in reversed(range(nd)) if antialias else range(nd):
        axis = input.ndim - nd + k
        n_in, n_out = input.shape[axis], output_size[k]
        sc = scales[k] if scales is not None else None
        if mode in ("nearest", "nearest-exact"):
            idx = _nearest_table(n_in, n_out, sc, mode == "nearest-exact", nd == 2)
            x = jnp.take(x, jnp.asarray(idx), axis=axis)
        elif mode == "area":
            m = jnp.asarray(_area_matrix(n_in, n_out, t))
            x = _along(x, axis, lambda v, m=m: jnp.matmul(
                v, m.T, precision=jax.lax.Precision.HIGHEST))
        elif mode != "bicubic" and n_in == n_out:
            continue  # PyTorch's linear and antialiased kernels copy an axis of unchanged size
        else:
            if antialias:
                idxs, ws = _aa_table(n_in, n_out, align_corners, sc, mode[:-3], t)
            else:
                table = _cubic_table if mode == "bicubic" else _linear_table
                idxs, ws = table(n_in, n_out, align_corners, sc, t)
            shape = [1] * x.ndim
            shape[axis] = n_out
            x = sum(jnp.take(x, jnp.asarray(i), axis=axis) * jnp.asarray(w).reshape(shape)
                    for i, w in zip(idxs, ws))
    return x.astype(input.dtype)


# ------------------------------------------------------------------ interpolate
def _is_integer(v):

    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return True
    return isinstance(v, TensorBase) and not v.is_floating_point()


_MODES_3 = {3: "linear", 4: "bilinear", 5: "trilinear"}


def _mode_error(dim, mode):
    want = {"bilinear": 4, "trilinear": 5, "linear": 3}.get(mode)
    if want is not None and dim in (3, 4, 5) and dim != want:
        raise NotImplementedError(f"Got {dim}D input, but {mode} mode needs {want}D input")
    raise NotImplementedError(
        "Input Error: Only 3D, 4D and 5D input Tensors supported"
        f" (got {dim}D) for the modes: nearest | linear | bilinear | bicubic | trilinear | "
        f"lanczos | area | nearest-exact (got {mode})")


def _check_sizes(in_sp, out_sp):
    if all(s > 0 for s in in_sp) and all(s > 0 for s in out_sp):
        return
    names = ("D", "H", "W")[3 - len(in_sp):]
    fi = ", ".join(f"{n}: {s}" for n, s in zip(names, in_sp))
    fo = ", ".join(f"{n}: {s}" for n, s in zip(names, out_sp))
    raise RuntimeError("Input and output sizes should be greater than 0, but got input "
                       f"({fi}){' and' if len(in_sp) == 1 else ''} output ({fo})")


# interpolate's message for a size or scale_factor with a wrong number of entries
_WRONG_LENGTH = {
    "size": "Input and output must have the same number of spatial dimensions, but got input "
            "with spatial dimensions of {spatial} and output size of {value}. Please provide "
            "input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) "
            "format.",
    "scale_factor": "Input and scale_factor must have the same number of spatial dimensions, "
                    "but got input with spatial dimensions of {spatial} and scale_factor of "
                    "shape {value}. Please provide input tensor in (N, C, d1, d2, ...,dK) format "
                    "and scale_factor in (s1, s2, ...,sK) format.",
}


def _per_dim(name, value, dim, input):
    """interpolate's ``size`` (ints) or ``scale_factor`` (floats), given once or per spatial
    dim, as a list of ``dim`` numbers."""
    convert = int if name == "size" else float
    if not isinstance(value, (list, tuple)):
        return [convert(value)] * dim
    if len(value) != dim:
        raise ValueError(_WRONG_LENGTH[name].format(spatial=list(input.shape[2:]), value=value))
    if name == "size" and not all(_is_integer(x) for x in value):
        raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                        f"Tuple[int, int, int], but got size with types {[type(x) for x in value]}")
    return [convert(x) for x in value]


@export("interpolate", namespace="nn.functional")
def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating "
                             "modes: linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        scale_factors = None
        output_size = _per_dim("size", size, dim, input)
    elif scale_factor is not None:
        output_size = None
        scale_factors = _per_dim("scale_factor", scale_factor, dim, input)
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        output_size = [math.floor(input.size(i + 2) * scale_factors[i]) for i in range(dim)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos "
                         "modes and requires a 4-D tensor as input")
    if mode == "lanczos":
        raise NotImplementedError("jtorch does not implement torch.nn.functional.interpolate "
                                  "with mode='lanczos' yet")
    if mode not in _NAMES or input.dim() not in (3, 4, 5):
        _mode_error(input.dim(), mode)
    if mode in ("linear", "bilinear", "trilinear") and _MODES_3[input.dim()] != mode or \
            mode == "bicubic" and input.dim() != 4:
        _mode_error(input.dim(), mode)
    if output_size is None:
        output_size = [int(input.size(i + 2) * scale_factors[i]) for i in range(dim)]
    if mode != "area":
        _check_sizes(list(input.shape[2:]), output_size)
    dt = input.dtype
    if not dt.is_floating_point:
        kernel = {"nearest-exact": "_upsample_nearest_exact", "area": "adaptive_avg_pool",
                  "nearest": "upsample_nearest"}.get(mode, "upsample_" + mode)
        kernel += "" if mode == "area" else f"{dim}d"
        if dt.name != "uint8" or mode not in ("nearest", "nearest-exact"):
            if dt.name == "uint8":
                raise NotImplementedError("jtorch does not implement torch.nn.functional."
                                          f"interpolate of uint8 input in mode '{mode}' yet")
            raise NotImplementedError(f'"{kernel}_channels_last" not implemented for '
                                      f"'{type_name(dt)}'")
    if mode == "area":
        scale_factors = None
    if antialias:
        if dt.name in ("float16", "bfloat16") and list(input.shape[2:]) != output_size:
            raise NotImplementedError('"compute_index_ranges_weights" not implemented for '
                                      f"'{type_name(dt)}'")
        mode += "-aa"
    return _upsample(input, mode, tuple(output_size),
                     None if scale_factors is None else tuple(scale_factors),
                     bool(align_corners) if align_corners is not None else False)


@export("upsample", namespace="nn.functional")
def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


@export("upsample_nearest", namespace="nn.functional")
def upsample_nearest(input, size=None, scale_factor=None):
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


@export("upsample_bilinear", namespace="nn.functional")
def upsample_bilinear(input, size=None, scale_factor=None):
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# ------------------------------------------------------------------ grid_sample
def _unnormalize(coord, size, align_corners):
    """PyTorch's scalar ``grid_sampler_unnormalize`` (its 3-D kernel's)."""
    if align_corners:
        return (coord + 1) / 2 * (size - 1)
    return ((coord + 1) * size - 1) / 2


def _unnormalize_2d(coord, size, align_corners):
    """PyTorch's vectorized 2-D kernel's: ``(coord + 1) * ((size - 1) / 2)``, or
    ``fma(coord + 1, size / 2, -0.5)``. The rounding matters: a grid point on a pixel lands
    a rounding error to one side of it, which decides the bilinear weights' gradient."""
    shifted = coord + 1
    if align_corners:
        return shifted * jnp.asarray((size - 1) / 2, coord.dtype)
    return _fma(shifted, jnp.asarray(size / 2, coord.dtype), jnp.asarray(-0.5, coord.dtype))


def _kept(x):
    """``x`` unchanged, through a select XLA cannot fold: a product passed through it is not
    contracted with a following sum into a fused multiply-add."""
    return jnp.where(x != x, jnp.asarray(jnp.nan, x.dtype), x)


def _fma(a, b, c):
    """``a * b + c`` rounded once, as a fused multiply-add: through float64 for narrower
    floats; in float64 by error-free transforms (Dekker's product, Knuth's sum)."""
    if a.dtype != jnp.float64:
        wide = a.astype(jnp.float64) * b.astype(jnp.float64) + c.astype(jnp.float64)
        return wide.astype(a.dtype)
    a, b, c = jnp.broadcast_arrays(a, b, c)

    def split(x):
        t = _kept(134217729.0 * x)  # 2 ** 27 + 1
        hi = t - (t - x)
        return hi, x - hi
    p = _kept(a * b)
    (ah, al), (bh, bl) = split(a), split(b)
    err = ((_kept(ah * bh) - p) + _kept(ah * bl) + _kept(al * bh)) + _kept(al * bl)
    total = p + c
    back = total - p
    low = (p - (total - back)) + (c - back)
    return total + (low + err)


def _reflect(x, twice_low, twice_high):
    if twice_low == twice_high:
        return jnp.zeros_like(x)
    lo = twice_low / 2
    span = (twice_high - twice_low) / 2
    x = jnp.abs(x - lo)
    extra = jnp.fmod(x, span)
    flips = jnp.floor(x / span)
    return jnp.where(jnp.fmod(flips, 2) == 0, extra + lo, span - extra + lo)


def _pad_coord(x, size, padding_mode, align_corners):
    """PyTorch's compute_coordinates: border clips, reflection reflects then clips."""
    if padding_mode == 1:
        return jnp.clip(x, 0, size - 1)
    if padding_mode == 2:
        if align_corners:
            x = _reflect(x, 0, 2 * (size - 1))
        else:
            x = _reflect(x, -1, 2 * size - 1)
        return jnp.clip(x, 0, size - 1)
    return x


def _gather(flat, idx_list, sizes, valid):
    """flat: (N, C, prod(sizes)); idx_list: per spatial dim int arrays (N, P); values (N, C, P)
    with out-of-range taps reading 0."""
    lin = 0
    for i, s in zip(idx_list, sizes):
        lin = lin * s + jnp.clip(i, 0, s - 1)
    vals = jax.vmap(lambda img, ix: img[:, ix])(flat, lin)
    return jnp.where(valid[:, None, :], vals, 0)


def _inside(idx_list, sizes):
    ok = True
    for i, s in zip(idx_list, sizes):
        ok = ok & (i >= 0) & (i < s)
    return ok


def _grid_body(input, grid, interpolation_mode, padding_mode, align_corners):
    nd = input.ndim - 2
    shp = "[" + ", ".join(map(str, input.shape)) + "]"
    gshp = "[" + ", ".join(map(str, grid.shape)) + "]"
    if input.ndim not in (4, 5) or grid.ndim != input.ndim:
        raise RuntimeError(f"grid_sampler(): expected 4D or 5D input and grid with same number "
                           f"of dimensions, but got input with sizes {shp} and grid with sizes "
                           f"{gshp}")
    if grid.shape[-1] != nd:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {nd} in last dimension, "
                           f"but got grid with sizes {gshp}")
    if grid.shape[0] != input.shape[0]:
        raise RuntimeError("grid_sampler(): expected grid and input to have same batch size, "
                           f"but got input with sizes {shp} and grid with sizes {gshp}")
    if interpolation_mode == 2 and nd != 2:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if input.dtype != grid.dtype:

        raise RuntimeError(f"expected scalar type {type_name(input)} but "
                           f"found {type_name(grid)}")
    n, c = input.shape[:2]
    sizes = input.shape[2:]
    out_sp = grid.shape[1:-1]
    low = input.dtype in _LOW
    x = input.astype(jnp.float32) if low else input
    g = grid.astype(x.dtype).reshape(n, -1, nd)
    # grid's last axis is (x, y[, z]): x indexes the last spatial dim
    unnormalize = _unnormalize_2d if nd == 2 else _unnormalize
    coords = [unnormalize(g[..., nd - 1 - k], sizes[k], align_corners) for k in range(nd)]
    # every tap of every output point is gathered at once: per dim, (N, P, taps) indices and
    # weights, combined by outer products into (N, P, taps ** nd)
    if interpolation_mode == 2:  # bicubic (2-D): taps read through the padding rule
        idx, wts = [], []
        for cd, s in zip(coords, sizes):
            base = jnp.floor(cd)
            t = cd - base
            k = jnp.arange(4, dtype=cd.dtype)
            p = _pad_coord(base[..., None] - 1 + k, s, padding_mode, align_corners)
            idx.append(jax.lax.stop_gradient(p).astype(jnp.int64))
            wts.append(jnp.stack(_cubic_coeffs(t), -1))
    else:
        coords = [_pad_coord(cd, s, padding_mode, align_corners)
                  for cd, s in zip(coords, sizes)]
        idx, wts = [], []
        for cd in coords:
            if interpolation_mode == 1:  # nearest: round half to even, as nearbyint
                idx.append(jnp.round(jax.lax.stop_gradient(cd)).astype(jnp.int64)[..., None])
                wts.append(jnp.ones_like(cd)[..., None])
            else:
                lo = jnp.floor(jax.lax.stop_gradient(cd))
                idx.append(jnp.stack([lo, lo + 1], -1).astype(jnp.int64))
                if nd == 2:   # PyTorch's 2-D kernel: w = x - floor(x), e = 1 - w
                    frac = cd - lo
                    wts.append(jnp.stack([1 - frac, frac], -1))
                else:         # its 3-D kernel: distances to the far corner
                    wts.append(jnp.stack([lo + 1 - cd, cd - lo], -1))
    lin = ok = w = None
    for i, wk, s in zip(idx, wts, sizes):  # i, wk: (N, P, taps of this dim)
        ci, inside = jnp.clip(i, 0, s - 1), (i >= 0) & (i < s)
        if lin is None:
            lin, ok, w = ci, inside, wk
        else:
            lin = (lin[..., :, None] * s + ci[..., None, :]).reshape(n, g.shape[1], -1)
            ok = (ok[..., :, None] & inside[..., None, :]).reshape(n, g.shape[1], -1)
            w = (w[..., :, None] * wk[..., None, :]).reshape(n, g.shape[1], -1)
    flat = x.reshape(n, c, -1)
    vals = jax.vmap(lambda img, ix: img[:, ix])(flat, lin)          # (N, C, P, taps)
    vals = jnp.where(ok[:, None], vals, 0)
    if nd == 2 and interpolation_mode == 0:
        # PyTorch's vectorized bilinear kernel: nw_val * nw, then each further tap added by a
        # fused multiply-add, in the order nw, ne, sw, se
        w = jnp.broadcast_to(w[:, None], vals.shape)
        out = vals[..., 0] * w[..., 0]
        for k in range(1, vals.shape[-1]):
            out = _fma(vals[..., k], w[..., k], out)
    else:
        out = jnp.sum(vals * w[:, None], axis=-1)
    return out.reshape((n, c) + tuple(out_sp)).astype(input.dtype)


grid_sampler_2d = op("grid_sampler_2d", method=False, out=False, tensors=("input", "grid"),
                     grad_name="GridSampler2DBackward0")(_grid_body)
grid_sampler_3d = op("grid_sampler_3d", method=False, out=False, tensors=("input", "grid"),
                     grad_name="GridSampler3DBackward0")(_grid_body)
_GRID_OPS = {2: grid_sampler_2d, 3: grid_sampler_3d}


@export("grid_sampler")
def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """``torch.grid_sampler``: the 2-D or 3-D kernel by the input's rank."""
    k = 3 if input.dim() == 5 else 2
    return _GRID_OPS[k](input, grid, interpolation_mode, padding_mode, align_corners)


_GRID_WARN = ("Default grid_sample and affine_grid behavior has changed to align_corners=False "
              "since 1.3.0. Please specify align_corners=True if the old behavior is desired. "
              "See the documentation of grid_sample for details.")


@export("grid_sample", namespace="nn.functional")
@torch_function.overridable("torch.nn.functional.grid_sample")
def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_GRID_WARN, stacklevel=2)
        align_corners = False
    return grid_sampler(input, grid, ("bilinear", "nearest", "bicubic").index(mode),
                        ("zeros", "border", "reflection").index(padding_mode),
                        bool(align_corners))


# ------------------------------------------------------------------ affine_grid
def _base_line(steps, align_corners, dt):
    """PyTorch's ``linspace_from_neg_one``: ``linspace(-1, 1, steps)`` as its CPU kernel steps
    it (the first half counted up from -1, the rest down from 1; one rounding per value in
    float and double, as creation_math's linspace), then, unless
    ``align_corners``, ``* (steps - 1)`` and ``/ steps``, each rounded in ``dt``: computed on
    the host (a constant), since XLA turns a division by a constant into a product with its
    reciprocal."""
    if steps <= 1:
        return jnp.zeros((max(steps, 0),), dt)
    work = np.dtype(dt).type
    fused = np.longdouble if work in (np.float32, np.float64) else work  # as torch.linspace
    idx = np.arange(steps)
    step = fused(work(2) / work(steps - 1))
    r = np.where(idx < steps // 2, fused(-1) + step * idx.astype(fused),
                 fused(1) - step * (steps - idx - 1).astype(fused)).astype(work)
    if not align_corners:
        r = (r * work(steps - 1)).astype(work) / work(steps)
    return jnp.asarray(r.astype(work), dt)


@op("affine_grid_generator", method=False, out=False, tensors=("theta",), saves=False)
def affine_grid_generator(theta, size, align_corners):
    """``base @ theta^T`` for the base grid's rows ``(x, y[, z], 1)``, summed in that order, one
    rounding per product and per sum, as PyTorch's ``bmm`` of three (four) terms rounds."""
    dt = theta.dtype
    n = size[0]
    sp = tuple(size[2:])
    lines = [_base_line(s, align_corners, dt) for s in sp]
    mesh = jnp.meshgrid(*lines, indexing="ij")  # spatial dims in order (D,) H, W
    cols = [*reversed(mesh), jnp.ones(sp, dt)]  # x, y[, z], 1
    rows = jnp.swapaxes(theta, 1, 2)  # (n, k + 1, k): row i multiplies column i
    grid = None
    for i, col in enumerate(cols):
        # each product rounded before its sum: else XLA's CPU backend contracts them into a
        # fused multiply-add (one rounding, not two; an optimization barrier does not stop it)
        term = _kept(col.reshape(1, -1, 1) * rows[:, None, i, :])
        grid = term if grid is None else grid + term
    return grid.reshape((n,) + sp + (len(sp),))


@export("affine_grid", namespace="nn.functional")
def affine_grid(theta, size, align_corners=None):
    if align_corners is None:
        warnings.warn(_GRID_WARN, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError("Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                             f"{size}. Got {theta.shape}.")
        spatial = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError("Expected a batch of 3D affine matrices of shape Nx3x4 for size "
                             f"{size}. Got {theta.shape}.")
        spatial = size[-3:]
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {size}.")
    if align_corners and min(spatial) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size "
                      "grids when align_corners=True. This is not an intended use case of "
                      "affine_grid. See the documentation of affine_grid for details.",
                      stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return affine_grid_generator(theta, tuple(int(s) for s in size), bool(align_corners))
