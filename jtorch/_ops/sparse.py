"""Sparse COO tensors (``layout=torch.sparse_coo``): ``torch.sparse_coo_tensor``,
``Tensor.to_sparse`` / ``to_dense``, products with dense matrices, and what a graph network's
data preparation does with them.

A sparse tensor is a ``jtorch.Tensor`` whose ``_array`` is a
:class:`~jtorch._core.tensor_base.SparseStorage` (shape and dtype only) and whose ``_sparse``
field holds two ordinary tensors, ``indices`` (int64, ``sparse_dim x nnz``) and ``values``
(``nnz x dense dims``), and whether they are coalesced (sorted, no repeated index). Every
operation here is made of dense ops on ``values`` and the dense operand (``index_add``,
``index_select``, ``index_put``), so autograd, devices and dtypes come from those ops: the
gradient of a product reaches the dense operand, and the dense tensor a sparse one was made
from (``to_sparse`` gathers its values).

Any other op given a sparse operand raises PyTorch's NotImplementedError ("Could not run
'aten::exp' with arguments from the 'SparseCPU' backend"): dispatch hands it here when the
kernel refuses the storage. Indices are read on the host where their count depends on the
data (``to_sparse``, ``coalesce``), so those two need concrete tensors (not inside
``jtorch.compile``); the products and ``to_dense`` trace.
"""

from __future__ import annotations

import functools
import numbers
from typing import NamedTuple

import numpy as np

from .._core import dtypes
from .._core.dispatch import register_storage_handler
from .._core.layout import sparse_coo
from .._core.tensor_base import SparseStorage, TensorBase, to_numpy
from ._registry import export
from .convert import _parse
from .creation import register_empty_sparse, tensor as _tensor, zeros
from .shape_copy import cat

__all__ = ["sparse_coo_tensor", "spmm", "sparse_mm", "to_sparse", "to_dense", "coalesce",
           "is_coalesced", "indices", "values", "sparse_dim", "dense_dim", "sparse_to",
           "sparse_detach"]


class Coo(NamedTuple):
    """A sparse tensor's ``_sparse`` field."""

    indices: TensorBase   # int64, (sparse_dim, nnz)
    values: TensorBase    # (nnz, *dense_shape)
    coalesced: bool
    # the dense tensor ``to_sparse`` made it from, where that one requires grad: PyTorch's
    # torch.mm, matmul, spmm and add then give it the gradient of a dense operand (every
    # entry, not only the stored ones), so jtorch computes those with it
    source: TensorBase | None = None

    def tensors(self):
        """The tensors the sparse tensor reads (what jtorch.compile lifts as its state)."""
        return (self.indices, self.values) + (() if self.source is None else (self.source,))


def make(indices, values, size, coalesced, source=None):
    """The sparse COO tensor of ``indices`` and ``values`` with shape ``size``."""
    t = TensorBase._make(SparseStorage(size, values._value.dtype), values._device)
    t._sparse = Coo(indices, values, bool(coalesced), source)
    if values._requires_grad:   # (its graph goes through values: grad_fn stays None)
        t._requires_grad = True
    return t


def _coo(t, what):
    if not isinstance(t, TensorBase) or t._sparse is None:
        raise RuntimeError(f"{what} expected a sparse COO tensor (layout=torch.sparse_coo), "
                           f"got layout {getattr(t, 'layout', type(t).__name__)}")
    return t._sparse


