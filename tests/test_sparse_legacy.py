"""The legacy sparse types against PyTorch: ``torch.sparse.FloatTensor(indices, values, size)``
and its other forms (Kipf's pygcn builds its adjacency matrix this way), their deprecation
warnings, ``isinstance``, ``Tensor.type()`` and ``torch.typename`` of sparse tensors, and a GCN
layer's product and gradient through such a matrix."""

import warnings

import numpy as np
import pytest
import torch
from helpers import raises_like

import jtorch
from jtorch._core import warn_once

pytestmark = pytest.mark.filterwarnings("ignore:torch.sparse.SparseTensor:UserWarning",
                                        "ignore:Sparse invariant checks:UserWarning")

IDX = np.array([[0, 1, 1, 2], [2, 0, 2, 1]])
VALS = np.array([3.0, 4.0, 5.0, -2.0], np.float32)


def _made(T, form):
    i, v = T.tensor(IDX), T.tensor(VALS)
    return {
        "indices_values_size": lambda: T.sparse.FloatTensor(i, v, T.Size([3, 4])),
        "size_keyword": lambda: T.sparse.FloatTensor(i, v, size=(3, 3)),
        "inferred_size": lambda: T.sparse.FloatTensor(i, v),
        "one_entry": lambda: T.sparse.FloatTensor(i[:, :1], v[:1], (3, 3)),
        "values_dtype_wins": lambda: T.sparse.LongTensor(i, v.double(), (3, 3)),
        "sizes": lambda: T.sparse.DoubleTensor(2, 3),
        "Size": lambda: T.sparse.IntTensor(T.Size([4])),
        "size_keyword_alone": lambda: T.sparse.FloatTensor(size=(2, 2)),
        "empty": lambda: T.sparse.HalfTensor(),
        "device": lambda: T.sparse.FloatTensor(i, v, (3, 3), device="cpu"),
    }[form]()


@pytest.mark.parametrize("form", ["indices_values_size", "size_keyword", "inferred_size",
                                  "one_entry", "values_dtype_wins", "sizes", "Size",
                                  "size_keyword_alone", "empty", "device"])
def test_constructor_as_torch(form):
    t, j = _made(torch, form), _made(jtorch, form)
    assert j.is_sparse and j.layout is jtorch.sparse_coo
    assert (tuple(j.shape), str(j.dtype), j._nnz(), j.is_coalesced(), j.sparse_dim()) == \
        (tuple(t.shape), str(t.dtype), t._nnz(), t.is_coalesced(), t.sparse_dim())
    np.testing.assert_array_equal(j._indices().numpy(), t._indices().numpy())
    np.testing.assert_array_equal(j.to_dense().numpy(), t.to_dense().numpy())
    assert j.type() == t.type() and jtorch.typename(j) == torch.typename(t)


# PyTorch's texts, as torch 2.13 prints them (it warns once per process, so a test cannot
# count on seeing them from torch itself)
@pytest.mark.parametrize("call, text", [
    (lambda T: T.sparse.FloatTensor(T.tensor(IDX), T.tensor(VALS), (3, 3)),
     "torch.sparse.SparseTensor(indices, values, shape, *, device=) is deprecated.  Please use "
     "torch.sparse_coo_tensor(indices, values, shape, dtype=, device=)."),
    (lambda T: T.sparse.FloatTensor(T.tensor(IDX), T.tensor(VALS)),
     "torch.sparse.SparseTensor(indices, values, *, device=) is deprecated.  Please use "
     "torch.sparse_coo_tensor(indices, values, dtype=, device=)."),
    (lambda T: T.sparse.FloatTensor(2, 3),
     "torch.sparse.SparseTensor(shape, *, device=) is deprecated.  Please use "
     "torch.sparse_coo_tensor(shape, dtype=, device=)."),
    (lambda T: T.sparse.FloatTensor(),
     "torch.sparse.SparseTensor() is deprecated.  Please use "
     "torch.sparse_coo_tensor((0,), dtype=)."),
], ids=["indices_values_size", "indices_values", "size", "empty"])
def test_deprecation_warned_once_per_process(call, text):
    warn_once.forget(text.split(" is deprecated")[0])
    with warnings.catch_warnings(record=True) as log:
        warnings.simplefilter("always")
        call(jtorch)
        call(jtorch)
    assert [str(w.message) for w in log if "SparseTensor" in str(w.message)] == [text]


