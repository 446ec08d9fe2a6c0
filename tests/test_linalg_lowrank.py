"""torch.svd_lowrank and torch.pca_lowrank against PyTorch 2.13.

The test matrices are drawn by each library's own generator, so results are compared where
the randomized algorithm is exact: on matrices of rank r <= q, both recover the singular values
(the trailing q - r are rounding noise), the singular vectors of the r nonzero ones up to sign,
and the gradients of those singular values with respect to A."""

import numpy as np
import pytest
import torch

import jtorch

RANK = 3


def _low_rank(shape, seed=0, rank=RANK):
    g = np.random.default_rng(seed)
    *batch, m, n = shape
    return g.standard_normal((*batch, m, rank)) @ g.standard_normal((*batch, rank, n))


def _run(T, fn, a, grad=True, **kwargs):
    A = T.tensor(a, requires_grad=grad)
    U, S, V = getattr(T, fn)(A, **kwargs)
    if grad:
        S[..., :RANK].sum().backward()
    return A, U, S, V


def _same_vectors(u_j, u_t):
    """Columns equal up to sign: |<u_j, u_t>| == 1 column by column."""
    dots = np.abs(np.sum(u_j * u_t, axis=-2))
    np.testing.assert_allclose(dots, 1.0, atol=1e-6)


@pytest.mark.parametrize("shape", [(20, 12), (12, 20), (2, 15, 9)], ids=["tall", "wide", "batched"])
def test_svd_lowrank_recovers_a_low_rank_matrix_as_pytorch(shape):
    a = _low_rank(shape)
    Aj, Uj, Sj, Vj = _run(jtorch, "svd_lowrank", a, q=5)
    At, Ut, St, Vt = _run(torch, "svd_lowrank", a, q=5)
    m, n = shape[-2:]
    assert tuple(Uj.shape) == tuple(Ut.shape) == (*shape[:-2], m, 5)
    assert tuple(Vj.shape) == tuple(Vt.shape) == (*shape[:-2], n, 5)
    assert Sj.dtype == jtorch.float64 and Uj.dtype == jtorch.float64
    sj, st = Sj.detach().numpy(), St.detach().numpy()
    np.testing.assert_allclose(sj[..., :RANK], st[..., :RANK], rtol=1e-10)
    assert np.abs(sj[..., RANK:]).max() < 1e-10 * st.max()
    _same_vectors(Uj.detach().numpy()[..., :RANK], Ut.detach().numpy()[..., :RANK])
    _same_vectors(Vj.detach().numpy()[..., :RANK], Vt.detach().numpy()[..., :RANK])
    rebuilt = Uj @ jtorch.diag_embed(Sj) @ Vj.mT
    np.testing.assert_allclose(rebuilt.detach().numpy(), a, atol=1e-10)
    np.testing.assert_allclose(Aj.grad.numpy(), At.grad.numpy(), atol=1e-9)


def test_svd_lowrank_with_m_factors_a_minus_m():
    a = _low_rank((16, 10), seed=1)
    m = np.random.default_rng(2).standard_normal((1, 10))
    a_plus = a + m   # a rank-3 matrix plus a broadcast row: A - M is rank 3 again
    Uj, Sj, Vj = jtorch.svd_lowrank(jtorch.tensor(a_plus), q=4, M=jtorch.tensor(m))
    Ut, St, Vt = torch.svd_lowrank(torch.tensor(a_plus), q=4, M=torch.tensor(m))
    np.testing.assert_allclose(Sj.numpy()[:RANK], St.numpy()[:RANK], rtol=1e-10)
    np.testing.assert_allclose((Uj @ jtorch.diag(Sj) @ Vj.mT).numpy(), a, atol=1e-10)


@pytest.mark.parametrize("center", [True, False])
def test_pca_lowrank_as_pytorch(center):
    g = np.random.default_rng(3)
    a = _low_rank((30, 8), seed=4) + (g.standard_normal((1, 8)) if center else 0.0)
    Aj, Uj, Sj, Vj = _run(jtorch, "pca_lowrank", a, center=center, q=4)
    At, Ut, St, Vt = _run(torch, "pca_lowrank", a, center=center, q=4)
    np.testing.assert_allclose(Sj.detach().numpy()[:RANK], St.detach().numpy()[:RANK],
                               rtol=1e-10)
    _same_vectors(Vj.detach().numpy()[:, :RANK], Vt.detach().numpy()[:, :RANK])
    np.testing.assert_allclose(Aj.grad.numpy(), At.grad.numpy(), atol=1e-9)


def test_pca_lowrank_default_q_and_float32():
    a = _low_rank((10, 4), seed=5).astype(np.float32)
    Uj, Sj, Vj = jtorch.pca_lowrank(jtorch.tensor(a))
    Ut, St, Vt = torch.pca_lowrank(torch.tensor(a))
    assert tuple(Uj.shape) == tuple(Ut.shape) == (10, 4)
    assert Sj.dtype == jtorch.float32 and Vj.dtype == jtorch.float32
    np.testing.assert_allclose(Sj.numpy()[:RANK], St.numpy()[:RANK], rtol=1e-4)


@pytest.mark.parametrize("kwargs", [{"q": 9}, {"q": -1}, {"niter": -1}])
def test_pca_lowrank_errors_as_pytorch(kwargs):
    a = np.ones((5, 8))
    with pytest.raises(ValueError) as ref:
        torch.pca_lowrank(torch.tensor(a), **kwargs)
    with pytest.raises(ValueError) as got:
        jtorch.pca_lowrank(jtorch.tensor(a), **kwargs)
    assert str(got.value) == str(ref.value)


def test_svd_lowrank_is_reproducible_under_a_seed_and_compiles():
    a = jtorch.tensor(_low_rank((12, 7), seed=6))
    jtorch.manual_seed(7)
    U1, S1, _ = jtorch.svd_lowrank(a, q=4)
    jtorch.manual_seed(7)
    U2, S2, _ = jtorch.svd_lowrank(a, q=4)
    assert np.array_equal(U1.numpy(), U2.numpy()) and np.array_equal(S1.numpy(), S2.numpy())
    compiled = jtorch.compile(lambda A: jtorch.svd_lowrank(A, q=4)[1])
    np.testing.assert_allclose(compiled(a).numpy()[:RANK], S1.numpy()[:RANK], rtol=1e-10)


def test_sparse_input_is_not_implemented():
    s = jtorch.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], (2, 2))
    with pytest.raises(NotImplementedError, match="svd_lowrank of a sparse tensor"):
        jtorch.svd_lowrank(s, q=1)
    with pytest.raises(NotImplementedError, match="pca_lowrank of a sparse tensor"):
        jtorch.pca_lowrank(s, q=1)