# ------------------------------------------------------------------ making and reading
@export()
def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None, pin_memory=False,
                      requires_grad=False, check_invariants=None, is_coalesced=None):
    """``torch.sparse_coo_tensor``: the tensor with ``values[k]`` at ``indices[:, k]`` (not
    coalesced unless ``is_coalesced=True``; repeated indices add up in ``to_dense``)."""
    if requires_grad:
        raise NotImplementedError(
            "jtorch does not implement torch.sparse_coo_tensor(requires_grad=True) yet (a "
            "sparse leaf's gradient is sparse); make values require grad, or use a dense tensor")
    if not isinstance(indices, TensorBase):
        indices = _tensor(np.asarray(indices))
    if indices.dtype.category != dtypes.INT:
        raise RuntimeError(f"indices must be an int64 tensor, got {indices.dtype}")
    indices = indices.to(dtypes.int64)
    values = values if isinstance(values, TensorBase) else _tensor(values)
    if dtype is not None or device is not None:
        values = values.to(device=device, dtype=dtype)
    if device is not None:
        indices = indices.to(device)
    if indices.dim() != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {list(indices.shape)}")
    if indices.shape[1] != values.shape[0]:
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: "
                           f"{indices.shape[1]}, nnz from values: {values.shape[0]}")
    sparse_dims = indices.shape[0]
    if size is None:
        idx = to_numpy(indices._value)
        size = tuple(int(m) + 1 for m in idx.max(axis=1)) if idx.shape[1] else \
            (0,) * sparse_dims
        size = size + tuple(values.shape[1:])
    size = tuple(int(s) for s in size)
    if len(size) != sparse_dims + values.dim() - 1:
        raise RuntimeError(f"number of dimensions must be sparse_dim ({sparse_dims}) + "
                           f"dense_dim ({values.dim() - 1}), but got {len(size)}")
    if check_invariants if check_invariants is not None else _CHECK_INVARIANTS[0]:
        _check_indices(indices, size)
    # (PyTorch: a tensor of at most one entry is coalesced)
    return make(indices, values, size, bool(is_coalesced) or values.shape[0] < 2)


def empty_sparse(shape, sparse_dim, dtype, device):
    """A sparse COO tensor without entries (``zeros_like``/``empty_like`` of a sparse one,
    PyTorch's coalesced ``nnz == 0`` tensor)."""
    idx = zeros((sparse_dim, 0), dtype=dtypes.int64, device=device)
    vals = zeros((0, *shape[sparse_dim:]), dtype=dtype, device=device)
    return make(idx, vals, shape, True)


register_empty_sparse(empty_sparse)

_CHECK_INVARIANTS = [False]   # check_sparse_tensor_invariants' process-wide flag


def _check_indices(indices, size):
    """PyTorch's invariant checks of a COO tensor's indices (read on the host)."""
    idx = to_numpy(indices._value)
    if idx.shape[1] == 0:
        return
    for d, (lo, hi) in enumerate(zip(idx.min(axis=1), idx.max(axis=1))):
        if lo < 0:
            raise RuntimeError(f"found negative index {lo} for dim {d}")
        if hi >= size[d]:
            raise RuntimeError(f"size is inconsistent with indices: for dim {d}, size is "
                               f"{size[d]} but found index {hi}")


@export(namespace="sparse")
class check_sparse_tensor_invariants:  # noqa: N801 - PyTorch's name
    """``torch.sparse.check_sparse_tensor_invariants``: a context manager (and decorator) that
    turns on the invariant checks of ``torch.sparse_coo_tensor`` (indices within the size, none
    negative) where its ``check_invariants`` is not given; ``enable()``/``disable()`` set them
    for the process."""

    @staticmethod
    def is_enabled():
        return _CHECK_INVARIANTS[0]

    @staticmethod
    def enable():
        _CHECK_INVARIANTS[0] = True

    @staticmethod
    def disable():
        _CHECK_INVARIANTS[0] = False

    def __init__(self, enable=True):
        self.state = enable
        self.saved_state = None

    def __enter__(self):
        if self.saved_state is not None:
            raise RuntimeError("This context manager instance is already activated. Use a "
                               "different context manager instance for context nesting.")
        self.saved_state = _CHECK_INVARIANTS[0]
        _CHECK_INVARIANTS[0] = self.state

    def __exit__(self, *exc):
        _CHECK_INVARIANTS[0] = self.saved_state
        self.saved_state = None

    def __call__(self, fn):
        @functools.wraps(fn)
        def checked(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)
        return checked


