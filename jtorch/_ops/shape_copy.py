"""Shape ops that copy: clone, cat and the *stack family, repeat/tile/repeat_interleave,
flip/roll/rot90, tril/triu, diag/diag_embed/trace, meshgrid/cartesian_prod."""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import numpy as np

from .._core import dtypes, torch_function
from .._core.errors import concretization_error
from .._core.tensor_base import TensorBase
from ._registry import export, op
from ._util import type_name, wrap_dim
from .creation import tensor
from .shape import _view, dims_arg, flatten, varargs
from .shape_expand import _expand

_CAT = {"method": False, "tensors": ("tensors",), "promote": "common", "saves": False}


@op("clone", out=False, saves=False)
def clone(input, *, memory_format=None):
    return jnp.array(input, copy=True)


# ------------------------------------------------------------------------------ cat / stack
def _check_list(tensors, name):
    if not isinstance(tensors, (tuple, list)):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, "
                        "not Tensor")


def _cat(tensors, dim):
    """PyTorch's cat rules on promoted arrays: 0-d refused, legacy empty 1-D inputs skipped."""
    for i, t in enumerate(tensors):
        if t.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be "
                               "concatenated")
    kept = [(i, t) for i, t in enumerate(tensors) if t.shape != (0,)]
    if not kept:
        return jnp.zeros((0,), tensors[0].dtype)
    ref = kept[0][1]
    d = wrap_dim(dim, ref.ndim)
    for i, t in kept:
        if t.ndim != ref.ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {ref.ndim} "
                               f"and {t.ndim}")
        for j in range(ref.ndim):
            if j != d and t.shape[j] != ref.shape[j]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. "
                                   f"Expected size {ref.shape[j]} but got size {t.shape[j]} "
                                   f"for tensor number {i} in the list.")
    return jnp.concatenate([t for _, t in kept], axis=d)


@op(("cat", "concat", "concatenate"), **_CAT)
def cat(tensors, dim=0):
    _check_list(tensors, "cat")
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    return _cat(tensors, dim)


def _stack_list(tensors, name):
    _check_list(tensors, name)
    if not tensors:
        raise RuntimeError(f"{name} expects a non-empty TensorList")


@op("stack", **_CAT)
def stack(tensors, dim=0):
    _stack_list(tensors, "stack")
    for i, t in enumerate(tensors):
        if t.shape != tensors[0].shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(tensors[0].shape)} at entry 0 and {list(t.shape)} at "
                               f"entry {i}")
    return jnp.stack(tensors, axis=wrap_dim(dim, tensors[0].ndim + 1))


@op("hstack", grad_name="CatBackward0", **_CAT)
def hstack(tensors):
    _stack_list(tensors, "hstack")
    ts = [jnp.atleast_1d(t) for t in tensors]
    return _cat(ts, 0 if ts[0].ndim == 1 else 1)


@op(("vstack", "row_stack"), grad_name="CatBackward0", **_CAT)
def vstack(tensors):
    _stack_list(tensors, "vstack")
    return _cat([jnp.atleast_2d(t) for t in tensors], 0)


def _at3(t):
    return t.reshape((1, -1, 1)) if t.ndim < 2 else (t[..., None] if t.ndim == 2 else t)


@op("dstack", grad_name="CatBackward0", **_CAT)
def dstack(tensors):
    _stack_list(tensors, "dstack")
    return _cat([_at3(t) for t in tensors], 2)


@op("column_stack", grad_name="CatBackward0", **_CAT)
def column_stack(tensors):
    _stack_list(tensors, "column_stack")
    return _cat([t.reshape((-1, 1)) if t.ndim < 2 else t for t in tensors], 1)


# ------------------------------------------------------------------------------ repeat / tile
@op("repeat", namespace=None, method=False, out=False, saves=False)
def _repeat(input, repeats):
    if len(repeats) < input.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor")
    shape = (1,) * (len(repeats) - input.ndim) + input.shape
    out = [s * r for s, r in zip(shape, repeats)]
    for s in out:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {out}")
    return jnp.tile(input.reshape(shape), repeats)




