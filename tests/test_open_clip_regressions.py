"""Regressions found by running OpenCLIP unchanged under jtorch
(scripts/real_drivers/open_clip_tiny.py, docs/real-programs.md): each test is a small stand-in
for what the library did, in plain torch-API code, run in jtorch and in real PyTorch."""

import numpy as np
import pytest
import torch
from helpers import parity, raises_like, rand

import jtorch


def _interp(size=None, scale_factor=None, mode="bicubic", align_corners=None):
    return lambda T, x: T.nn.functional.interpolate(
        x, size=size, scale_factor=scale_factor, mode=mode, align_corners=align_corners,
        antialias=True)


def test_resize_pos_embed_antialiased_bicubic():
    # open_clip's resize_pos_embed, loading a checkpoint at another image size, resamples the
    # ViT's position-embedding grid with F.interpolate(mode='bicubic', antialias=True,
    # align_corners=False) (NotImplementedError before); antialiasing uses Keys' a = -0.5 cubic
    # over a support widened by the downscaling factor, not plain bicubic's a = -0.75
    grid = rand(1, 32, 4, 4, seed=0)
    parity(_interp(size=(6, 6)), grid, rtol=1e-6, atol=1e-6)
    parity(_interp(size=(3, 3)), grid, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
def test_interpolate_antialias_parity(mode):
    # down and up, both axes or one, scale factors, align_corners, float32 and float64
    x = rand(2, 3, 17, 23, seed=1)
    for kw in ({"size": (5, 9)}, {"size": (31, 4)}, {"size": (17, 40)}, {"size": (1, 1)},
               {"scale_factor": 0.3}, {"scale_factor": (1.7, 0.45)},
               {"size": (6, 7), "align_corners": True}):
        parity(_interp(mode=mode, **kw), x, rtol=1e-6, atol=1e-6)
    x64 = rand(1, 2, 40, 9, dtype=np.float64, seed=2)
    parity(_interp(size=(7, 20), mode=mode), x64, rtol=1e-12, atol=1e-12)


def test_interpolate_antialias_weights_bit_exact():
    # the float32 weights equal PyTorch's to the last bit (its cubic is evaluated with fused
    # multiply-adds): interpolating one-hot rows returns the weight table itself
    for mode in ("bilinear", "bicubic"):
        for w, size in ((17, 28), (31, 4), (40, 13), (7, 9)):
            eye = np.eye(w, dtype=np.float32)[:, None, None, :]
            want = torch.nn.functional.interpolate(torch.tensor(eye), size=(1, size), mode=mode,
                                                   antialias=True).numpy()
            got = jtorch.nn.functional.interpolate(jtorch.tensor(eye), size=(1, size),
                                                   mode=mode, antialias=True).numpy()
            np.testing.assert_array_equal(got, want)


def test_interpolate_antialias_grad_fn_and_errors():
    for T in (torch, jtorch):
        x = T.ones(1, 1, 6, 6, requires_grad=True)
        names = [T.nn.functional.interpolate(x, size=(3, 4), mode=m, antialias=True)
                 .grad_fn.name() for m in ("bilinear", "bicubic")]
        assert names == ["UpsampleBilinear2DAaBackward0", "UpsampleBicubic2DAaBackward0"]
    for dtype in ("float16", "bfloat16"):
        raises_like(lambda dtype=dtype: torch.nn.functional.interpolate(
                        torch.ones(1, 1, 6, 6, dtype=getattr(torch, dtype)), size=(3, 3),
                        mode="bilinear", antialias=True),
                    lambda dtype=dtype: jtorch.nn.functional.interpolate(
                        jtorch.ones(1, 1, 6, 6, dtype=getattr(jtorch, dtype)), size=(3, 3),
                        mode="bilinear", antialias=True))
