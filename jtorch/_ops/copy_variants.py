"""The ``*_copy`` functions (``torch.t_copy``, ``torch.slice_copy``...): a view op's values as a
new tensor, not a view.

One helper, :func:`_copy_variant`, makes each of them from its view op: run the view, then
``clone`` each result (differentiable through both; the result owns its storage, contiguous).
``out=`` takes a tensor (resized as PyTorch does) or, for the ops returning a list of tensors
(``split_copy``, ``split_with_sizes_copy``, ``unbind_copy``), a list of tensors of the right
shapes; PyTorch's list forms return None.

Differences from PyTorch: the grad_fn is ``CloneBackward0`` (PyTorch's is ``TBackward0_copy``
and the like); the gradients are the same.
"""

from __future__ import annotations

import operator

from .._core.state import grad_mode
from .._core.views import assign_out
from ._registry import export
from .creation import copy_
from .indexing import getitem
from .shape import permute, squeeze, t, transpose, unsqueeze, view
from .shape_complex import view_as_complex, view_as_real
from .shape_copy import clone
from .shape_expand import expand
from .shape_slice import as_strided, diagonal, select, split, split_with_sizes, unbind, unfold
from .typeinfo import detach


def _write_list(name, results, out):
    if len(out) != len(results):
        raise RuntimeError(f"{name} expected an out= argument of size {len(results)}, got size "
                           f"{len(out)}")
    for o, r in zip(out, results):
        copy_(o, r)   # PyTorch copies each piece in: broadcast, cast, never resized


def _copy_variant(name, view_fn, out_name=None):
    """``torch.<name>``: ``view_fn``'s results, cloned; ``out_name`` is the overload PyTorch's
    list-length message names (the list forms only)."""

    def fn(input, *args, out=None, **kwargs):
        if out is None:
            res = view_fn(input, *args, **kwargs)
            return tuple(clone(r) for r in res) if isinstance(res, (tuple, list)) else clone(res)
        with grad_mode(False):   # PyTorch's out= forms of these record no history
            res = view_fn(input, *args, **kwargs)
            if isinstance(res, (tuple, list)):
                _write_list(out_name or name, [clone(r) for r in res], out)
                return None
            if out.dtype is not res.dtype:
                raise RuntimeError(f"Expected out tensor to have dtype {res.dtype.cpp_name}, but "
                                   f"got {out.dtype.cpp_name} instead")
            assign_out(out, clone(res))
        return out

    fn.__name__ = fn.__qualname__ = name
    base = getattr(view_fn, "__name__", name[:-5]).lstrip("_")
    fn.__doc__ = (f"Performs the same operation as ``torch.{base}``, but the output is a new "
                  "tensor (not a view of ``input``).")
    return export(name)(fn)


def _alias(input):
    return input


def _slice(input, dim=0, start=None, end=None, step=1):
    if input.ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    step = operator.index(step)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    d = operator.index(dim)
    d = d + input.ndim if d < 0 else d
    return getitem(input, (slice(None),) * d + (slice(start, end, step),))


def _expand(input, size, *, implicit=False):
    return expand(input, size)


def _permute(input, dims):
    return permute(input, dims)


def _view(input, size):
    return view(input, size) if isinstance(size, (tuple, list)) else view(input, dtype=size)


def _unfold(input, dimension, size, step):
    return unfold(input, dimension, size, step)


alias_copy = _copy_variant("alias_copy", _alias)
as_strided_copy = _copy_variant("as_strided_copy", as_strided)
detach_copy = _copy_variant("detach_copy", detach)
diagonal_copy = _copy_variant("diagonal_copy", diagonal)
expand_copy = _copy_variant("expand_copy", _expand)
permute_copy = _copy_variant("permute_copy", _permute)
select_copy = _copy_variant("select_copy", select)
slice_copy = _copy_variant("slice_copy", _slice)
split_copy = _copy_variant("split_copy", split, "split_copy_Tensor_out()")
split_with_sizes_copy = _copy_variant("split_with_sizes_copy", split_with_sizes,
                                      "split_with_sizes_copy_out()")
squeeze_copy = _copy_variant("squeeze_copy", squeeze)
t_copy = _copy_variant("t_copy", t)
transpose_copy = _copy_variant("transpose_copy", transpose)
unbind_copy = _copy_variant("unbind_copy", unbind, "unbind_copy_int_out")
unfold_copy = _copy_variant("unfold_copy", _unfold)
unsqueeze_copy = _copy_variant("unsqueeze_copy", unsqueeze)
view_copy = _copy_variant("view_copy", _view)
view_as_real_copy = _copy_variant("view_as_real_copy", view_as_real)
view_as_complex_copy = _copy_variant("view_as_complex_copy", view_as_complex)