@export("repeat", namespace=None, method=True, opdef_of=_repeat)
def repeat(input, *sizes, repeats=None):
    return _repeat(input, varargs(sizes, repeats, "repeat", "repeats"))


@export("tile", method=True, opdef_of=_repeat)
@torch_function.input_overridable("torch.tile")
def tile(input, *args, dims=None):
    dims = varargs(args, dims, "tile", "dims")
    return _repeat(input, (1,) * (input.ndim - len(dims)) + dims)


@op("_repeat_interleave_int", method=False, out=False, saves=False, grad_name="ViewBackward0")
def _repeat_interleave_int(input, repeats, dim):
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    if dim is None:
        return jnp.repeat(input.reshape(-1), repeats)
    return jnp.repeat(input, repeats, axis=wrap_dim(dim, input.ndim))


@op("_repeat_interleave_tensor", method=False, out=False, saves=False, nondiff=("repeats",),
    grad_name="IndexSelectBackward0")
def _repeat_interleave_tensor(input, repeats, dim, output_size):
    if dim is None:
        input, dim = input.reshape(-1), 0
    d = wrap_dim(dim, input.ndim)
    if repeats.shape[0] == 1 and input.shape[d] != 1:
        repeats = jnp.broadcast_to(repeats, (input.shape[d],))
    return jnp.repeat(input, repeats, axis=d, total_repeat_length=output_size)


