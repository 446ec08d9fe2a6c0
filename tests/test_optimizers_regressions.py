"""Regressions found by running the optimizer libraries (torch-optimizer, lion-pytorch,
schedulefree, ema-pytorch, thop) unchanged under jtorch (scripts/real_drivers/optimizer_libs.py,
docs/real-programs.md): each test is a small stand-in for what the library did, in plain
torch-API code, run in jtorch and in real PyTorch."""

import numpy as np
import pytest
import torch

import jtorch
from jtorch._ops import linalg, pointwise


def _both(fn):
    return [fn(T) for T in (jtorch, torch)]


def _np(t):
    return t.detach().numpy()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_scalar_arguments_given_zero_dim_tensors(dtype):
    # torch-optimizer's Lamb steps with p.data.add_(adam_step, alpha=-lr * trust_ratio), its
    # trust ratio a 0-d tensor: PyTorch's parser reads a 0-d tensor (without grad) given to a
    # Scalar parameter as its number (jtorch traced it: TracerBoolConversionError)
    def run(T):
        dt = getattr(T, dtype)
        a = T.linspace(-1, 1, 6, dtype=dt).reshape(2, 3)
        b = T.linspace(0.5, 2, 6, dtype=dt).reshape(2, 3)
        ratio = T.tensor(0.37, dtype=dt)
        half = T.tensor(0.5, dtype=T.float64)   # another dtype than the operands'
        m = T.linspace(-1, 1, 4, dtype=dt).reshape(2, 2)
        p = a.clone()
        p.add_(b, alpha=-0.01 * ratio)
        x = a.clone().requires_grad_()
        y = x.sub(b, alpha=ratio) * x.add(b, alpha=half)
        y.sum().backward()
        return [p, a.add(b, alpha=ratio), a.sub(b, alpha=half), T.rsub(a, b, alpha=ratio),
                a.add(b, alpha=T.tensor(3)), T.addmm(m, m, m, beta=ratio, alpha=half),
                T.addmv(m[0], m, m[1], alpha=ratio), y, x.grad]
    got, want = _both(run)
    for g, w in zip(got, want):
        assert g.dtype == getattr(jtorch, str(w.dtype)[6:])
        np.testing.assert_allclose(_np(g), _np(w), rtol=1e-6 if dtype == "float32" else 1e-14)


def test_zero_dim_tensor_alpha_compiles_one_kernel_for_every_value():
    # add/sub and addmm-like ops keep a tensor alpha/beta dynamic: Lamb's trust ratio, new each
    # step, must not compile (or trace and fail) a kernel per value
    p, x = jtorch.ones(4, 4), jtorch.full((4, 4), 2.0)
    for ratio in (0.25, 0.5):   # (the first builds the kernels)
        p.add_(x, alpha=jtorch.tensor(ratio))
        jtorch.addmm(p, p, p, beta=jtorch.tensor(ratio), alpha=jtorch.tensor(ratio))
    caches = (pointwise.add._opdef.kernel_cache, linalg.addmm._opdef.kernel_cache)
    sizes = [len(c) for c in caches]
    for ratio in (0.75, 1.0, 0.0):
        p.add_(x, alpha=jtorch.tensor(ratio))
        jtorch.addmm(p, p, p, beta=jtorch.tensor(ratio), alpha=jtorch.tensor(ratio))
    assert [len(c) for c in caches] == sizes
    assert float(p.sum()) == pytest.approx(16 * (1 + 2 * (0.25 + 0.5 + 0.75 + 1.0)))


def test_write_through_view_dtype_of_another_element_size():
    # schedulefree's ScheduleFreeWrapper swaps two parameters in place by XOR through
    # x.view(torch.uint8) (NotImplementedError in jtorch)
    def run(T):
        x = T.arange(6, dtype=T.float32).reshape(2, 3) / 7
        y = -T.arange(6, dtype=T.float32).reshape(2, 3) * 3
        x.view(T.uint8).bitwise_xor_(y.view(T.uint8))
        y.view(T.uint8).bitwise_xor_(x.view(T.uint8))
        x.view(T.uint8).bitwise_xor_(y.view(T.uint8))
        z = T.arange(12, dtype=T.float64)
        z[2:6].view(T.int32)[1:3].fill_(0)   # a slice, then the dtype view, then a slice
        b = T.zeros(8, dtype=T.uint8)
        b.view(T.float16)[1] = 1.5            # to a larger element
        c = T.arange(6, dtype=T.int16).reshape(3, 2)
        c.view(T.int32).mul_(3)
        w = T.ones(4, dtype=T.float64)
        v = w.view(T.int32)
        v[0:2] = 7
        return [x, y, z, b, c, w.view(T.int64), v]
    got, want = _both(run)
    for g, w in zip(got, want):
        assert g.dtype == getattr(jtorch, str(w.dtype)[6:])
        np.testing.assert_array_equal(_np(g), _np(w))
