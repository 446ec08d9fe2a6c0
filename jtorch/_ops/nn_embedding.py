"""nn.functional ops: embedding and embedding_bag.

The lookup is one op (gather forward, scatter-add vjp backward). ``padding_idx`` rows get no
gradient and ``scale_grad_by_freq`` divides each row's gradient by its count in the batch, both
done inside the body by routing the value through ``stop_gradient`` (the forward values are
unchanged, only the derivative is masked or scaled). ``max_norm`` renormalises the referenced
rows of the weight in place first, as PyTorch's ``embedding_renorm_``.
"""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import numpy as np

from .._core import dtypes
from .._core.state import grad_mode
from .._core.tensor_base import TensorBase
from .._core.views import assign
from ._index_util import concrete, first_oob
from ._registry import export, op
from ._util import type_name
from .creation import zeros
from .creation_math import arange


def _check_indices(indices, what):
    if indices.dtype not in (jnp.int64, jnp.int32):
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the "
                           f"following scalar types: Long, Int; but got torch."
                           f"{type_name(indices)}Tensor instead (while "
                           f"checking arguments for {what})")


def _bounds_check(weight, indices, *rest, **kw):
    """Eager bounds check (PyTorch's IndexError); skipped while tracing."""

    if isinstance(indices, TensorBase) and isinstance(weight, TensorBase) and weight.ndim == 2:
        v = concrete(indices)
        if v is not None and v.dtype.kind in "iu" and \
                first_oob(v, weight.shape[0], False) is not None:
            raise IndexError("index out of range in self")


def _bag_bounds_check(weight, input, *rest, **kw):

    if isinstance(input, TensorBase) and isinstance(weight, TensorBase) and weight.ndim == 2:
        v = concrete(input)
        if v is not None and v.dtype.kind in "iu":
            n = weight.shape[0]
            bad = (v < 0) | (v >= n)
            if bad.any():
                i = int(np.argmax(bad.reshape(-1)))
                raise RuntimeError(f"Index {i} of input takes value {int(v.reshape(-1)[i])} "
                                   f"which is not in the valid range [0, {n})")


def _grad_scaled(rows, scale):
    """``rows`` in value, ``rows * scale`` in derivative."""
    fixed = jax.lax.stop_gradient(rows)
    return fixed + (rows - fixed) * scale


def _lookup(weight, flat, padding_idx, scale_grad_by_freq):
    rows = jnp.take(weight, flat, axis=0, mode="clip")
    if scale_grad_by_freq:
        counts = jnp.zeros(weight.shape[0], weight.dtype).at[flat].add(1)
        rows = _grad_scaled(rows, (1 / jnp.take(counts, flat, mode="clip"))[:, None])
    if padding_idx is not None and padding_idx >= 0:
        pad = (flat == padding_idx)[:, None]
        rows = jnp.where(pad, jax.lax.stop_gradient(rows), rows)
    return rows


@op("_embedding", method=False, out=False, tensors=("weight",), nondiff=("indices",),
    grad_name="EmbeddingBackward0", saves=False, check=_bounds_check)
def _embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False):
    _check_indices(indices, "embedding")
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    rows = _lookup(weight, indices.reshape(-1), padding_idx, scale_grad_by_freq)
    return rows.reshape(indices.shape + (weight.shape[1],))


@op("_embedding_renorm", method=False, out=False, differentiable=False, tensors=("weight",))
def _embedding_renorm(weight, indices, max_norm, norm_type):
    used = jnp.zeros(weight.shape[0], bool).at[indices.reshape(-1)].set(True)
    w = weight.astype(jnp.float32) if weight.dtype in (jnp.float16, jnp.bfloat16) else weight
    if norm_type == float("inf"):
        norms = jnp.max(jnp.abs(w), axis=1)
    else:
        norms = jnp.sum(jnp.abs(w) ** norm_type, axis=1) ** (1.0 / norm_type)
    scale = jnp.where(used & (norms > max_norm), max_norm / (norms + 1e-7), 1.0)
    return (w * scale[:, None].astype(w.dtype)).astype(weight.dtype)


@export("embedding_renorm_")
def embedding_renorm_(input, indices, max_norm, norm_type):
    """``torch.embedding_renorm_``: rescale the rows of ``input`` that ``indices`` names to
    norm at most ``max_norm`` (in place, not recorded by autograd)."""

    with grad_mode(False):
        new = _embedding_renorm(input, indices, float(max_norm), float(norm_type))
        assign(input, TensorBase._make(new._array, new._device))
    return input


def _padding(padding_idx, n, msg="Padding_idx must be within num_embeddings"):
    if padding_idx is None:
        return -1
    if padding_idx > 0 and padding_idx >= n:
        raise AssertionError(msg)
    if padding_idx < 0:
        if padding_idx < -n:
            raise AssertionError(msg)
        padding_idx = n + padding_idx
    return padding_idx


@export("embedding", namespace="nn.functional")
def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """``sparse=True`` gives a dense gradient (jtorch has no sparse tensors)."""
    padding_idx = _padding(padding_idx, weight.size(0))
    if max_norm is not None:
        embedding_renorm_(weight, input, max_norm, norm_type)
    return _embedding(weight, input, padding_idx, bool(scale_grad_by_freq))