@export("repeat_interleave", method=True, opdef_of=_repeat_interleave_tensor)
def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Repeats elements; with tensor ``repeats`` the output size depends on their values, so
    it is read eagerly unless ``output_size`` is given (then it also runs under jit)."""

    if repeats is None:  # torch.repeat_interleave(repeats): indices repeated
        return _repeat_index(input, output_size)
    if not isinstance(repeats, TensorBase):
        return _repeat_interleave_int(input, int(repeats), dim)
    if repeats.ndim > 1:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    if repeats.dtype.category != dtypes.INT:
        raise NotImplementedError(f"\"repeat_interleave_cpu\" not implemented for "
                                  f"'{type_name(repeats.dtype)}'")
    n = input.numel() if dim is None else input.shape[wrap_dim(dim, input.ndim)]
    r = repeats.reshape(-1) if repeats.ndim == 0 else repeats
    if r.shape[0] != 1 and r.shape[0] != n:
        where = "input.size(0)" if dim is None else f"input.size({dim})"
        raise RuntimeError(f"repeats must have the same size as input along dim, but got "
                           f"repeats.size(0) = {r.shape[0]} and {where} = {n}")
    if output_size is None or not _is_traced(r):
        total = _concrete_total(r, n)
        if output_size is not None and output_size != total:
            raise RuntimeError("allocated size does not match required size")
        output_size = total
    return _repeat_interleave_tensor(input, r, dim, int(output_size))


def _is_traced(t):

    return isinstance(t._value, jax.core.Tracer)


def _concrete_total(r, n):

    if _is_traced(r):
        raise concretization_error("torch.repeat_interleave with tensor repeats and no "
                                   "output_size (the output size depends on the values)")
    v = np.asarray(r._value)
    if (v < 0).any():
        raise RuntimeError("repeats can not be negative")
    return int(v.sum()) if v.shape[0] != 1 else int(v[0]) * n


def _repeat_index(repeats, output_size):
    if repeats.ndim != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")

    idx = tensor(list(range(repeats.shape[0])), dtype=repeats.dtype, device=repeats.device)
    return repeat_interleave(idx, repeats, 0, output_size=output_size)


# ------------------------------------------------------------------------------ flip / roll
def _flip_dims(dims, ndim):
    dims = dims_arg(dims)
    seen = set()
    for d in dims:
        w = wrap_dim(d, ndim)
        if w in seen:
            raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
        seen.add(w)
    return tuple(seen)


@op("flip", method=False, out=False, saves=False)
def flip(input, dims):
    return jnp.flip(input, _flip_dims(dims, input.ndim)) if input.ndim else input


@export("flip", namespace=None, method=True, opdef_of=flip)
def _flip_method(input, *args, dims=None):
    return flip(input, varargs(args, dims, "flip", "dims"))


@op("fliplr", out=False, grad_name="FlipBackward0")
def fliplr(input):
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return jnp.flip(input, 1)


@op("flipud", out=False, grad_name="FlipBackward0")
def flipud(input):
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return jnp.flip(input, 0)


@op("roll", out=False, saves=False)
def roll(input, shifts, dims=None):
    shifts = dims_arg(shifts)
    dims = () if dims is None else dims_arg(dims)
    if not shifts:
        raise RuntimeError("`shifts` required")
    if not dims and len(shifts) == 1:
        if input.size == 0:
            return input
        return jnp.roll(input.reshape(-1), shifts[0]).reshape(input.shape)
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                           f"dims:{len(dims)}")
    dims = tuple(wrap_dim(d, input.ndim) for d in dims)
    if input.size == 0:
        return input
    return jnp.roll(input, shifts, dims)


@op("rot90", out=False, saves=False)
def rot90(input, k=1, dims=(0, 1)):
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    d0, d1 = wrap_dim(dims[0], input.ndim), wrap_dim(dims[1], input.ndim)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} "
                           f"and dim1 = {dims[1]}")
    return jnp.rot90(input, k, (d0, d1)) if k % 4 else input


# ------------------------------------------------------------------------------ triangles
def _tri(name, fn):
    def body(input, diagonal=0):
        if input.ndim < 2:
            raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
        return fn(input, diagonal)

    body.__name__ = name
    return op(name, inplace=True, saves=False)(body)


tril = _tri("tril", jnp.tril)
triu = _tri("triu", jnp.triu)


@op("_diag_from_vector", method=False, saves=False, grad_name="DiagEmbedBackward0")
def _diag_from_vector(input, diagonal=0):
    return jnp.diag(input, diagonal)


@op("_diag_of_matrix", method=False, saves=False, grad_name="DiagonalBackward0_copy")
def _diag_of_matrix(input, diagonal=0):
    return jnp.diagonal(input, diagonal)


@export("diag", method=True, opdef_of=_diag_from_vector)
def diag(input, diagonal=0, *, out=None):
    if input.ndim == 1:
        return _diag_from_vector(input, diagonal, out=out)
    if input.ndim == 2:
        return _diag_of_matrix(input, diagonal, out=out)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")


@op("diag_embed", out=False, saves=False)
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    n = input.ndim + 1
    d1, d2 = wrap_dim(dim1, n), wrap_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    m = input.shape[-1]
    size = m + abs(offset)
    i = jnp.arange(m)
    out = jnp.zeros(input.shape[:-1] + (size, size), input.dtype)
    out = out.at[..., i + max(-offset, 0), i + max(offset, 0)].set(input)
    return jnp.moveaxis(out, (-2, -1), (d1, d2))


@op("trace", out=False, saves=False)
def trace(input):
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    if input.dtype == jnp.bool_:
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    acc = jnp.int64 if jnp.issubdtype(input.dtype, jnp.integer) else input.dtype
    return jnp.trace(input, dtype=acc)


# ------------------------------------------------------------------------------ grids
@export("meshgrid")
def meshgrid(*tensors, indexing=None):
    """Coordinate grids; each output is a read-only expanded view of its input."""

    if len(tensors) == 1 and isinstance(tensors[0], (tuple, list)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the "
                      "indexing argument.", UserWarning, stacklevel=3)
        indexing = "ij"
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors:
        if t.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list "
                               f"but got: {t}")
    for t in tensors[1:]:
        if t.dtype is not tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but '
                           f"received: {indexing}")
    ts = list(tensors)
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = tuple(t.numel() for t in ts)
    grids = []
    for i, t in enumerate(ts):
        vs = [1] * len(ts)
        vs[i] = -1
        grids.append(_expand(_view(t, tuple(vs)), shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


@export("cartesian_prod")
def cartesian_prod(*tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (tuple, list)):
        tensors = tuple(tensors[0])
    for t in tensors:
        if t.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([flatten(g) for g in grids], 1)
