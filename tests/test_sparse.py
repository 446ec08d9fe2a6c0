"""Sparse COO tensors against PyTorch: construction, printing, coalescing, to_sparse/to_dense,
products with dense matrices and their gradients (PyTorch's masked and dense ones), the
layout's arithmetic, errors, and a compiled step that uses a sparse matrix."""

import numpy as np
import pytest
import torch
from helpers import NoGrad, parity, raises_like

import jtorch

# PyTorch warns once per process that it does not check sparse invariants by default
pytestmark = pytest.mark.filterwarnings("ignore:Sparse invariant checks:UserWarning")

IDX = np.array([[0, 1, 1, 0, 2], [2, 0, 2, 2, 1]])      # (0, 2) twice: not coalesced
VALS = np.array([3.0, 4.0, 5.0, 1.0, -2.0], np.float32)
DENSE = np.array([[0.0, 2.0, 0.0], [3.0, 0.0, 0.5], [0.0, 0.0, -1.0]], np.float32)
RNG = np.random.default_rng(3)


def _coo(T, vals=VALS, size=(3, 3), **kw):
    vals = vals if isinstance(vals, T.Tensor) else T.tensor(vals)
    return T.sparse_coo_tensor(T.tensor(IDX), vals, *(() if size is None else (size,)), **kw)


def _both(fn):
    return fn(torch), fn(jtorch)


def _same_coo(t, j):
    assert j.is_sparse and j.layout is jtorch.sparse_coo
    assert (j.shape, str(j.dtype), j.is_coalesced(), j._nnz()) == \
        (t.shape, str(t.dtype), t.is_coalesced(), t._nnz())
    assert (j.sparse_dim(), j.dense_dim()) == (t.sparse_dim(), t.dense_dim())
    np.testing.assert_array_equal(j._indices().numpy(), t._indices().numpy())
    np.testing.assert_allclose(j._values().detach().numpy(), t._values().detach().numpy())


# ------------------------------------------------------------------ making and reading
@pytest.mark.parametrize("make", [
    lambda T: _coo(T),
    lambda T: _coo(T, size=None),
    lambda T: _coo(T, dtype=T.float64),
    lambda T: _coo(T, is_coalesced=False).coalesce(),
    lambda T: T.sparse_coo_tensor(IDX.astype(np.int32), VALS.tolist(), (3, 4)),
    lambda T: T.sparse_coo_tensor(T.tensor(IDX[:, :2], dtype=T.int32), T.ones(2, 2)),
    lambda T: T.sparse_coo_tensor(T.zeros(2, 0, dtype=T.long), T.zeros(0), (2, 2)),
    lambda T: T.tensor(DENSE).to_sparse(),
    lambda T: T.tensor(np.stack([DENSE, DENSE * 0])).to_sparse(2),
    lambda T: T.tensor(DENSE).to_sparse().to(T.float64),
    lambda T: _coo(T).t(),
    lambda T: _coo(T).coalesce().transpose(0, 1),
    lambda T: _coo(T).detach(),
    lambda T: -_coo(T),
    lambda T: _coo(T) * 2,
    lambda T: _coo(T) / 4,
    lambda T: _coo(T) * T.tensor(DENSE),
    lambda T: _coo(T) + _coo(T, T.tensor(VALS[::-1].copy())),
    lambda T: _coo(T).clone(),
], ids=["uncoalesced", "size_inferred", "dtype", "coalesce", "int32_and_lists", "hybrid",
        "empty", "to_sparse", "to_sparse_hybrid", "to_float64", "t", "transpose", "detach",
        "neg", "mul_scalar", "div_scalar", "mul_dense", "add_sparse", "clone"])
def test_sparse_tensors_equal_torch(make):
    t, j = _both(make)
    if t.is_coalesced() != j.is_coalesced():   # sparse + sparse: jtorch coalesces
        t = t.coalesce()
    _same_coo(t, j)
    np.testing.assert_allclose(j.to_dense().numpy(), t.to_dense().numpy())
    assert repr(j) == repr(t)
    c_t, c_j = t.coalesce(), j.coalesce()
    _same_coo(c_t, c_j)
    np.testing.assert_array_equal(c_j.indices().numpy(), c_t.indices().numpy())
    np.testing.assert_allclose(c_j.values().numpy(), c_t.values().numpy())


def test_printing_a_sparse_tensor_that_requires_grad():
    """jtorch's gradient goes through the values: no grad_fn of its own, so it prints
    requires_grad=True where PyTorch prints grad_fn=<ToSparseBackward1>."""
    t, j = _both(lambda T: T.tensor(DENSE, requires_grad=True).to_sparse())
    assert j.requires_grad == t.requires_grad
    assert repr(j) == repr(t).replace("grad_fn=<ToSparseBackward1>", "requires_grad=True")


def test_dense_tensor_methods():
    t, j = _both(lambda T: T.tensor(DENSE))
    assert (j.is_sparse, j.layout, j.to_dense() is j) == (t.is_sparse, jtorch.strided, True)
    assert (j.sparse_dim(), j.dense_dim()) == (t.sparse_dim(), t.dense_dim())
    assert j.to_sparse().to_sparse()._nnz() == 4


# ------------------------------------------------------------------ products and gradients
W = RNG.uniform(-1, 1, (3, 2)).astype(np.float32)
V = RNG.uniform(-1, 1, (4, 3)).astype(np.float32)


