"""``torch._higher_order_ops.associative_scan.associative_scan``: an inclusive scan with an
associative ``combine_fn``.

PyTorch runs ``combine_mode="generic"`` eagerly as its ``generic_associative_scan``: the scan
dimension is moved first, ``combine_fn`` (vmapped over it, so it sees one element's shape) is
applied to neighbouring pairs, the half-length result is scanned recursively and the even
positions are filled in from it (about ``2 log2 n`` batched calls). jtorch runs the same
recursion with its own ops, so the values are combined in the same order and gradients flow
through the ordinary tape. ``combine_mode="pointwise"`` needs CUDA or XPU tensors, as in
PyTorch (which compiles a kernel there); jtorch runs the same recursion for them.

Hugging Face transformers' Mamba imports it on PyTorch 2.9 and later.
"""

from __future__ import annotations

from .._core.tensor_base import wrap_dim
from .._ops.shape_copy import cat, stack
from .._tensor import Tensor
from ..func import vmap
from ..utils import _pytree as pt

__all__ = ["associative_scan"]


def associative_scan(combine_fn, xs, dim, reverse=False, combine_mode="pointwise"):
    """An inclusive scan of ``xs`` (a tensor or a pytree of same-shaped tensors) along ``dim``:
    output ``i`` is ``combine_fn`` folded over elements ``0..i`` (``i..n-1`` when ``reverse``).

    Args:
        combine_fn: ``(pytree, pytree) -> pytree``, associative and pure; it is vmapped over
            the scan dimension, so it sees the shape of one element.
        xs: a tensor or a pytree of tensors, all with the same shape.
        dim: the dimension to scan over.
        reverse: scan from the end.
        combine_mode: ``"generic"``, or ``"pointwise"`` (CUDA or XPU tensors only).

    Example::

        >>> associative_scan(lambda a, b: a + b, jtorch.arange(1.0, 5.0), 0,
        ...                  combine_mode="generic")
        tensor([ 1.,  3.,  6., 10.])
    """
    leaves, spec = pt.tree_flatten(xs)
    dim = wrap_dim(dim, leaves[0].ndim)
    _validate(combine_fn, leaves, dim, reverse, combine_mode)
    leaves = [x.movedim(dim, 0) for x in leaves]
    if reverse:
        leaves = [x.flip([0]) for x in leaves]
    in_dims = pt.tree_unflatten([0] * len(leaves), spec)
    batched = vmap(combine_fn, in_dims=(in_dims, in_dims), out_dims=0)
    n = len(leaves)

    def combine(left, right):
        out = pt.tree_leaves(batched(pt.tree_unflatten(left, spec),
                                     pt.tree_unflatten(right, spec)))
        if len(out) != n:
            raise AssertionError(f"Combine_fn received wrong number of arguments, expected "
                                 f"{2 * n}, but got {2 * len(out)}")
        return out

    out = _scan(combine, leaves)
    if reverse:
        out = [x.flip([0]) for x in out]
    return pt.tree_unflatten([x.movedim(0, dim) for x in out], spec)


def _validate(combine_fn, leaves, dim, reverse, combine_mode):
    """PyTorch's argument checks, with its exception types and texts."""
    if not callable(combine_fn):
        raise ValueError(f"Combine_fn must be a callable, but got {combine_fn}")
    if not isinstance(dim, int):
        raise ValueError("Dim must be an int, but got " + str(type(dim)))
    if not isinstance(reverse, bool):
        raise RuntimeError("Reverse must be a bool, but got " + str(type(reverse)))
    if combine_mode not in ("pointwise", "generic"):
        raise ValueError(f"Combine_mode must either 'pointwise' or 'generic', but got "
                         f"{combine_mode}")
    if not leaves:
        raise ValueError("Expected at least 1 xs leaf")
    if any(not isinstance(x, Tensor) for x in leaves):
        raise ValueError("xs leaves must be a Tensor")
    if combine_mode == "pointwise" and not all(x.device.type in ("cuda", "xpu")
                                               for x in leaves):
        raise ValueError("For combine_mode='pointwise', all input tensors need to be on CUDA "
                         "or XPU")
    if any(x.is_sparse for x in leaves):
        raise ValueError("xs leaves must dense Tensors, consider using `to_dense()`")
    if any(x.ndim <= dim or x.shape[dim] == 0 for x in leaves):
        raise ValueError("All xs leaves must at least have 'dim' number of dimensions and scan "
                         "dimension > 0")


def _scan(combine, elems):
    """PyTorch's ``generic_associative_scan`` recursion along dimension 0."""
    n = elems[0].shape[0]
    if n < 2:
        return elems
    odd = _scan(combine, combine([e[0:-1:2] for e in elems], [e[1::2] for e in elems]))
    if n % 2 == 0:
        even = combine([e[0:-1] for e in odd], [e[2::2] for e in elems])
    else:
        even = combine(odd, [e[2::2] for e in elems])
    even = [cat([e[0:1], r]) if r.numel() > 0 else e[0:1] for e, r in zip(elems, even)]
    return [_interleave(a, b) for a, b in zip(even, odd)]


def _interleave(a, b):
    """``a[0], b[0], a[1], b[1], ...`` along dimension 0 (``a`` may be one longer)."""
    both = stack([a[:b.shape[0]], b], 1).flatten(0, 1)
    return cat([both, a[b.shape[0]:]]) if a.shape[0] > b.shape[0] else both
