"""aten operators that PyTorch has no ``torch.<name>`` for, as ``torch.ops.aten.<name>``
(jtorch/ops.py looks names up here before jtorch's functions and Tensor methods).

``__torch_dispatch__`` subclasses (PyTorch Geometric's ``EdgeIndex`` and ``Index``) name them
in their dispatch tables and call them on the data they wrap: ``aten.slice.Tensor(x, dim,
start, end, step)``, ``aten.index.Tensor(x, [None, idx])``, ``aten._to_copy.default(x,
dtype=...)``. Each is a composition of jtorch's ops, so autograd flows through it.

``STAND_INS`` are private aten operators the same tables name that jtorch does not implement:
reading one gives an operator (so such a table can be built), calling it raises
NotImplementedError naming it.
"""

from __future__ import annotations

import builtins

from .._core.errors import not_implemented
from .convert import to
from .indexing import getitem
from .shape import view_as
from .tensor_storage import pin_memory

__all__ = ["ATEN_ONLY", "STAND_INS"]


def alias(self):
    """``aten.alias``: a view of all of ``self`` (writes to either show in the other)."""
    return view_as(self, self)


def slice(self, dim=0, start=None, end=None, step=1):  # noqa: A001 - aten's name
    """``aten.slice.Tensor``: ``self[..., start:end:step, ...]`` along ``dim`` (a view;
    bounds are clamped as Python's slices clamp them)."""
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    dim = dim + self.dim() if dim < 0 else dim
    return getitem(self, (builtins.slice(None),) * dim + (builtins.slice(start, end, step),))


def index(self, indices):
    """``aten.index.Tensor``: advanced indexing by a list of index tensors, one per leading
    dimension, where None keeps that dimension whole (``x[:, idx]`` is ``index(x, [None,
    idx])``)."""
    return getitem(self, tuple(builtins.slice(None) if i is None else i for i in indices))


def _to_copy(self, *, dtype=None, layout=None, device=None, pin_memory=None,
             non_blocking=False, memory_format=None):
    """``aten._to_copy``: a new tensor with ``self``'s values, converted to ``dtype`` and
    ``device`` where given (``Tensor.to(..., copy=True)``); ``pin_memory`` changes nothing
    (jtorch's host arrays need no pinning; PyTorch's CPU build accepts it too)."""
    if layout is not None and str(layout) != "torch.strided":
        raise not_implemented(f"torch.ops.aten._to_copy to layout {layout}")
    return to(self, device=device, dtype=dtype, non_blocking=non_blocking, copy=True,
              memory_format=memory_format)


def _pin_memory(self, device=None):
    """``aten._pin_memory``: ``Tensor.pin_memory``'s copy."""
    return pin_memory(self, device)


ATEN_ONLY = {"alias": alias, "slice": slice, "index": index, "_to_copy": _to_copy,
             "_pin_memory": _pin_memory}

# PyTorch's private operators that PyTorch Geometric's EdgeIndex names (jtorch has no sparse
# CSR matmul kernels); reading one works, calling it raises NotImplementedError
STAND_INS = ("_sparse_addmm", "_sparse_mm_reduce_impl")
