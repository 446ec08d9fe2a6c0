"""Regressions found by running kymatio, ptwt, torch-dct and torch-harmonics unchanged under
jtorch (scripts/real_drivers/signal_transforms.py, docs/real-programs.md): each test is a small
stand-in for what the library did, in plain torch-API code, run in jtorch and in real
PyTorch."""

import warnings

import numpy as np
import pytest
import torch
from helpers import raises_like

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


def test_compiled_method_leaves_unwritten_parameters_unmodified():
    """torch-harmonics' SpectralConvS2: an op saves a view of the spectral bias, then a
    compiled method of the same module runs; the backward must not report the bias as
    modified in place (jtorch.compile bumped the version of every state tensor it lifted)."""
    def run(T):
        class Layer(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.bias = T.nn.Parameter(T.tensor([[0.5, -1.0], [2.0, 0.25]]))
                self.weight = T.nn.Parameter(T.tensor([[1.5, 0.5], [-0.5, 1.0]]))

            @T.compile
            def contract(self, a, w):
                return T.einsum("bi,io->bo", a, w)

            def forward(self, x):
                x = x + x.sum() * T.view_as_real(T.view_as_complex(self.bias))[..., 0]
                return self.contract(x, self.weight)

        layer = Layer()
        x = T.tensor([[1.0, 2.0], [3.0, -4.0]])
        out = layer(x)
        versions = (layer.bias._version, layer.weight._version)
        (out ** 2).sum().backward()
        return out.detach(), versions, layer.bias.grad, layer.weight.grad

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # torch.compile's own notes on this CPU
        t, j = run(torch), run(jtorch)
    assert j[1] == t[1] == (0, 0)
    for a, b in zip((t[0], t[2], t[3]), (j[0], j[2], j[3])):
        np.testing.assert_allclose(_np(b), _np(a), rtol=1e-6)


def test_sparse_bmm_and_invariant_checks():
    """torch-harmonics' DISCO convolution: a 3-d sparse psi times a dense batch by torch.bmm,
    made under torch.sparse.check_sparse_tensor_invariants."""
    idx = [[0, 0, 1, 1, 1], [0, 2, 1, 0, 2], [3, 1, 0, 2, 2]]
    vals = [0.5, -1.0, 2.0, 1.5, 0.25]
    dense = np.arange(24, dtype=np.float64).reshape(2, 4, 3) / 7
    res = []
    for T in (torch, jtorch):
        with T.sparse.check_sparse_tensor_invariants():
            assert T.sparse.check_sparse_tensor_invariants.is_enabled()
            psi, v = _coo(T, idx, vals, (2, 3, 4), requires_grad=True)
        assert not T.sparse.check_sparse_tensor_invariants.is_enabled()
        d = T.tensor(dense, requires_grad=True)
        out = T.bmm(psi, d)
        (out ** 2).sum().backward()
        res.append((out, v.grad, d.grad))
    for a, b in zip(*res):
        np.testing.assert_allclose(_np(b), _np(a), rtol=1e-12)


@pytest.mark.parametrize("idx, size", [([[0, 1], [1, 2]], (2, 2)), ([[0, -1], [1, 0]], (2, 2))],
                         ids=["too_large", "negative"])
def test_invariant_check_errors_as_torch(idx, size):
    def make(T):
        with T.sparse.check_sparse_tensor_invariants():
            return _coo(T, idx, [1.0, 2.0], size)

    raises_like(lambda: make(torch), lambda: make(jtorch))
    for T in (torch, jtorch):   # checks off (the default) and explicitly off: no error
        _coo(T, idx, [1.0, 2.0], size)
        with T.sparse.check_sparse_tensor_invariants():
            T.sparse_coo_tensor(T.tensor(idx), T.tensor([1.0, 2.0]), size, check_invariants=False)
    c = jtorch.sparse.check_sparse_tensor_invariants()
    with c, pytest.raises(RuntimeError, match="already activated"):
        with c:
            pass


@pytest.mark.parametrize("make", [
    lambda T, s: T.zeros_like(s),
    lambda T, s: T.empty_like(s, dtype=T.float32),
    lambda T, s: T.zeros_like(s.to_dense(), layout=T.sparse_coo),
    lambda T, s: T.zeros_like(s) + s,
], ids=["zeros_like", "empty_like_dtype", "dense_to_sparse_layout", "plus_sparse"])
def test_zeros_like_of_sparse_is_sparse(make):
    """ptwt's Gram-Schmidt orthogonalisation starts from torch.zeros_like(sparse matrix)."""
    res = []
    for T in (torch, jtorch):
        s, _ = _coo(T, [[0, 1, 1], [2, 0, 1]], [1.0, -2.0, 3.0], (2, 3))
        r = make(T, s)
        res.append((r.layout.__repr__(), r.dtype.__repr__(), tuple(r.shape), r._nnz(),
                    r.sparse_dim(), _np(r.to_dense())))
    t, j = res
    assert j[:5] == t[:5]
    np.testing.assert_array_equal(j[5], t[5])


def test_full_like_of_sparse_raises_as_torch():
    def call(T):
        s, _ = _coo(T, [[0, 1], [2, 0]], [1.0, -2.0], (2, 3))
        return T.ones_like(s)
    with pytest.raises(NotImplementedError) as t:
        call(torch)
    with pytest.raises(NotImplementedError) as j:
        call(jtorch)
    assert str(j.value).split(".")[0] == str(t.value).split(".")[0]
