"""F.interpolate (every mode x align_corners x size/scale_factor x recompute_scale_factor, up
and down), upsample aliases, grid_sample (modes x padding modes x align_corners, 2-D and
3-D), affine_grid, Upsample modules, errors."""

import warnings

import numpy as np
import pytest
import torch
from helpers import NonContig, assert_close, parity, raises_like, rand
from nn_helpers import module_parity

import jtorch
from jtorch._ops import nn_interp as I

MODES = [("nearest", 1), ("nearest-exact", 1), ("linear", 1), ("area", 1), ("nearest", 2),
         ("nearest-exact", 2), ("bilinear", 2), ("bicubic", 2), ("nearest", 3),
         ("trilinear", 3), ("area", 3)]


def _matrix(mode, n_in, n_out, scale, ac, t, nd):
    """jtorch's sampling along one axis as an (out, in) matrix."""
    m = np.zeros((n_out, n_in), t)
    if mode in ("nearest", "nearest-exact"):
        m[np.arange(n_out), I._nearest_table(n_in, n_out, scale, mode == "nearest-exact",
                                             nd == 2)] = 1
    elif mode == "area":
        m = I._area_matrix(n_in, n_out, t)
    elif mode != "bicubic" and n_in == n_out:
        m = np.eye(n_in, dtype=t)
    else:
        table = I._cubic_table if mode == "bicubic" else I._linear_table
        for i, w in zip(*table(n_in, n_out, ac, scale, t)):
            np.add.at(m, (np.arange(n_out), i), w)
    return m


@pytest.mark.parametrize("mode,nd", MODES)
def test_interpolate_coordinates_exhaustive(mode, nd):
    """PyTorch's source indices and weights for every size/scale, up and down: PyTorch
    interpolates one-hot rows, jtorch's tables give the same matrix."""
    specs = [("size", s) for s in (1, 2, 3, 5, 6, 9, 10, 14, 26)] + \
        [("scale", s) for s in (0.25, 0.5, 0.7, 0.999, 1.0, 1.0001, 1.3, 1.5, 2.0, 2.5, 3.0,
                                1 / 3)]
    for n_in in (1, 2, 3, 5, 13):
        for kind, v in specs:
            for ac in ([None] if mode in ("nearest", "nearest-exact", "area") else [False, True]):
                for rsf in ([None, True] if kind == "scale" else [None]):
                    for tdt, t in ((torch.float32, np.float32), (torch.float64, np.float64)):
                        x = torch.eye(n_in, dtype=tdt).reshape((n_in, 1) + (1,) * (nd - 1)
                                                               + (n_in,))
                        kw = {"mode": mode, "align_corners": ac, "recompute_scale_factor": rsf}
                        kw["size" if kind == "size" else "scale_factor"] = \
                            (1,) * (nd - 1) + (v,) if kind == "size" else (1.0,) * (nd - 1) + (v,)
                        try:
                            y = torch.nn.functional.interpolate(x, **kw)
                        except RuntimeError:
                            continue   # empty output: the error is tested below
                        n_out = y.shape[-1]
                        scale = v if kind == "scale" and not rsf and mode != "area" else None
                        want = y.reshape(n_in, n_out).numpy().T
                        got = _matrix(mode, n_in, n_out, scale, ac, t, nd)
                        np.testing.assert_allclose(got, want, rtol=0,
                                                   atol=2e-6 if t is np.float32 else 1e-14,
                                                   err_msg=f"{n_in} {kind}={v} ac={ac} rsf={rsf}")


@pytest.mark.parametrize("mode,nd", MODES)
def test_interpolate_parity(mode, nd):
    shape = (2, 3) + (5, 4, 3)[:nd]
    plain = mode in ("nearest", "nearest-exact", "area")
    for ac, kw in ((False, {"scale_factor": 2}), (True, {"scale_factor": 0.6}),
                   (True, {"size": (7, 3, 4)[:nd]}),
                   (False, {"scale_factor": 1.7, "recompute_scale_factor": True})):
        parity(lambda T, x, kw=kw, ac=ac: T.nn.functional.interpolate(
            x, mode=mode, align_corners=None if plain else ac, **kw), rand(*shape), atol=1e-5)
    if mode in ("bilinear", "nearest", "area"):
        parity(lambda T, x: T.nn.functional.interpolate(
            x, scale_factor=tuple((1.5, 2.0, 0.5)[:nd]), mode=mode),
            NonContig(rand(*shape, dtype=np.float64)))