@pytest.mark.parametrize("fn", [
    lambda T, w: T.mm(_coo(T), w),
    lambda T, w: _coo(T) @ w,
    lambda T, w: T.matmul(_coo(T), w),
    lambda T, w: T.spmm(_coo(T), w),
    lambda T, w: T.sparse.mm(_coo(T), w),
    lambda T, w: _coo(T).mm(w),
    lambda T, w: _coo(T).t() @ w,
], ids=["mm", "matmul_op", "matmul", "spmm", "sparse_mm", "method", "transposed"])
def test_sparse_times_dense(fn):
    parity(fn, W, jit=True)


def test_dense_times_sparse():
    parity(lambda T, v: v @ _coo(T), V, jit=True)


def test_gradient_reaches_the_values():
    parity(lambda T, vals, w: T.mm(_coo(T, vals), w), VALS, W, jit=True)
    parity(lambda T, vals: _coo(T, vals).to_dense() * 2, VALS, jit=True)


@pytest.mark.parametrize("fn", [
    lambda T, x, w: T.sparse.mm(x.to_sparse(), w),    # masked: the stored entries only
    lambda T, x, w: T.mm(x.to_sparse(), w),           # dense: every entry (PyTorch's mm)
    lambda T, x, w: T.spmm(x.to_sparse(), w),
    lambda T, x, w: w.t() @ x.to_sparse().t(),
    lambda T, x, w: (T.ones(3, 3) + x.to_sparse()) * 2,
    lambda T, x, w: x.to_sparse().to_dense() @ w,     # masked
    lambda T, x, w: T.mm(-x.to_sparse() * 2, w),
    lambda T, x, w: T.mm(x.to_sparse().clone() / 4, w),
], ids=["sparse_mm_masked", "mm_dense", "spmm_dense", "dense_at_sparse", "add", "to_dense",
        "neg_mul", "clone_div"])
def test_gradient_through_to_sparse_as_pytorch(fn):
    parity(fn, DENSE, W, jit=False)


def test_sum_and_add_to_dense():
    parity(lambda T, x: x + _coo(T, dtype=T.int64, vals=VALS.astype(np.int64)), DENSE,
           jit=True)
    parity(lambda T, x: T.add(x, _coo(T), alpha=2), DENSE, jit=True)
    parity(lambda T, x: x - _coo(T), DENSE, jit=True)
    parity(lambda T, vals: _coo(T, vals).sum(), VALS, jit=True)


def test_a_compiled_step_with_a_sparse_matrix_equals_eager():
    """A graph-convolution step (a constant sparse adjacency times dense features) compiled
    by jtorch.compile equals the same steps run eagerly."""
    def run(compiled):
        jtorch.manual_seed(0)
        adj = _coo(jtorch).coalesce()
        lin = jtorch.nn.Linear(3, 2)
        opt = jtorch.optim.SGD(lin.parameters(), lr=0.1)
        x = jtorch.tensor(DENSE)

        def step():
            opt.zero_grad()
            loss = jtorch.spmm(adj, lin(x)).square().sum()
            loss.backward()
            opt.step()
            return loss

        f = jtorch.compile(step) if compiled else step
        return [float(f()) for _ in range(3)], lin.weight.detach().numpy()

    (l_e, w_e), (l_c, w_c) = run(False), run(True)
    np.testing.assert_allclose(l_c, l_e, rtol=1e-6)
    np.testing.assert_allclose(w_c, w_e, rtol=1e-6)


# ------------------------------------------------------------------ errors
@pytest.mark.parametrize("fn", [
    lambda T: _coo(T).indices(),
    lambda T: _coo(T).values(),
    lambda T: _coo(T) + T.ones(3, 3),
    lambda T: _coo(T).numpy(),
    lambda T: T.exp(_coo(T)),
], ids=["indices", "values", "add_sparse_dense", "numpy", "exp"])
def test_errors_as_torch(fn):
    try:
        fn(torch)
    except NotImplementedError as e:   # message: jtorch's own after PyTorch's first sentence
        with pytest.raises(NotImplementedError) as je:
            fn(jtorch)
        assert str(je.value).split(".")[0] == str(e).split(".")[0]
        return
    except BaseException:
        pass
    raises_like(lambda: fn(torch), lambda: fn(jtorch))


@pytest.mark.parametrize("fn", [
    lambda: _coo(jtorch).requires_grad_(),
    lambda: jtorch.save(_coo(jtorch), "unused.pt"),
    lambda: jtorch.sparse_coo_tensor(jtorch.tensor(IDX), jtorch.tensor(VALS), (3, 3),
                                     requires_grad=True),
    lambda: jtorch.tensor(DENSE).to_sparse(layout=jtorch.sparse_csr),
], ids=["leaf_requires_grad", "save", "requires_grad", "csr"])
def test_not_implemented_is_named(fn, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(NotImplementedError, match="jtorch does not implement"):
        fn()
    assert not (tmp_path / "unused.pt").exists()


def test_no_grad_input_stays_without_grad():
    parity(lambda T, w: T.mm(_coo(T), w), NoGrad(W), jit=False)


def test_torch_sparse_names_jtorch_lacks_are_named():
    assert jtorch.sparse.mm is not None
    with pytest.raises(NotImplementedError, match="torch.sparse.sum"):
        jtorch.sparse.sum  # noqa: B018 - the attribute access is what raises
