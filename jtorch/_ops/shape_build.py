"""Ops that lay existing values out in a new shape: block_diag, diagflat, combinations,
unravel_index, and the index factories tril_indices / triu_indices.

Which positions each output takes depends only on shapes and static arguments, so the index
tables are computed on the host (NumPy, itertools) and the values gathered or placed inside the
kernel: the ops run under a trace and differentiate through the gather.
"""

from __future__ import annotations

import itertools
import operator

import jax.numpy as jnp
import numpy as np

from .._core import dtypes
from .._core.state import STATE, grad_mode
from ._registry import export, op
from ._util import type_name
from .creation import finish, zeros


# ------------------------------------------------------------------------------ block_diag
@op("block_diag", namespace=None, method=False, out=False, tensors=("tensors",),
    promote="common", saves=False)
def _block_diag(tensors):
    blocks = []
    for i, t in enumerate(tensors):
        if t.ndim > 2:
            raise RuntimeError("torch.block_diag: Input tensors must have 2 or fewer "
                               f"dimensions. Input {i} has {t.ndim} dimensions")
        blocks.append(t.reshape((1,) * (2 - t.ndim) + t.shape))
    rows = sum(b.shape[0] for b in blocks)
    cols = sum(b.shape[1] for b in blocks)
    out = jnp.zeros((rows, cols), blocks[0].dtype)
    r = c = 0
    for b in blocks:
        out = out.at[r:r + b.shape[0], c:c + b.shape[1]].set(b)
        r, c = r + b.shape[0], c + b.shape[1]
    return out


@export("block_diag", opdef_of=_block_diag)
def block_diag(*tensors):
    """A block diagonal matrix of the given tensors (0-d: 1x1, 1-D: one row, 2-D)."""
    if not tensors:
        return zeros(1, 0)
    return _block_diag(list(tensors))


# ------------------------------------------------------------------------------ diagflat
@op("diagflat", out=False, saves=False, grad_name="DiagEmbedBackward0")
def diagflat(input, offset=0):
    """A 2-D matrix with the flattened ``input`` on diagonal ``offset``."""
    return jnp.diag(input.reshape(-1), offset)


# ------------------------------------------------------------------------------ combinations
@op("combinations", namespace=None, method=False, out=False, saves=False,
    grad_name="StackBackward0")
def _combinations(input, r=2, with_replacement=False):
    if input.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return jnp.zeros((0,), input.dtype)
    pick = (itertools.combinations_with_replacement if with_replacement
            else itertools.combinations)
    idx = np.array(list(pick(range(input.shape[0]), r)), np.int64).reshape(-1, r)
    return input[idx]


@export("combinations", opdef_of=_combinations)
def combinations(input, r=2, with_replacement=False):
    """The length-``r`` combinations of a 1-D tensor's elements, in itertools' order, as the
    rows of an ``(n_combinations, r)`` tensor (``r=0``: a new empty 1-D tensor, outside
    autograd, as PyTorch's)."""
    with grad_mode(STATE.grad_enabled and r != 0):
        return _combinations(input, r, with_replacement)


# ------------------------------------------------------------------------------ unravel_index
def _unravel_shape(shape):
    """PyTorch's checks of ``shape`` (a Python function there: TypeError and ValueError)."""
    if isinstance(shape, int):
        return (shape,)
    if not isinstance(shape, (tuple, list)):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    for d in shape:
        if not isinstance(d, int):
            raise TypeError(f"expected 'shape' sequence to only contain ints, but got {type(d)}")
    if any(d < 0 for d in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {tuple(shape)}")
    return tuple(shape)


@op("unravel_index", namespace=None, method=False, out=False, tensors=("indices",),
    differentiable=False)
def _unravel_index(indices, shape):
    coefs = list(itertools.accumulate(reversed(shape[1:] + (1,)), operator.mul))[::-1]
    out = jnp.floor_divide(indices[..., None].astype(jnp.int64), jnp.array(coefs, jnp.int64))
    out = out % jnp.array(shape, jnp.int64).reshape(-1)
    return tuple(out[..., i] for i in range(len(shape)))


@export("unravel_index", opdef_of=_unravel_index)
def unravel_index(indices, shape):
    """The coordinates in an array of ``shape`` of the flat ``indices`` (one int64 tensor per
    dimension, each of ``indices``' shape; values wrap around as PyTorch's floor division and
    remainder do)."""
    if indices.dtype.category != dtypes.INT:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    return _unravel_index(indices, _unravel_shape(shape))


# ------------------------------------------------------------------------------ tril/triu_indices
def _tri_indices(name, np_fn, row, col, offset, dtype, device, layout):
    dt = dtypes.int64 if dtype is None else dtypes.to_dtype(dtype)
    if dt not in (dtypes.int64, dtypes.int32):
        raise NotImplementedError(f'"{name}" not implemented for \'{type_name(dt)}\'')
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    if row == 0 or col == 0:
        idx = np.zeros((2, 0), np.int64)
    else:
        idx = np.stack(np_fn(row, offset, col))
    return finish(idx.astype(dt.np), device, False, None, layout)


@export()
def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None,
                 pin_memory=False):
    """The (row, column) coordinates of the lower triangle (on and below diagonal ``offset``)
    of a ``row x col`` matrix, as a ``2 x N`` tensor in row-major order."""
    return _tri_indices("tril_indices", np.tril_indices, row, col, offset, dtype, device,
                        layout)


@export()
def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None,
                 pin_memory=False):
    """The coordinates of the upper triangle (on and above diagonal ``offset``) of a
    ``row x col`` matrix, as a ``2 x N`` tensor in row-major order."""
    return _tri_indices("triu_indices", np.triu_indices, row, col, offset, dtype, device,
                        layout)

