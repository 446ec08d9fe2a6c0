"""Regressions found by running kymatio, ptwt, torch-dct and torch-harmonics unchanged under
jtorch (scripts/real_drivers/signal_transforms.py, docs/real-programs.md): each test is a small
stand-in for what the library did, in plain torch-API code, run in jtorch and in real
PyTorch."""

import warnings

import numpy as np
import pytest
import torch

import jtorch


def _np(t):
    return t.detach().resolve_conj().cpu().numpy() if isinstance(t, torch.Tensor) else \
        np.asarray(t.detach()._value)


def _coo(T, idx, vals, size, requires_grad=False):
    v = T.tensor(vals, dtype=T.float64, requires_grad=requires_grad)
    return T.sparse_coo_tensor(T.tensor(idx), v, size), v


def test_check_family():
    # torch-harmonics' utils.check calls torch._check(cond, lambda: message) (AttributeError)
    for T in (jtorch, torch):
        T._check(True)
        T._check(True, lambda: "never called")
        T._check_tensor_all(T.tensor([True, True]))
    cases = [("_check", RuntimeError), ("_check_index", IndexError),
             ("_check_value", ValueError), ("_check_type", TypeError),
             ("_check_not_implemented", NotImplementedError)]
    for name, err in cases:
        for message in (None, lambda: "bad size 3"):
            got = []
            for T in (jtorch, torch):
                with pytest.raises(err) as info:
                    getattr(T, name)(False, message)
                got.append(str(info.value))
            assert got[0] == got[1], name
    for args in ((1,), (np.bool_(True),)):   # not a Python bool
        got = []
        for T in (jtorch, torch):
            with pytest.raises(TypeError) as info:
                T._check(*args)
            got.append(str(info.value))
        assert got[0] == got[1]
    got = []
    for T in (jtorch, torch):
        with pytest.raises(TypeError) as info:
            T._check(T.tensor(True))
        got.append(str(info.value))
        with pytest.raises(RuntimeError, match="some false"):
            T._check_tensor_all(T.tensor([True, False]), lambda: "some false")
        with pytest.raises(TypeError, match="must have dtype torch.bool"):
            T._check_tensor_all(T.tensor([1, 0]))
        with pytest.raises(RuntimeError, match="too big"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", FutureWarning)
                T._check_is_size(5, lambda: "too big", max=4)
    assert got[0] == got[1]


def test_sparse_times_sparse():
    # ptwt builds its boundary wavelet matrices with torch.sparse.mm(sparse, sparse)
    # (NotImplementedError); the result is sparse, coalesced, with a 0 product still stored
    a_idx, a_vals = [[0, 0, 1, 2, 2], [0, 1, 1, 0, 2]], [1.0, -1.0, 2.0, 0.5, 3.0]
    b_idx, b_vals = [[1, 0, 2, 1, 0], [0, 0, 2, 3, 0]], [1.0, 1.0, 7.0, -2.0, 4.0]
    got = []
    for T in (jtorch, torch):
        a, va = _coo(T, a_idx, a_vals, (3, 3), requires_grad=True)
        b, vb = _coo(T, b_idx, b_vals, (3, 4), requires_grad=True)   # b not coalesced
        for c in (T.sparse.mm(a, b), a @ b, T.mm(a, b)):
            assert c.layout == T.sparse_coo and c.is_coalesced()
        c = T.sparse.mm(a, b)
        (c.coalesce().values() * T.arange(1.0, c._nnz() + 1, dtype=T.float64)).sum().backward()
        got.append([_np(c.indices()), _np(c.values()), _np(c.to_dense()), _np(va.grad),
                    _np(vb.grad)])
        empty = T.sparse_coo_tensor(T.zeros(2, 0, dtype=T.long), T.zeros(0, dtype=T.float64),
                                    (3, 4))
        assert T.sparse.mm(a.detach(), empty)._nnz() == 0
        with pytest.raises(RuntimeError, match="cannot be multiplied"):
            T.sparse.mm(a, b.t())
    for x, y in zip(*got):
        np.testing.assert_allclose(x, y, rtol=1e-14)


def test_sparse_in_place_add_and_cat():
    # ptwt's _orth_by_qr: `result += addition_matrix` on sparse matrices did nothing;
    # its MatrixWavedec stacks the analysis matrices with torch.cat (NotImplementedError)
    got = []
    for T in (jtorch, torch):
        a, _ = _coo(T, [[0, 0, 1], [0, 1, 1]], [1.0, -1.0, 2.0], (2, 2))
        b, _ = _coo(T, [[1, 0], [0, 0]], [5.0, 7.0], (2, 2))
        c = a.clone()
        c += b
        c.add_(b, alpha=2)
        cat0, cat1 = T.cat([a, b]), T.cat([a, b.coalesce(), a], 1)
        assert cat0.layout == T.sparse_coo and not cat0.is_coalesced()
        with pytest.raises(RuntimeError, match="a dense tensor was found at position 1"):
            T.cat([a, b.to_dense()])
        with pytest.raises(RuntimeError):   # (the texts differ: jtorch's is dense cat's)
            T.cat([a, T.cat([b, b], 1)])
        got.append([_np(c.to_dense()), _np(cat0.to_dense()), list(cat0.shape),
                    _np(cat1.to_dense()), list(cat1.shape)])
    for x, y in zip(*got):
        np.testing.assert_array_equal(x, y)


def test_sparse_rows_select_unsqueeze():
    # ptwt's orthogonalization iterates over a sparse matrix's rows (unbind), selects rows and
    # unsqueezes them back to (1, n) before coalescing their indices
    got = []
    for T in (jtorch, torch):
        a, _ = _coo(T, [[0, 2, 1, 2, 0], [0, 1, 1, 2, 2]], [1.0, -1.0, 2.0, 3.0, 4.0], (3, 3))
        rows = list(a)
        picked = [a.select(0, 2), a.select(1, 1), a[1], a.select(0, -1)]
        ups = [r.unsqueeze(0).coalesce() for r in rows] + [a.unsqueeze(1)]
        got.append([[_np(r.to_dense()) for r in rows + picked],
                    [r.is_coalesced() for r in rows + picked],
                    [(_np(u._indices()), list(u.shape)) for u in ups]])
    assert got[0][1] == got[1][1]
    for x, y in zip(got[0][0], got[1][0]):
        np.testing.assert_array_equal(x, y)
    for (xi, xs), (yi, ys) in zip(got[0][2], got[1][2]):
        np.testing.assert_array_equal(xi, yi)
        assert xs == ys


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_compiled_function_of_complex_tensors_has_grad(dtype):
    # torch-harmonics' SpectralConvS2 contracts complex spectra with complex weights in a
    # torch.compile'd einsum: the output did not require grad (backward raised), and the
    # gradients to complex inputs were conjugated
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 1, 3, 5, 6)) + 1j * rng.standard_normal((2, 1, 3, 5, 6))
    w = rng.standard_normal((1, 3, 4, 5)) + 1j * rng.standard_normal((1, 3, 4, 5))
    r = rng.standard_normal(3)
    got = []
    for T in (jtorch, torch):
        def contract(ac, bc, T=T):
            return T.einsum("bgixy,giox->bgoxy", ac, bc)

        def real_out(ac, scale):   # a complex input, a real output
            return (ac.abs() ** 2 * scale).sum(dim=(0, 1, 2, 3))

        dt = getattr(T, dtype)
        fns = (contract, T.compile(contract)) if T is jtorch else (contract,)
        for fn in fns:
            xt = T.tensor(x, dtype=dt, requires_grad=True)
            wt = T.tensor(w, dtype=dt, requires_grad=True)
            y = fn(xt, wt)
            assert y.requires_grad
            (y.abs() ** 2).sum().backward()
            xr = T.tensor(x, dtype=dt, requires_grad=True)
            scale = T.tensor(r[:1], requires_grad=True)
            z = (T.compile(real_out) if fn is not contract else real_out)(xr, scale)
            (z * T.arange(6.0)).sum().backward()
            got.append([_np(y), _np(xt.grad), _np(wt.grad), _np(z), _np(xr.grad),
                        _np(scale.grad)])
    tol = 1e-4 if dtype == "complex64" else 1e-12
    for other in got[1:]:
        for a, b in zip(got[0], other):
            np.testing.assert_allclose(a, b, rtol=tol, atol=tol)