@export("embedding")
def torch_embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    return _embedding(weight, indices, padding_idx, bool(scale_grad_by_freq))


# ------------------------------------------------------------------------ embedding_bag
@op("_embedding_bag", method=False, out=False, tensors=("weight", "per_sample_weights"),
    nondiff=("input", "offsets"), grad_name="EmbeddingBagBackward0", check=_bag_bounds_check)
def _embedding_bag(weight, input, offsets, mode, per_sample_weights, include_last_offset,
                   padding_idx, scale_grad_by_freq):
    _check_indices(input, "embedding_bag")
    if offsets.dtype not in (jnp.int64, jnp.int32):
        raise RuntimeError(f"Expected tensor for argument #2 'offsets' to have one of the "
                           f"following scalar types: Long, Int; but got torch."
                           f"{type_name(offsets)}Tensor instead (while "
                           f"checking arguments for embedding_bag)")
    n = input.shape[0]
    nbags = offsets.shape[0] - 1 if include_last_offset else offsets.shape[0]
    nbags = max(nbags, 0)
    pos = jnp.arange(n)
    seg = jnp.searchsorted(offsets, pos, side="right") - 1
    if include_last_offset and offsets.shape[0]:
        seg = jnp.where(pos >= offsets[-1], nbags, seg)
    seg = jnp.where(seg < 0, nbags, seg)  # positions before offsets[0] belong to no bag
    keep = seg < nbags
    if padding_idx is not None and padding_idx >= 0:
        keep = keep & (input != padding_idx)
    rows = _lookup(weight, input, None, scale_grad_by_freq)
    d = weight.shape[1]
    if mode == 2:  # max: the first maximal element of each bag and dim takes the gradient
        vals = jnp.where(keep[:, None], rows, -jnp.inf)
        best = jax.ops.segment_max(jax.lax.stop_gradient(vals), seg, nbags + 1)[:nbags]
        hit = keep[:, None] & (vals == best[jnp.minimum(seg, nbags - 1)])
        first = jax.ops.segment_min(jnp.where(hit, pos[:, None], n), seg, nbags + 1)[:nbags]
        found = first < n
        src = jnp.take(input, jnp.minimum(first, max(n - 1, 0)), mode="clip")
        out = weight[src, jnp.arange(d)[None, :]] if n else jnp.zeros((nbags, d), weight.dtype)
        return jnp.where(found, out, 0).astype(weight.dtype)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights[:, None].astype(rows.dtype)
    rows = jnp.where(keep[:, None], rows, 0)
    out = jax.ops.segment_sum(rows, jnp.where(keep, seg, nbags), nbags + 1)[:nbags]
    if mode == 1:
        count = jax.ops.segment_sum(keep.astype(rows.dtype), jnp.where(keep, seg, nbags),
                                    nbags + 1)[:nbags]
        out = out / jnp.maximum(count, 1)[:, None]
    return out.astype(weight.dtype)


@export("embedding_bag", namespace="nn.functional")
def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2,
                  scale_grad_by_freq=False, mode="mean", sparse=False, per_sample_weights=None,
                  include_last_offset=False, padding_idx=None):
    """``sparse=True`` gives a dense gradient (jtorch has no sparse tensors)."""
    if weight.dtype == dtypes.int64 and input.is_floating_point():
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage "
                      "`embedding_bag(weight, input, ...)` is deprecated, and should now be "
                      "`embedding_bag(input, weight, ...)`.", stacklevel=2)
        weight, input = input, weight
    if per_sample_weights is not None and input.size() != per_sample_weights.size():
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) "
                         "is not None, then it must have the same shape as the input "
                         f"({input.shape})")
    if weight.dim() != 2:
        raise ValueError("weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            kind = "<class 'torch.Tensor'>" if isinstance(offsets, TensorBase) else \
                str(type(offsets))
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated "
                             "is a mini-batch of fixed length sequences. However, found "
                             f"offsets of type {kind}")
        offsets = arange(0, input.numel(), max(input.size(1), 1), dtype=input.dtype,
                                device=input.device)
        if input.size(1) == 0:
            offsets = zeros(input.size(0), dtype=input.dtype, device=input.device)
        include_last_offset = False
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError("input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.dim()}")
    modes = {"sum": 0, "mean": 1, "max": 2}
    if mode not in modes:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max":
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    if max_norm is not None:
        embedding_renorm_(weight, input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. "
                                  "per_sample_weights is only supported for mode='sum' "
                                  f"(got mode='{mode}'). Please open a feature request on "
                                  "GitHub.")
    if padding_idx is not None:
        n = weight.size(0)
        if not -n <= padding_idx < n:
            raise RuntimeError(f"padding_idx must be within the number of embeddings, {-n} "
                               f"through {n - 1}, but got {padding_idx}")
        padding_idx %= n
    return _embedding_bag(weight, input, offsets, modes[mode], per_sample_weights,
                          bool(include_last_offset), padding_idx, bool(scale_grad_by_freq))