@export(method=("to_sparse", "to_sparse_coo"), namespace=None)
def to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
    """``Tensor.to_sparse``: the nonzero entries (over the first ``sparse_dim`` dimensions) of
    a dense tensor as a coalesced COO tensor; its values are gathered from ``self``."""
    if layout not in (None, sparse_coo) or blocksize is not None:
        raise NotImplementedError(f"jtorch does not implement Tensor.to_sparse(layout="
                                  f"{layout}) yet: only sparse COO tensors")
    if self._sparse is not None:
        return self
    nd = self.dim() if sparse_dim is None else int(sparse_dim)
    if dense_dim is not None:
        nd = self.dim() - int(dense_dim)
    if not 0 < nd <= self.dim():
        raise RuntimeError(f"sparse_dim must be in [1, {self.dim()}], got {nd}")
    nonzero = to_numpy(self.detach()._value) != 0
    if nd < self.dim():
        nonzero = nonzero.any(axis=tuple(range(nd, self.dim())))
    idx = np.stack(np.nonzero(nonzero)).astype(np.int64).reshape(nd, -1)
    index = _tensor(idx, device=self.device)
    values = self[tuple(index[i] for i in range(nd))]
    return make(index, values, self.shape, True, self if values._requires_grad else None)


@export(method=True, namespace=None)
def to_dense(self, dtype=None, *, masked_grad=None):
    """``Tensor.to_dense``: a dense tensor (itself when dense); repeated indices add up."""
    if self._sparse is None:
        return self if dtype is None else self.to(dtype)
    idx, vals = self._sparse[:2]
    if dtype is not None:
        vals = vals.to(dtype)
    out = zeros(self.shape, dtype=vals.dtype, device=self.device)
    return out.index_put(tuple(idx[i] for i in range(idx.shape[0])), vals, accumulate=True)


@export(method=True, namespace=None)
def coalesce(self):
    """``Tensor.coalesce``: indices sorted (row-major), repeated ones merged by adding their
    values (themselves when already coalesced)."""
    idx, vals, done, _ = _coo(self, "coalesce")
    if done:
        return self
    host = to_numpy(idx._value)
    sparse_shape = self.shape[:host.shape[0]]
    flat = np.ravel_multi_index(tuple(host), sparse_shape) if host.shape[1] else \
        np.zeros(0, np.int64)
    uniq, inverse = np.unique(flat, return_inverse=True)
    new_idx = np.stack(np.unravel_index(uniq, sparse_shape)).astype(np.int64) \
        .reshape(host.shape[0], -1)
    summed = zeros((len(uniq),) + tuple(vals.shape[1:]), dtype=vals.dtype, device=vals.device)
    summed = summed.index_add(0, _tensor(inverse.reshape(-1), device=vals.device), vals)
    return make(_tensor(new_idx, device=idx.device), summed, self.shape, True)


@export(method=True, namespace=None)
def is_coalesced(self):
    return _coo(self, "is_coalesced").coalesced


@export(method="_coalesced_", namespace=None)
def set_coalesced_(self, coalesced):
    """``Tensor._coalesced_``: mark ``self`` coalesced (or not) in place, trusting the caller
    (PyTorch Geometric marks the sparse tensors it built sorted); returns ``self``."""
    if not isinstance(self, TensorBase) or self._sparse is None:
        raise NotImplementedError("Could not run 'aten::_coalesced_' with arguments from the "
                                  "'CPU' backend: it needs a sparse COO tensor")
    self._sparse = self._sparse._replace(coalesced=bool(coalesced))
    return self


def _check_coalesced(self, what):
    if not _coo(self, what).coalesced:
        raise RuntimeError(f"Cannot get {what} on an uncoalesced tensor, please call "
                           f".coalesce() first")


@export(method=True, namespace=None)
def indices(self):
    _check_coalesced(self, "indices")
    return self._sparse.indices


@export(method=True, namespace=None)
def values(self):
    _check_coalesced(self, "values")
    return self._sparse.values


@export(method="_indices", namespace=None)
def raw_indices(self):
    return _coo(self, "_indices").indices


@export(method="_values", namespace=None)
def raw_values(self):
    return _coo(self, "_values").values


