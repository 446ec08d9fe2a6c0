"""How a view relates to its base: the link fields, and PyTorch's strides computed once.

A view is a Tensor with ``_base`` (the tensor that owns the storage) and ``_chain``, the view
steps from the base: ``((Kernel, output index or None), ...)``. jtorch stores every tensor as
its own dense array, so strides are not a storage fact here: they are what PyTorch *would*
report, which programs read (``stride()``, ``is_contiguous()``) and ``view()`` obeys. They are
computed when the view is made, from the parent's strides and the view op's ``stride_rule``,
and kept in ``_layout``.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from jax.errors import InconclusiveDimensionOperation

from .tensor_base import storage_root

# view ops whose outputs may have a stride-0 dim: in-place writes to them can be refused
_EXPANDING = frozenset({"expand", "broadcast_to", "expand_as"})


class _NoRule:
    """The layout of a view made by an op without a stride rule: asking for it raises."""

    __slots__ = ("op",)

    def __init__(self, op):
        self.op = op


def attach_view(r, src, kernel, idx):
    """Make output ``r`` (index ``idx`` of a multi-output view op, else None) of view kernel
    ``kernel`` applied to ``src`` a view of src's storage."""
    base = storage_root(src)
    r._base = base
    base._has_views = True
    r._chain = _extend(src._chain, kernel, idx)
    r._base_version = base._version_counter
    r._layout = _view_layout(src, r, kernel, idx)
    if src._detached:
        r._detached = True
        r._data_alias = src._data_alias
    if src._overlap or kernel.opdef.name in _EXPANDING:
        r._overlap = _has_zero_stride(r)
    if src._custom_fn_view:
        r._custom_fn_view = True


def _extend(chain, kernel, idx):
    """``chain`` with the link ``(kernel, idx)`` added. A reshape (``view``/``reshape``/
    ``flatten``) of a reshape is one reshape (row-major reshapes compose), so a loop that
    reshapes a view back and forth (torchkbnufft's ``image.view(...)`` per interpolation
    offset) keeps its chain short, as PyTorch's view is always (base, sizes, strides); it grew
    without end, each length a new kernel to compile for every write through the view."""
    if kernel.opdef.name == "view" and chain and chain[-1][1] is None \
            and chain[-1][0].opdef.name == "view":
        chain = chain[:-1]
    return chain + ((kernel, idx),)


def _view_layout(src, r, kernel, idx):
    rule = kernel.opdef.stride_rule
    if rule is None:
        return _NoRule(kernel.opdef.name)
    src_layout = src._layout if src._base is not None else None
    if isinstance(src_layout, _NoRule):
        return src_layout
    shape = tuple(src._array.shape)
    st, off = src_layout if src_layout is not None else (contiguous_strides(shape), 0)
    args, kwargs = kernel.spec.static_arguments()
    if not args:  # the tensor by keyword: torch.unsqueeze(input=x, dim=0), as autoray calls it
        first = kernel.opdef.params[0]
        args, kwargs = (first,), {k: v for k, v in kwargs.items() if k != first}
    if concrete_shape(shape) and concrete_shape(r._array.shape):
        st, off = rule(shape, st, off, tuple(r._array.shape), idx, *args[1:], **kwargs)
        return tuple(st), off
    try:   # a symbolic (jax.export dynamic) shape: strides are dimension expressions
        st, off = rule(shape, st, off, tuple(r._array.shape), idx, *args[1:], **kwargs)
    except (TypeError, InconclusiveDimensionOperation):
        return _NoRule(kernel.opdef.name + " of a symbolic (jax.export dynamic) shape")
    return tuple(st), off


def concrete_shape(shape):
    """Whether every size is a number (not a symbolic dimension of jax.export)."""
    return _concrete_tuple(tuple(shape))


@functools.lru_cache(maxsize=4096)
def _concrete_tuple(shape):
    return all(isinstance(d, (int, np.integer)) for d in shape)


def _has_zero_stride(t):
    """PyTorch refuses in-place writes to a tensor with a stride-0 dim of size > 1 (its
    has_internal_overlap); expanding to the same size, or selecting one row, stays writable."""
    shape = t._array.shape
    if 0 in shape:
        return False
    st, _ = strides(t)
    return any(s == 0 and n > 1 for s, n in zip(st, shape))


@functools.lru_cache(maxsize=1024)
def contiguous_strides(shape):
    s, acc = [], 1
    for d in reversed(shape):
        s.append(acc)
        acc *= max(d, 1)
    return tuple(reversed(s))


def strides(t):
    """``(strides, storage offset)`` of ``t`` as PyTorch reports them."""
    if t._base is None:
        return contiguous_strides(tuple(t._array.shape)), 0
    lay = t._layout
    if isinstance(lay, _NoRule):
        raise NotImplementedError(f"jtorch: stride() of a view made by {lay.op} is not "
                                  "implemented")
    return lay


def is_contiguous(t):
    if t._base is None or 0 in t._array.shape:
        return True
    st, _ = strides(t)
    expected = 1
    for size, s in zip(reversed(t._array.shape), reversed(st)):
        if size == 1:
            continue
        if s != expected:
            return False
        expected *= size
    return True


def view_strides(old_shape, old_strides, new_shape):
    """PyTorch's computeStride: strides for viewing (old_shape, old_strides) as new_shape,
    or None when that view is impossible without a copy."""
    if not concrete_shape(old_shape) or not concrete_shape(new_shape):
        # a symbolic (jax.export dynamic) dimension: a contiguous layout views as contiguous,
        # any other is copied (comparing symbolic sizes is undecidable in general)
        return contiguous_strides(tuple(new_shape)) \
            if tuple(old_strides) == contiguous_strides(tuple(old_shape)) else None
    if old_shape and tuple(old_strides) == contiguous_strides(old_shape):
        return contiguous_strides(tuple(new_shape))   # (callers checked the sizes agree)
    numel = math.prod(old_shape)
    if numel == 0:
        return contiguous_strides(tuple(new_shape)) if old_shape != tuple(new_shape) \
            else old_strides
    if not old_shape:  # a 0-d tensor views as anything of one element
        return (1,) * len(new_shape)
    new_strides = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base = old_strides[-1] if old_strides else 1
    tensor_numel, view_numel = 1, 1
    for d in range(len(old_shape) - 1, -1, -1):
        tensor_numel *= old_shape[d]
        if d == 0 or (old_shape[d - 1] != 1 and old_strides[d - 1] != tensor_numel * chunk_base):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_strides[view_d] = view_numel * chunk_base
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if d > 0:
                chunk_base = old_strides[d - 1]
                tensor_numel, view_numel = 1, 1
    if view_d != -1:
        return None
    return tuple(new_strides)
