"""Regressions found by running torchkbnufft unchanged under jtorch
(scripts/real_drivers/torchkbnufft_nufft.py, docs/real-programs.md): each test is a small
stand-in for what the library did, in plain torch-API code, run in jtorch and in real PyTorch."""

import types
import warnings

import numpy as np
import pytest
import torch
from helpers import assert_close

import jtorch


def _fft_and_scale(image, scaling_coef, im_size, grid_size):
    # torchkbnufft's @torch.jit.script fft_and_scale: pad sizes read from tensors with int()
    pad_sizes: list[int] = []
    for gd, im in zip(grid_size.flip((0,)), im_size.flip((0,))):
        pad_sizes.append(0)
        pad_sizes.append(int(gd - im))
    return torch.fft.fftn(torch.nn.functional.pad(image * scaling_coef, pad_sizes),
                          dim=[-2, -1])


def _accumulate(image, arr_ind, data):
    # torchkbnufft's @torch.jit.script accum_tensor_index_add: index_add_ into each row view
    for image_it, data_it in zip(image, data):
        image_it.index_add_(0, arr_ind, data_it)
    return image


def _scripted(T, fn):
    """``T.jit.script`` of ``fn``, whose ``torch`` is ``T`` (TorchScript reads the source)."""
    if T is torch:
        return torch.jit.script(fn)
    return jtorch.jit.script(types.FunctionType(fn.__code__, {**fn.__globals__, "torch": T},
                                                fn.__name__))


def test_jit_script_of_host_reads_runs_like_torchscript():
    # torch.jit.script of torchkbnufft's kernels raised NotImplementedError ("does not compile
    # to one XLA program") at the first NUFFT: TorchScript compiles int() of a tensor, so
    # jtorch runs such a call eagerly (warning once, naming the function) with its result
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((2, 1, 4, 4)) + 1j * rng.standard_normal((2, 1, 4, 4)))
    x = x.astype(np.complex64)
    s = rng.standard_normal((4, 4)).astype(np.float32)
    outs, grads = [], []
    for T in (torch, jtorch):
        f = _scripted(T, _fft_and_scale)
        xt = T.tensor(x, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            y = f(xt, T.tensor(s), T.tensor([4, 4]), T.tensor([6, 8]))
        if T is jtorch:
            assert any("could not trace _fft_and_scale" in str(w.message) for w in caught)
        (y.abs() ** 2).sum().backward()
        outs.append(y)
        grads.append(xt.grad)
    assert tuple(outs[1].shape) == (2, 1, 6, 8)
    assert_close(outs[1], outs[0], rtol=1e-5, atol=1e-4)
    assert_close(grads[1], grads[0], rtol=1e-5, atol=1e-4)


def test_jit_script_in_place_writes_through_row_views():
    # the scripted accumulation writes each batch row of a view in place; the caller reads
    # the result back through another view of the same storage
    rng = np.random.default_rng(1)
    data = rng.standard_normal((4, 6)).astype(np.float32)
    ind = np.array([0, 2, 2, 5, 1, 0])
    outs = []
    for T in (torch, jtorch):
        f = _scripted(T, _accumulate)
        image = T.zeros(2, 2, 7)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # jtorch: runs eagerly where it cannot trace
            out = f(image.view(4, 7), T.tensor(ind), T.tensor(data)).view(2, 2, 7)
        outs.append((out, image))
    assert_close(outs[1][0], outs[0][0])
    assert_close(outs[1][1], outs[0][1])


@pytest.mark.parametrize("steps", [3, 40])
def test_view_reshaped_back_and_forth_keeps_writing_through(steps):
    # torchkbnufft's adjoint interpolation loops over 36 (2-D) or 216 (3-D) offsets doing
    # image = image.view(B * C, P); index_add_ into each row; image = image.view(B, C, P).
    # Each reshape added a link to the view's chain, so every offset's write compiled a new
    # kernel (488 XLA compilations, 24 of 41 s); a reshape of a reshape is now one link
    rng = np.random.default_rng(2)
    vals = rng.standard_normal((steps, 4, 5)).astype(np.float32)
    idx = rng.integers(0, 9, (steps, 5))
    w0 = rng.standard_normal(9).astype(np.float32)
    res = []
    for T in (torch, jtorch):
        w = T.tensor(w0, requires_grad=True)
        base = T.zeros(2, 2, 9) + w            # a non-leaf, so the writes are differentiable
        image = base
        for k in range(steps):
            image = image.view(4, 9)
            for r, v in enumerate(T.tensor(vals[k])):
                image[r].index_add_(0, T.tensor(idx[k]), v * w[:5])
            image = image.view(2, 2, 9)
            image.mul_(w[k % 9])                # a write through the reshaped-back view
        flat = base.flatten().view(4, 9).reshape(2, 18)   # reshapes of a view keep reading it
        (image.sum() + (flat * T.arange(36.0).view(2, 18)).sum()).backward()
        res.append((image.detach(), flat.detach(), w.grad))
        if T is jtorch:
            assert len(image._chain) == 1 and len(flat._chain) == 1
    for got, want in zip(res[1], res[0]):
        assert_close(got, want, rtol=1e-5, atol=1e-5)