def test_isinstance_tells_sparse_from_dense():
    for T in (torch, jtorch):
        s = T.sparse.FloatTensor(T.tensor(IDX), T.tensor(VALS), (3, 3))
        d = T.ones(2)
        got = (isinstance(s, T.sparse.FloatTensor), isinstance(s, T.FloatTensor),
               isinstance(s.double(), T.sparse.FloatTensor), isinstance(d, T.sparse.FloatTensor),
               isinstance(d, T.FloatTensor))
        assert got == (True, False, False, False, True), T.__name__
        assert (T.sparse.FloatTensor.is_sparse, T.sparse.FloatTensor.layout,
                T.sparse.FloatTensor.__module__, T.sparse.FloatTensor.__name__) == \
            (True, T.sparse_coo, "torch.sparse", "FloatTensor")


def test_type_casts_keep_the_layout():
    for T in (torch, jtorch):
        s = T.sparse.FloatTensor(T.tensor(IDX), T.tensor(VALS), (3, 3))
        for to in ("torch.sparse.DoubleTensor", T.sparse.DoubleTensor, "torch.DoubleTensor"):
            out = s.type(to)
            assert (out.is_sparse, out.dtype, out.type()) == \
                (True, T.float64, "torch.sparse.DoubleTensor"), (T.__name__, to)
        dense = T.ones(2).type("torch.sparse.DoubleTensor")
        assert (dense.is_sparse, dense.dtype) == (False, T.float64), T.__name__


@pytest.mark.parametrize("call", [
    lambda T: T.sparse.FloatTensor([1.0, 2.0]),
    lambda T: T.sparse.FloatTensor((2, 3)),
    lambda T: T.sparse.FloatTensor(T.ones(2)),
    lambda T: T.sparse.FloatTensor(T.tensor(IDX), T.tensor(VALS), (3, 3), 5),
    lambda T: T.sparse.FloatTensor(T.tensor(IDX), T.tensor(VALS), (3, 3), size=(3, 3)),
    lambda T: T.sparse.FloatTensor(T.tensor(IDX).int(), T.tensor(VALS), (3, 3)),
    lambda T: T.sparse.FloatTensor(T.tensor(IDX), T.tensor(VALS), (3, 3), dtype=T.float64),
    lambda T: T.sparse.FloatTensor(2, 3, device="cuda"),
], ids=["list", "tuple", "dense_tensor", "four_positional", "size_twice", "int32_indices",
        "dtype_keyword", "cuda"])
def test_errors_as_torch(call):
    raises_like(lambda: call(torch), lambda: call(jtorch))


def test_gcn_layer_through_a_legacy_sparse_matrix():
    """pygcn's GraphConvolution: ``spmm(adj, input @ weight) + bias``, the adjacency a
    ``torch.sparse.FloatTensor``; output and the parameters' gradients as PyTorch's."""
    rng = np.random.default_rng(0)
    x, w, b = (rng.standard_normal(s).astype(np.float32) for s in ((4, 5), (5, 2), (2,)))
    idx = np.array([[0, 1, 2, 3, 0, 2], [0, 1, 2, 3, 2, 0]])
    vals = np.array([0.5, 1.0, 0.5, 1.0, 0.5, 0.5], np.float32)
    results = []
    for T in (torch, jtorch):
        adj = T.sparse.FloatTensor(T.tensor(idx), T.tensor(vals), T.Size([4, 4]))
        weight, bias = T.tensor(w, requires_grad=True), T.tensor(b, requires_grad=True)
        out = T.spmm(adj, T.mm(T.tensor(x), weight)) + bias
        T.nn.functional.log_softmax(out, dim=1).sum().backward()
        results.append([out.detach().numpy(), weight.grad.numpy(), bias.grad.numpy()])
    for t, j in zip(*results):
        np.testing.assert_allclose(j, t, rtol=1e-6, atol=1e-6)
