"""torch.signal.windows: every window's values, dtype and gradients against PyTorch (symmetric
and periodic, lengths 0 to 10, the window parameters), its keyword arguments and errors."""

import numpy as np
import pytest
import torch
from helpers import assert_close, raises_like

import jtorch

NAMES = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_hamming",
         "hamming", "hann", "kaiser", "nuttall"]


def _both(name, *args, **kw):
    t = getattr(torch.signal.windows, name)(*args, **kw)
    jkw = {k: (getattr(jtorch, str(v)[6:]) if isinstance(v, torch.dtype) else v)
           for k, v in kw.items()}
    j = getattr(jtorch.signal.windows, name)(*args, **jkw)
    return t, j


def test_namespace():
    assert sorted(jtorch.signal.windows.__all__) == sorted(torch.signal.windows.__all__)
    assert jtorch.signal.__all__ == ["windows"]
    import jtorch.signal.windows as w
    assert w.hann is jtorch.signal.windows.hann


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("M", [0, 1, 2, 5, 10])
@pytest.mark.parametrize("sym", [True, False])
@pytest.mark.parametrize("dtype", [None, torch.float64])
def test_values(name, M, sym, dtype):
    t, j = _both(name, M, sym=sym, dtype=dtype)
    assert_close(j, t, atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("name,kw", [
    ("exponential", {"tau": 2.5}), ("exponential", {"center": 1.5, "sym": False}),
    ("gaussian", {"std": 0.4}), ("kaiser", {"beta": 0.0}), ("kaiser", {"beta": 3.5}),
    ("general_hamming", {"alpha": 0.6}), ("general_cosine", {"a": [0.5, 0.3, 0.2]}),
    ("general_cosine", {"a": (1.0,)}),
])
def test_parameters(name, kw):
    for M in (1, 4, 7):
        for sym in (True, False) if "sym" not in kw else (kw["sym"],):
            t, j = _both(name, M, **{**kw, "sym": sym})
            assert_close(j, t, atol=1e-6, rtol=1e-5)


def test_default_dtype_follows():
    jtorch.set_default_dtype(jtorch.float64)
    try:
        assert jtorch.signal.windows.hann(4).dtype == jtorch.float64
    finally:
        jtorch.set_default_dtype(jtorch.float32)


@pytest.mark.parametrize("name,kw", [("gaussian", {}), ("kaiser", {"beta": 2.0}),
                                     ("exponential", {}), ("cosine", {}), ("bartlett", {}),
                                     ("general_cosine", {"a": [0.5, 0.5]})])
def test_requires_grad(name, kw):
    t, j = _both(name, 6, requires_grad=True, **kw)
    assert j.requires_grad == t.requires_grad and j.is_leaf == t.is_leaf
    t.sum().backward()
    j.sum().backward()
    t0, j0 = _both(name, 0, requires_grad=True, **kw)
    assert j0.requires_grad and j0.is_leaf and t0.is_leaf


@pytest.mark.parametrize("call", [
    lambda T: T.signal.windows.hann(-1),
    lambda T: T.signal.windows.hann(4, dtype=T.float16),
    lambda T: T.signal.windows.cosine(4, dtype=T.int64),
    lambda T: T.signal.windows.hann(4, layout=T.sparse_coo),
    lambda T: T.signal.windows.exponential(4, tau=0),
    lambda T: T.signal.windows.exponential(4, center=1.0),
    lambda T: T.signal.windows.gaussian(4, std=-1.0),
    lambda T: T.signal.windows.kaiser(4, beta=-1.0),
    lambda T: T.signal.windows.general_cosine(4, a=[]),
    lambda T: T.signal.windows.general_cosine(4, a=3),
    lambda T: T.signal.windows.blackman(-3),
    lambda T: T.signal.windows.hann(4, True),
])
def test_errors(call):
    raises_like(lambda: call(torch), lambda: call(jtorch))


def test_under_compile():
    f = jtorch.compile(lambda x: x * jtorch.signal.windows.hann(8))
    x = jtorch.ones(8)
    want = torch.signal.windows.hann(8).numpy()
    for _ in range(2):
        np.testing.assert_allclose(f(x).numpy(), want, rtol=1e-6)