@export(method="_nnz", namespace=None)
def nnz(self):
    return _coo(self, "_nnz").values.shape[0]


@export(method=True, namespace=None)
def sparse_dim(self):
    return 0 if self._sparse is None else self._sparse.indices.shape[0]


@export(method=True, namespace=None)
def dense_dim(self):
    return self.dim() if self._sparse is None else self._sparse.values.dim() - 1


def sparse_detach(self):
    """``Tensor.detach`` of a sparse tensor."""
    idx, vals, done, _ = self._sparse
    return make(idx, vals.detach(), self.shape, done)


def sparse_to(self, *args, **kwargs):
    """``Tensor.to`` of a sparse tensor: its values (and indices) moved or cast."""
    dtype, device, copy = _parse(args, kwargs)
    idx, vals, done, src = self._sparse
    new_vals = vals.to(device=device, dtype=dtype, copy=copy)
    new_idx = idx if device is None else idx.to(device)
    if new_vals is vals and new_idx is idx:
        return self
    return make(new_idx, new_vals, self.shape, done,
                None if src is None else src.to(device=device, dtype=dtype))


# ------------------------------------------------------------------ products
def _check_mm(a, b):
    for t, name in ((a, "mat1"), (b, "mat2")):
        if t.dim() != 2:
            raise RuntimeError(f"{name} must be a matrix, got {t.dim()}-D tensor")
        if t._sparse is not None and t._sparse.values.dim() != 1:
            raise NotImplementedError("jtorch does not implement products of hybrid sparse "
                                      "tensors (dense_dim > 0) yet")
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x"
                           f"{a.shape[1]} and {b.shape[0]}x{b.shape[1]})")


def _dense_source(t):
    """The dense tensor a sparse ``t`` was made from where it takes a dense gradient, else
    None."""
    return t._sparse.source if isinstance(t, TensorBase) and t._sparse is not None else None


def _as_source(t):
    """``t``, or the dense tensor it stands for (:func:`_dense_source`)."""
    src = _dense_source(t)
    return t if src is None else src


def _mm(a, b, masked=False):
    """``a @ b`` with one operand sparse: each stored entry scales a row (column) of the dense
    operand into a row (column) of the result. ``masked``: a sparse operand's gradient covers
    its stored entries only (torch.sparse.mm), else PyTorch's dense one (see Coo.source)."""
    if a._sparse is None and b._sparse is None:
        return a.mm(b)
    _check_mm(a, b)
    if a._sparse is not None and b._sparse is not None:
        return _sparse_sparse_mm(a, b)
    if not masked and (_dense_source(a) is not None or _dense_source(b) is not None):
        return _as_source(a).mm(_as_source(b))
    if a._sparse is not None:
        idx, vals = a._sparse[:2]
        terms = vals.unsqueeze(1) * b.index_select(0, idx[1])
        out = zeros((a.shape[0], b.shape[1]), dtype=terms.dtype, device=terms.device)
        return out.index_add(0, idx[0], terms)
    idx, vals = b._sparse[:2]
    terms = a.index_select(1, idx[0]) * vals
    out = zeros((a.shape[0], b.shape[1]), dtype=terms.dtype, device=terms.device)
    return out.index_add(1, idx[1], terms)


