"""Regressions found by running x-transformers, vit-pytorch and rotary-embedding-torch unchanged
under jtorch (scripts/real_drivers/xtransformers_models.py, docs/real-programs.md): each test is
a small stand-in for what the library did, in plain torch-API code, run in jtorch and in real
PyTorch (torchvision for the transforms)."""

import importlib

import numpy as np
import pytest
import torch
from PIL import Image
from vision_helpers import torchvision

import jtorch
from jtorch.vision import transforms as JT


def _tv():
    tv = torchvision()
    importlib.import_module("torchvision.transforms.v2")  # the v2 names, next to v1's
    return tv


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kernel_size,sigma", [(3, None), ((3, 3), (1.0, 2.0)), ((5, 3), 0.7),
                                               ([7, 5], [1.6])])
def test_gaussian_blur_tensor_values_and_grad(dtype, kernel_size, sigma):
    # vit-pytorch's Dino builds T.GaussianBlur((3, 3), (1.0, 2.0)) in its default augmentation
    # (AttributeError: jtorch.vision.transforms had no GaussianBlur) and blurs a batch
    tv = _tv()
    x = np.random.default_rng(0).random((2, 3, 9, 11)).astype(dtype)
    w = np.random.default_rng(1).standard_normal((2, 3, 9, 11)).astype(dtype)
    results = []
    for T, F in ((jtorch, JT.functional), (torch, tv.transforms.functional)):
        xt = T.tensor(x, requires_grad=True)
        out = F.gaussian_blur(xt, kernel_size, sigma)
        (out * T.tensor(w)).sum().backward()
        one = F.gaussian_blur(T.tensor(x[0]), kernel_size, sigma)  # a single C x H x W image
        results.append((out.detach().numpy(), xt.grad.numpy(), one.numpy(), out.dtype))
    (got, got_g, got_one, got_dt), (want, want_g, want_one, want_dt) = results
    tol = 1e-6 if dtype == np.float32 else 1e-14
    assert str(got_dt).split(".")[-1] == str(want_dt).split(".")[-1]
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    np.testing.assert_allclose(got_g, want_g, rtol=tol, atol=tol)
    np.testing.assert_allclose(got_one, want_one, rtol=tol, atol=tol)


def test_gaussian_blur_uint8_pil_and_numpy():
    tv = _tv()
    u = (np.random.default_rng(2).random((10, 12, 3)) * 255).astype(np.uint8)
    got = JT.functional.gaussian_blur(jtorch.tensor(u).permute(2, 0, 1), 5, 1.1)
    want = tv.transforms.functional.gaussian_blur(torch.tensor(u).permute(2, 0, 1), 5, 1.1)
    assert got.dtype == jtorch.uint8
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    for mode_img in (Image.fromarray(u), Image.fromarray(u[..., 0])):
        got = JT.functional.gaussian_blur(mode_img, [3, 5], [1.3, 0.8])
        want = tv.transforms.functional.gaussian_blur(mode_img, [3, 5], [1.3, 0.8])
        assert got.mode == want.mode and got.size == want.size
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    # jtorch's NumPy H x W x C images go through PIL
    np.testing.assert_array_equal(
        JT.functional.gaussian_blur(u, 3, 1.3),
        np.asarray(tv.transforms.functional.gaussian_blur(Image.fromarray(u), 3, 1.3)))


def test_gaussian_blur_module_and_errors():
    tv = _tv()
    x = np.random.default_rng(3).random((2, 3, 8, 8)).astype(np.float32)
    for J, T in ((JT, tv.transforms), (JT.v2, tv.transforms.v2)):
        got, want = J.GaussianBlur(3, sigma=0.9), T.GaussianBlur(3, sigma=0.9)
        assert list(got.kernel_size) == list(want.kernel_size)
        assert list(got.sigma) == list(want.sigma)  # v2 keeps a list
        np.testing.assert_allclose(got(jtorch.tensor(x)).numpy(), want(torch.tensor(x)).numpy(),
                                   rtol=1e-6, atol=1e-6)
    assert repr(JT.GaussianBlur((3, 5))) == repr(tv.transforms.GaussianBlur((3, 5)))
    drawn = JT.GaussianBlur.get_params(1.0, 2.0)
    assert 1.0 <= drawn < 2.0
    bad_modules = [((4,), {}), ((3,), {"sigma": 0}), ((3,), {"sigma": (2.0, 1.0)}),
                   ((3,), {"sigma": (1.0, 2.0, 3.0)})]
    for args, kwargs in bad_modules:
        with pytest.raises(ValueError) as want:
            tv.transforms.GaussianBlur(*args, **kwargs)
        with pytest.raises(ValueError, match=str(want.value).replace("(", r"\(")
                           .replace(")", r"\)")):
            JT.GaussianBlur(*args, **kwargs)
    img = torch.zeros(3, 5, 5)
    bad_calls = [(4, None), ((3, 3, 3), None), (3, -1.0), (3, [1.0, 2.0, 3.0]), (3.0, None)]
    for kernel_size, sigma in bad_calls:
        with pytest.raises((ValueError, TypeError)) as want:
            tv.transforms.functional.gaussian_blur(img, kernel_size, sigma)
        with pytest.raises(want.type) as got:
            JT.functional.gaussian_blur(jtorch.zeros(3, 5, 5), kernel_size, sigma)
        assert str(got.value) == str(want.value)
