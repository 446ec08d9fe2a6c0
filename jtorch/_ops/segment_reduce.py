"""``torch.segment_reduce`` (also ``torch._segment_reduce``, the name PyTorch Geometric's
``utils.segment`` and aggregations with ``ptr`` call): reductions over contiguous segments of
one axis, given by their lengths or offsets.

It is a composition of jtorch's ops: each element's segment is found with ``searchsorted`` in
the offsets, then ``index_add`` (sum, mean) or ``scatter_reduce`` (prod, amax, amin) reduce
into one row per segment, so the gradients are theirs, which are PyTorch's: a maximum's
gradient is shared equally by the elements that tie for it, a product's handles zeros.

PyTorch's semantics: ``initial`` takes part in every segment (a sum adds it, a mean divides
``initial + sum`` by the segment's length, a max or min compares with it, a product multiplies
by it), and is what an empty segment gives; without it an empty segment gives 0 (sum), NaN
(mean), -inf/inf (max/min) or 1 (prod). Offsets, when given, win over lengths; elements before
the first offset or from the last on belong to no segment. A segment's max or min that is
``initial`` gives its elements no gradient; one that ties with ``initial`` gives them all of it
(PyTorch counts the tying elements only).

Differences from PyTorch:
    - The checks of the lengths' and offsets' values (negative lengths, lengths not summing to
      the axis' size, decreasing offsets) run eagerly and are skipped under a trace.
"""

from __future__ import annotations

import math

from .._core import dtypes
from ._index_util import concrete
from ._registry import export
from .compare import where
from .creation import full
from .creation_math import arange
from .cumulative import cumsum
from .pointwise import div
from .scatter import index_add, scatter_reduce
from .selection import searchsorted
from .shape_copy import cat

__all__ = ["segment_reduce"]

_REDUCES = {"sum": "sum", "mean": "mean", "prod": "prod", "max": "amax", "amax": "amax",
            "min": "amin", "amin": "amin"}


def _offsets(data, lengths, offsets, axis, unsafe):
    """The offsets (``batch... x segments+1``) and the wrapped axis, after PyTorch's checks."""
    if offsets is None and lengths is None:
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined.")
    given, name = (offsets, "offsets") if offsets is not None else (lengths, "lengths")
    axis = axis + data.dim() if axis < 0 else axis
    if axis != given.dim() - 1:
        raise RuntimeError(f"segment_reduce(): Expected axis to be the last dimension of {name} "
                           f"but got {axis}.")
    if given.dtype.category >= dtypes.FLOAT:
        raise NotImplementedError(f'"_segment_reduce_{name}_cpu_kernel1" not implemented for '
                                  f"'{given.dtype.scalar_name}'")
    host = concrete(given)
    if offsets is None:
        if host is not None and (host < 0).any():
            raise RuntimeError("lengths contains negative value!")
        if host is not None and not unsafe and (host.sum(-1) != data.shape[axis]).any():
            raise RuntimeError("segment_reduce(): Expected all rows of lengths along axis to "
                               "sum to data.size(lengths.dim()-1) when !unsafe.")
        zero = full(tuple(lengths.shape[:-1]) + (1,), 0, dtype=lengths.dtype,
                    device=lengths.device)
        offsets = cat([zero, cumsum(lengths, -1)], -1)
    elif host is not None and (host[..., 1:] < host[..., :-1]).any():
        raise RuntimeError("Expected segment_length >= 0 to be true, but got false.  (Could "
                           "this error message be improved?  If so, please report an "
                           "enhancement request to PyTorch.)")
    return offsets, axis


@export(("segment_reduce", "_segment_reduce"))
def segment_reduce(data, reduce, *, lengths=None, indices=None, offsets=None, axis=0,
                   unsafe=False, initial=None):
    """Reduce ``data`` over contiguous segments of ``axis`` (see the module's notes).

    Args:
        data: the tensor to reduce (floating point).
        reduce: ``"sum"``, ``"mean"``, ``"prod"``, ``"max"``/``"amax"`` or ``"min"``/``"amin"``.
        lengths, offsets: each segment's length, or the segments' boundaries
            (``segments + 1`` of them), along their last dimension; leading dimensions, if
            any, are ``data``'s before ``axis`` (one row of segments per index there).
        axis: the reduced dimension, the last one of ``lengths``/``offsets``.
        unsafe: skip the check that the lengths sum to the axis' size.
        initial: a number that takes part in every segment.

    Returns:
        ``data`` with ``axis`` of size ``segments``.
    """
    if indices is not None:
        raise RuntimeError("segment_reduce(): indices based reduction is not supported yet.")
    if reduce not in _REDUCES:
        raise RuntimeError("reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    if data.dtype.category < dtypes.FLOAT or data.dtype.category == dtypes.COMPLEX:
        raise NotImplementedError(f'"_segment_reduce_cpu" not implemented for '
                                  f"'{data.dtype.scalar_name}'")
    offsets, axis = _offsets(data, lengths, offsets, axis, unsafe)
    batch, n, rest = tuple(data.shape[:axis]), data.shape[axis], tuple(data.shape[axis + 1:])
    rows, segments = math.prod(batch), offsets.shape[-1] - 1
    # each element's segment, -1 before the first offset and `segments` from the last one on;
    # those go to a spare row (index `segments` of their batch row), dropped at the end
    bounds = offsets.reshape(rows, segments + 1)
    positions = arange(n, device=data.device).expand(rows, n).contiguous()
    seg = searchsorted(bounds, positions, right=True) - 1
    seg = where((seg < 0) | (seg >= segments), segments, seg)
    index = (seg + arange(rows, device=data.device).unsqueeze(1) * (segments + 1)).reshape(-1)
    flat = data.reshape((rows * n,) + rest)
    out_shape = (rows * (segments + 1),) + rest
    kind = _REDUCES[reduce]
    if kind in ("sum", "mean"):
        out = index_add(full(out_shape, 0 if initial is None else initial, dtype=data.dtype,
                             device=data.device), 0, index, flat)
    elif kind == "prod":
        out = scatter_reduce(full(out_shape, 1 if initial is None else initial,
                                  dtype=data.dtype, device=data.device), 0,
                             _expanded(index, flat), flat, "prod")
    else:
        out = scatter_reduce(full(out_shape, -math.inf if kind == "amax" else math.inf,
                                  dtype=data.dtype, device=data.device), 0,
                             _expanded(index, flat), flat, kind, include_self=False)
        if initial is not None:   # where, not maximum: a tie gives the elements all the grad
            keep = out >= initial if kind == "amax" else out <= initial
            out = where(keep, out, full((), initial, dtype=data.dtype, device=data.device))
    out = out.reshape((rows, segments + 1) + rest)[:, :segments]
    if kind == "mean":
        count = (bounds[:, 1:] - bounds[:, :-1]).to(data.dtype).reshape(
            (rows, segments) + (1,) * len(rest))
        mean = div(out, where(count == 0, 1, count))
        empty = math.nan if initial is None else initial
        out = where(count == 0, full((), empty, dtype=data.dtype, device=data.device), mean)
    return out.reshape(batch + (segments,) + rest)


def _expanded(index, src):
    """``index`` (one per row of ``src``) broadcast to ``src``'s shape, as scatter takes it."""
    return index.reshape((-1,) + (1,) * (src.dim() - 1)).expand(src.shape)