def _bmm(input, mat2):
    """``torch.bmm`` of a sparse ``input`` (batch, rows, columns all sparse) and a dense
    ``mat2``: each stored entry scales a row of its batch's ``mat2`` into a row of the result
    (dense), as :func:`_mm` does per matrix (torch-harmonics' DISCO convolution)."""
    if input._sparse is None:
        raise NotImplementedError("jtorch does not implement torch.bmm with a sparse mat2 and a "
                                  "dense self yet; convert with .to_dense() first")
    if mat2._sparse is not None:
        raise RuntimeError("bmm_sparse: Tensor 'mat2' must be dense")
    idx, vals = input._sparse[:2]
    if vals.dim() != 1:
        raise RuntimeError(f"bmm_sparse: Tensor 'self' must have 0 dense dims, but has "
                           f"{vals.dim() - 1}")
    if mat2.dim() != 3:
        raise RuntimeError(f"bmm_sparse: Tensor 'mat2' must have 3 dims, but has {mat2.dim()}")
    for i, j in ((0, 0), (2, 1)):
        if input.shape[i] != mat2.shape[j]:
            raise RuntimeError(f"bmm_sparse: 'self.size({i})' and 'mat2.size({j})' must match")
    rows = mat2.reshape(-1, mat2.shape[2]).index_select(0, idx[0] * mat2.shape[1] + idx[2])
    terms = vals.unsqueeze(1) * rows
    out = zeros((input.shape[0] * input.shape[1], mat2.shape[2]), dtype=terms.dtype,
                device=terms.device)
    return out.index_add(0, idx[0] * input.shape[1] + idx[1], terms).reshape(
        input.shape[0], input.shape[1], mat2.shape[2])


def _sparse_sparse_mm(a, b):
    """``a @ b`` of two sparse matrices: a coalesced sparse matrix with an entry wherever a
    stored ``a[i, k]`` meets a stored ``b[k, j]`` (a product that is 0 stays stored, as in
    PyTorch). The pairs are found on the host; the values are products of gathered ``values``,
    so the gradient reaches both operands' values."""
    (ia, va), (ib, vb) = a._sparse[:2], b._sparse[:2]
    ha, hb = to_numpy(ia._value), to_numpy(ib._value)
    order = np.argsort(hb[0], kind="stable")
    lo = np.searchsorted(hb[0], ha[1], side="left", sorter=order)
    counts = np.searchsorted(hb[0], ha[1], side="right", sorter=order) - lo
    pa = np.repeat(np.arange(len(counts)), counts)
    within = np.arange(len(pa)) - np.repeat(np.cumsum(counts) - counts, counts)
    pb = order[np.repeat(lo, counts) + within]
    pick_a, pick_b = (_tensor(p.astype(np.int64), device=va.device) for p in (pa, pb))
    idx = _tensor(np.stack((ha[0][pa], hb[1][pb])).astype(np.int64).reshape(2, -1),
                  device=ia.device)
    vals = va.index_select(0, pick_a) * vb.index_select(0, pick_b)
    return coalesce(make(idx, vals, (a.shape[0], b.shape[1]), False))


@export()
def spmm(input, mat2):
    """``torch.spmm``: ``input @ mat2`` with a sparse ``input`` (or a dense one)."""
    return _mm(input, mat2)


@export("mm", namespace="sparse")
def sparse_mm(sparse, dense, reduce=None):
    """``torch.sparse.mm``: the product of a sparse matrix with a dense one (dense), or with a
    sparse one (sparse, coalesced)."""
    if reduce is not None:
        raise NotImplementedError("jtorch does not implement torch.sparse.mm(reduce=...) yet")
    return _mm(sparse, dense, masked=True)


# ------------------------------------------------------------------ the layout's ops
def _is_scalar(x):
    return isinstance(x, numbers.Number) or (isinstance(x, TensorBase) and x._sparse is None
                                             and x.dim() == 0)


def _add(input, other, alpha=1):
    if input._sparse is None:   # dense + sparse: dense
        src = _dense_source(other)
        return input.add(to_dense(other) if src is None else src, alpha=alpha)
    if not isinstance(other, TensorBase) or other._sparse is None:
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) "
                           "instead.")
    if input.shape != other.shape:
        raise RuntimeError(f"add: expected 'self' and 'other' to have same size, but self has "
                           f"size {list(input.shape)} while other has size "
                           f"{list(other.shape)}")
    (ia, va), (ib, vb) = input._sparse[:2], other._sparse[:2]
    return coalesce(make(cat((ia, ib), 1), cat((va, vb * alpha)), input.shape, False))