def test_interpolate_dtypes_and_aliases():
    x = rand(1, 2, 4, 4)
    for dt in ("float16", "bfloat16"):
        assert_close(jtorch.nn.functional.interpolate(jtorch.tensor(x).to(getattr(jtorch, dt)),
                                                      scale_factor=1.5, mode="bilinear"),
                     torch.nn.functional.interpolate(torch.tensor(x).to(getattr(torch, dt)),
                                                     scale_factor=1.5, mode="bilinear"),
                     atol=2e-2, rtol=2e-2)
    u8 = rand(1, 2, 4, 5, dtype=np.uint8, low=0, high=255)
    parity(lambda T, x: T.nn.functional.interpolate(x, size=(7, 3)), u8)
    parity(lambda T, x: T.nn.functional.interpolate(x, scale_factor=2), rand(0, 2, 3, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parity(lambda T, x: T.nn.functional.upsample(x, scale_factor=2, mode="bilinear"), x)
        parity(lambda T, x: T.nn.functional.upsample_nearest(x, size=6), x)
        parity(lambda T, x: T.nn.functional.upsample_bilinear(x, scale_factor=2), x)
    y = jtorch.tensor(x, requires_grad=True)
    assert jtorch.nn.functional.interpolate(y, scale_factor=2, mode="bicubic").grad_fn.name() \
        == "UpsampleBicubic2DBackward0"
    with pytest.warns(UserWarning, match="upsample_bilinear` is deprecated"):
        jtorch.nn.functional.upsample_bilinear(y, scale_factor=2)


def test_interpolate_errors():
    def x4(L):
        return L.ones(1, 2, 4, 4)

    cases = [
        lambda L: L.nn.functional.interpolate(x4(L), size=(3,)),
        lambda L: L.nn.functional.interpolate(x4(L), size=3, scale_factor=2),
        lambda L: L.nn.functional.interpolate(x4(L)),
        lambda L: L.nn.functional.interpolate(x4(L), size=3, align_corners=True),
        lambda L: L.nn.functional.interpolate(x4(L), scale_factor=(2, 2, 2)),
        lambda L: L.nn.functional.interpolate(x4(L), size=(3.0, 3)),
        lambda L: L.nn.functional.interpolate(x4(L), size=3, recompute_scale_factor=True),
        lambda L: L.nn.functional.interpolate(x4(L), scale_factor=0.1, mode="bilinear"),
        lambda L: L.nn.functional.interpolate(L.ones(1, 2, 4), scale_factor=0.1),
        lambda L: L.nn.functional.interpolate(L.ones(1, 2, 4, 4, 4), size=(0, 1, 1)),
        lambda L: L.nn.functional.interpolate(L.ones(1, 2, 4), scale_factor=2, mode="bicubic"),
        lambda L: L.nn.functional.interpolate(L.ones(1, 2, 4), scale_factor=2, mode="bilinear"),
        lambda L: L.nn.functional.interpolate(x4(L), scale_factor=2, mode="trilinear"),
        lambda L: L.nn.functional.interpolate(L.ones(2, 4), scale_factor=2),
        lambda L: L.nn.functional.interpolate(x4(L), scale_factor=2, mode="linear",
                                              antialias=True),
        lambda L: L.nn.functional.interpolate(x4(L).long(), scale_factor=2),
        lambda L: L.nn.functional.interpolate(x4(L).long(), scale_factor=2, mode="bilinear"),
    ]
    for f in cases:
        raises_like(lambda f=f: f(torch), lambda f=f: f(jtorch))
    with pytest.raises(NotImplementedError, match="lanczos"):
        jtorch.nn.functional.interpolate(jtorch.ones(1, 1, 4, 4), scale_factor=2,
                                         mode="lanczos", antialias=True)


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
def test_grid_sample(mode):
    for pm in ("zeros", "border", "reflection"):
        for ac in (False, True):
            parity(lambda T, x, g, pm=pm, ac=ac: T.nn.functional.grid_sample(
                x, g, mode=mode, padding_mode=pm, align_corners=ac),
                rand(2, 3, 4, 5), rand(2, 3, 6, 2, low=-1.3, high=1.3), atol=1e-4)
        if mode != "bicubic" and pm != "border":   # 5-D: trilinear / nearest
            parity(lambda T, x, g, pm=pm: T.nn.functional.grid_sample(
                x, g, mode=mode, padding_mode=pm, align_corners=pm == "zeros"),
                rand(1, 2, 3, 4, 2, dtype=np.float64),
                rand(1, 2, 3, 2, 3, low=-1.3, high=1.3, dtype=np.float64))


def test_grid_sample_and_affine_grid_misc():
    x = jtorch.ones(1, 1, 3, 3, requires_grad=True)
    g = jtorch.zeros(1, 2, 2, 2)
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        out = jtorch.nn.functional.grid_sample(x, g)
    assert out.grad_fn.name() == "GridSampler2DBackward0"
    for ac in (False, True):
        parity(lambda T, th, ac=ac: T.nn.functional.affine_grid(th, (2, 3, 4, 5),
                                                                align_corners=ac), rand(2, 2, 3))
        parity(lambda T, th, ac=ac: T.nn.functional.affine_grid(th, [1, 1, 2, 3, 4],
                                                                align_corners=ac),
               rand(1, 3, 4, dtype=np.float64))
    # the usual pairing: warp an image with an affine grid
    parity(lambda T, x, th: T.nn.functional.grid_sample(
        x, T.nn.functional.affine_grid(th, (2, 3, 5, 6), align_corners=False),
        align_corners=False), rand(2, 3, 4, 4), rand(2, 2, 3, low=-1, high=1), atol=1e-4)


def test_grid_errors():
    cases = [
        lambda L: L.nn.functional.grid_sample(L.ones(1, 2, 4, 4), L.ones(1, 3, 3, 3),
                                              align_corners=False),
        lambda L: L.nn.functional.grid_sample(L.ones(1, 2, 4, 4), L.ones(2, 3, 3, 2),
                                              align_corners=False),
        lambda L: L.nn.functional.grid_sample(L.ones(1, 2, 4, 4, 4), L.ones(1, 3, 3, 3, 3),
                                              mode="bicubic", align_corners=False),
        lambda L: L.nn.functional.grid_sample(L.ones(1, 2, 4, 4), L.ones(1, 3, 3, 2).double(),
                                              align_corners=False),
        lambda L: L.nn.functional.grid_sample(L.ones(1, 2, 4, 4), L.ones(1, 3, 3, 2), "foo"),
        lambda L: L.nn.functional.grid_sample(L.ones(1, 2, 4, 4), L.ones(1, 3, 3, 2),
                                              padding_mode="foo"),
        lambda L: L.nn.functional.affine_grid(L.ones(1, 2, 3), (1, 1, 0, 2),
                                              align_corners=False),
        lambda L: L.nn.functional.affine_grid(L.ones(1, 3, 3), (1, 1, 2, 2),
                                              align_corners=False),
        lambda L: L.nn.functional.affine_grid(L.ones(1, 2, 4), (1, 1, 2, 2, 2),
                                              align_corners=False),
        lambda L: L.nn.functional.affine_grid(L.ones(1, 2, 3), (1, 1, 2), align_corners=False),
        lambda L: L.nn.functional.affine_grid(L.ones(1, 2, 3).long(), (1, 1, 2, 2),
                                              align_corners=False),
    ]
    for f in cases:
        raises_like(lambda f=f: f(torch), lambda f=f: f(jtorch))


def test_upsample_modules():
    module_parity(lambda T: T.nn.Upsample(scale_factor=2, mode="bilinear"), rand(1, 2, 3, 3))
    module_parity(lambda T: T.nn.Upsample(size=(5, 4, 3), mode="trilinear",
                                          align_corners=True), rand(1, 2, 3, 3, 2))
    module_parity(lambda T: T.nn.Upsample(scale_factor=1.5, recompute_scale_factor=True),
                  rand(1, 2, 3))
    module_parity(lambda T: T.nn.UpsamplingBilinear2d(scale_factor=2), rand(1, 2, 3, 3))
    module_parity(lambda T: T.nn.UpsamplingNearest2d(size=(4, 5)), rand(1, 2, 3, 3))
    for mk in [lambda T: T.nn.Upsample(scale_factor=2), lambda T: T.nn.Upsample(size=(3, 4)),
               lambda T: T.nn.Upsample(scale_factor=(2, 3), mode="bicubic", align_corners=True),
               lambda T: T.nn.UpsamplingNearest2d(size=3),
               lambda T: T.nn.UpsamplingBilinear2d(scale_factor=2)]:
        assert repr(mk(jtorch)) == repr(mk(torch))
