"""Regressions found by running linear-attention-transformer, local-attention, product-key-memory
and CoLT5-attention unchanged under jtorch (scripts/real_drivers/linear_local_attention.py,
docs/real-programs.md): each test is a small stand-in for what the library did, in plain
torch-API code, run in jtorch and in real PyTorch."""

import warnings

import numpy as np
import pytest
import torch

import jtorch


def _flags(T):
    b = T.backends.cuda
    return (b.flash_sdp_enabled(), b.math_sdp_enabled(), b.mem_efficient_sdp_enabled(),
            b.cudnn_sdp_enabled())


def test_backends_cuda_sdp_kernel():
    # CoLT5-attention's Attend wraps F.scaled_dot_product_attention in the deprecated
    # torch.backends.cuda.sdp_kernel(enable_flash=..., enable_math=..., enable_mem_efficient=...)
    # (NotImplementedError); it switches the backends for its block, with a FutureWarning
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((2, 2, 5, 4)) for _ in range(3))
    mask = rng.random((2, 2, 5, 5)) > 0.3
    mask[..., 0] = True
    results = []
    for T in (jtorch, torch):
        before = _flags(T)
        tq, tk, tv = (T.tensor(a, requires_grad=True) for a in (q, k, v))
        with pytest.warns(FutureWarning, match="sdp_kernel"):
            ctx = T.backends.cuda.sdp_kernel(enable_flash=False, enable_math=True,
                                             enable_mem_efficient=False)
        with ctx as got:
            assert got == {}
            assert _flags(T) == (False, True, False, True)
            out = T.nn.functional.scaled_dot_product_attention(tq, tk, tv,
                                                               attn_mask=T.tensor(mask))
        assert _flags(T) == before
        out.pow(2).sum().backward()
        results.append([t.detach().numpy() for t in (out, tq.grad, tk.grad, tv.grad)])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            with T.backends.cuda.sdp_kernel(enable_flash=False, enable_math=False):
                with pytest.raises(RuntimeError, match="No viable backend"):
                    T.nn.functional.scaled_dot_product_attention(tq, tk, tv)
        assert _flags(T) == before
    for got, want in zip(*results):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-13)