def _values_op(fn):
    """An op that acts on the stored values only (``-s``, ``s * 2``, ``s.clone()``); the
    dense tensor the operand stands for (Coo.source) goes through it too, as in PyTorch."""

    def run(input, *args, **kwargs):
        idx, vals, done, src = input._sparse
        return make(idx, fn(vals, *args, **kwargs), input.shape, done,
                    None if src is None else fn(src, *args, **kwargs))

    return run


def _mul(input, other):
    if input._sparse is None:
        input, other = other, input
    if _is_scalar(other):
        return _values_op(lambda v: v * other)(input)
    if isinstance(other, TensorBase) and other._sparse is None and other.shape == input.shape:
        idx, vals, done, _ = input._sparse
        picked = other[tuple(idx[i] for i in range(idx.shape[0]))]
        return make(idx, vals * picked, input.shape, done)
    raise NotImplementedError("jtorch does not implement mul of a sparse tensor with a "
                              "sparse or broadcast operand yet")


def _div(input, other):
    if input._sparse is None or not _is_scalar(other):
        raise NotImplementedError("jtorch does not implement div with a sparse divisor or a "
                                  "tensor divisor yet")
    return _values_op(lambda v: v / other)(input)


def _transpose(input, dim0=0, dim1=1):
    idx, vals, done, src = input._sparse
    d0, d1 = (d % input.dim() for d in (dim0, dim1))
    n = idx.shape[0]
    if d0 >= n or d1 >= n:
        raise NotImplementedError("jtorch does not implement transposing a sparse tensor's "
                                  "dense dimensions yet")
    order = list(range(n))
    order[d0], order[d1] = order[d1], order[d0]
    shape = list(input.shape)
    shape[d0], shape[d1] = shape[d1], shape[d0]
    return make(idx[order], vals, shape, d0 == d1 and done,
                None if src is None else src.transpose(d0, d1))


def _sum(input, dim=None, keepdim=False, *, dtype=None):
    if dim is not None:
        raise NotImplementedError("jtorch does not implement sum over dimensions of a sparse "
                                  "tensor yet (torch.sparse.sum)")
    return input._sparse.values.sum(dtype=dtype)


def _index_select(input, dim, index):
    """The entries whose index along sparse dimension ``dim`` is selected, one copy per
    selection, renumbered, in PyTorch's order (by position in ``index``, then as stored);
    not coalesced (geoopt's sparse optimizers pick a gradient's rows)."""
    idx, vals, _, _ = input._sparse
    d = dim % input.dim()
    if d >= idx.shape[0]:
        raise NotImplementedError("jtorch does not implement index_select over a sparse "
                                  "tensor's dense dimensions yet")
    pos, ent = (index.reshape(-1)[:, None] == idx[d][None, :]).nonzero(as_tuple=True)
    new_idx = idx[:, ent].clone()
    new_idx[d] = pos
    shape = list(input.shape)
    shape[d] = index.numel()
    return make(new_idx, vals[ent], shape, False)


def _cat(tensors, dim=0):
    """``torch.cat`` of sparse tensors along a sparse dimension: the entries side by side, the
    later ones' indices shifted (not coalesced, as in PyTorch)."""
    tensors = list(tensors)
    for k, t in enumerate(tensors):
        if not isinstance(t, TensorBase) or t._sparse is None:
            raise RuntimeError(f"Concatenating sparse tensors, but a dense tensor was found at "
                               f"position {k}.")
    first = tensors[0]
    d = dim % first.dim()
    n = first._sparse.indices.shape[0]
    if d >= n or any(t._sparse.indices.shape[0] != n for t in tensors):
        raise NotImplementedError("jtorch does not implement torch.cat of sparse tensors along "
                                  "a dense dimension or with different sparse dimensions yet")
    shape, idx = list(first.shape), []
    for k, t in enumerate(tensors):
        if t.dim() != first.dim() or any(a != b for i, (a, b) in
                                         enumerate(zip(t.shape, first.shape)) if i != d):
            raise RuntimeError(f"All tensors must have the same shape: {list(first.shape)} "
                               f"(except in the concatenating dimension), but found shape: "
                               f"{list(t.shape)} at position {k}.")
        i = t._sparse.indices
        idx.append(cat((i[:d], i[d:d + 1] + (sum(u.shape[d] for u in tensors[:k])), i[d + 1:])))
    shape[d] = sum(t.shape[d] for t in tensors)
    return make(cat(idx, 1), cat([t._sparse.values for t in tensors]), shape,
                len(tensors) == 1 and first._sparse.coalesced)


def _sparse_dim_arg(input, dim, what):
    d = dim % input.dim()
    if d >= input._sparse.indices.shape[0]:
        raise NotImplementedError(f"jtorch does not implement {what} over a sparse tensor's "
                                  f"dense dimensions yet")
    return d


def _select(input, dim, index):
    """The entries at ``index`` along sparse dimension ``dim``, that dimension dropped (not
    coalesced unless at most one, as in PyTorch)."""
    idx, vals, _, _ = input._sparse
    d = _sparse_dim_arg(input, dim, "select")
    size = input.shape[d]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(input.shape)} at dimension {dim}")
    ent = np.nonzero(to_numpy(idx._value)[d] == index % size)[0]
    ent = _tensor(ent.astype(np.int64), device=idx.device)
    rows = [i for i in range(idx.shape[0]) if i != d]
    shape = input.shape[:d] + input.shape[d + 1:]
    return make(idx[rows][:, ent], vals.index_select(0, ent), shape, ent.shape[0] < 2)


def _unsqueeze(input, dim):
    """A new sparse dimension of size 1 (its index row all zeros) at ``dim``."""
    idx, vals, done, src = input._sparse
    d = dim % (input.dim() + 1)
    if d > idx.shape[0]:
        raise NotImplementedError("jtorch does not implement unsqueeze of a sparse tensor at a "
                                  "dense dimension yet")
    new_idx = cat((idx[:d], zeros((1, idx.shape[1]), dtype=idx.dtype, device=idx.device),
                   idx[d:]))
    return make(new_idx, vals, input.shape[:d] + (1,) + input.shape[d:], done,
                None if src is None else src.unsqueeze(d))


_ALL = slice(None)


def _getitem(input, spec, values):
    """``s[i]``, ``s[:, i]`` (and ``select``): :func:`_select`; other indexing is not
    implemented."""
    if spec[-1:] != ("i",) or any(s != _ALL for s in spec[:-1]):
        raise NotImplementedError("jtorch does not implement indexing a sparse tensor other "
                                  "than s[i], s[:, i] yet; use index_select or .to_dense()")
    return _select(input, len(spec) - 1, values[0])


_HANDLERS = {
    "getitem": _getitem,
    "select": _select,
    "unbind": lambda input, dim=0: tuple(_select(input, dim, i)
                                         for i in range(input.shape[dim])),
    "unsqueeze": _unsqueeze,
    "cat": _cat,
    "mm": _mm,
    "bmm": _bmm,
    "matmul": _mm,
    "add": _add,
    "sub": lambda input, other, alpha=1: _add(input, other, -alpha),
    "mul": _mul,
    "div": _div,
    "neg": _values_op(lambda v: -v),
    "clone": _values_op(lambda v, memory_format=None: v.clone()),
    "_to_dtype": _values_op(lambda v, dtype: v.to(dtype)),
    "t": _transpose,
    "transpose": _transpose,
    "sum": _sum,
    "index_select": _index_select,
}


def _run(opdef, args, kwargs):
    """dispatch's handler for an op with a sparse operand."""
    fn = _HANDLERS.get(opdef.name)
    if fn is None:
        raise NotImplementedError(
            f"Could not run 'aten::{opdef.name}' with arguments from the 'SparseCPU' backend. "
            f"jtorch's sparse COO tensors support to_dense, coalesce, mm/spmm/matmul with a "
            f"dense or sparse matrix, add, sub, cat, mul, div by a scalar, neg, t/transpose, "
            f"s[i], select/unbind, unsqueeze, sum and index_select; convert with .to_dense() first")
    return fn(*args, **kwargs)


register_storage_handler(SparseStorage, _run)
