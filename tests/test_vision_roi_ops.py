"""torchvision's RoI operators (jtorch.vision.ops: roi_align, roi_pool, ps_roi_align,
ps_roi_pool, MultiScaleRoIAlign and their modules) against torchvision 0.28's own C++ CPU
kernels, loaded with ``vision_helpers.load_torchvision_extension``: values, input gradients,
errors, and the same results inside jtorch.compile."""

# the lambdas below are called within their loop iteration
# ruff: noqa: B023

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest
import torch
from helpers import raises_like
from vision_helpers import load_torchvision_extension, to_jtorch

import jtorch
from jtorch._core.errors import TraceError
from jtorch.vision import ops as jops

# rois (batch index, x1, y1, x2, y2): inside, crossing the border, under a pixel, outside,
# on pixel centres (halves to round), degenerate
ROIS = [[0, 1.0, 1.0, 6.0, 5.0], [1, -3.0, 2.5, 14.0, 9.7], [0, 3.3, 3.3, 3.4, 3.9],
        [1, 20.0, 20.0, 30.0, 30.0], [0, 2.5, 1.5, 7.5, 8.5], [1, 2.0, 2.0, 2.0, 2.0]]


@pytest.fixture(scope="module")
def tv(tmp_path_factory):
    return load_torchvision_extension("_C.so", tmp_path_factory.mktemp("tv_cuda_stubs"))


def _input(dtype, channels=3, special=False):
    torch.manual_seed(0)
    x = torch.randn(2, channels, 10, 12, dtype=dtype)
    if special:  # ties, a NaN and a channel of -inf: roi_pool's first-maximum rule
        x[0, 0, 2:4, 2:4] = 1.5
        x[1, 1, 3, 3] = float("nan")
        x[1, 2] = -float("inf")
    return x


def _compare(tfn, jfn, x, rois, rtol, exact=False, grad=True):
    """Outputs and input gradients (for the same random output cotangent) of both."""
    xt = x.clone().requires_grad_()
    yt = tfn(xt, rois)
    xj = to_jtorch(x, requires_grad=True)
    yj = jfn(xj, to_jtorch(rois) if isinstance(rois, torch.Tensor) else
             [to_jtorch(r) for r in rois])
    assert tuple(yj.shape) == tuple(yt.shape) and str(yj.dtype) == str(yt.dtype)
    if exact:
        np.testing.assert_array_equal(yj.detach().numpy(), yt.detach().numpy())
    else:
        np.testing.assert_allclose(yj.detach().numpy(), yt.detach().numpy(), rtol=rtol,
                                   atol=rtol)
    if grad:
        g = torch.randn(yt.shape, dtype=x.dtype)
        (gt,) = torch.autograd.grad(yt, xt, g)
        (yj * to_jtorch(g)).sum().backward()
        np.testing.assert_allclose(xj.grad.numpy(), gt.numpy(), rtol=rtol, atol=rtol)
    return yj


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("aligned", [False, True])
def test_roi_align(tv, dtype, aligned):
    rtol = 1e-5 if dtype == torch.float32 else 1e-12
    x, rois = _input(dtype), torch.tensor(ROIS, dtype=dtype)
    full = dtype == torch.float64
    for sampling_ratio in (-1, 0, 2, 3) if full else (-1, 2):
        for scale in (1.0, 0.5) if full else (0.5,):
            args = ((3, 4), scale, sampling_ratio, aligned)
            _compare(lambda a, r: tv.ops.roi_align(a, r, *args),
                     lambda a, r: jops.roi_align(a, r, *args), x, rois, rtol)
    # boxes as one Tensor[L, 4] per image; the module
    boxes = [rois[rois[:, 0] == i, 1:] for i in range(2)]
    _compare(lambda a, r: tv.ops.RoIAlign(2, 0.5, 2, aligned)(a, r),
             lambda a, r: jops.RoIAlign(2, 0.5, 2, aligned)(a, r), x, boxes, rtol)
    assert repr(jops.RoIAlign((2, 3), 0.25, -1, aligned)) == \
        repr(tv.ops.RoIAlign((2, 3), 0.25, -1, aligned))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_roi_pool_bit_for_bit(tv, dtype):
    """Ties, NaN and -inf included: the first largest value, its gradient to that element."""
    x, rois = _input(dtype, special=True), torch.tensor(ROIS, dtype=dtype)
    for scale in (1.0, 0.5, 0.25):
        _compare(lambda a, r: tv.ops.roi_pool(a, r, (3, 4), scale),
                 lambda a, r: jops.roi_pool(a, r, (3, 4), scale), x, rois, 0, exact=True)
    assert repr(jops.RoIPool(7, 0.5)) == repr(tv.ops.RoIPool(7, 0.5))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_ps_roi_align(tv, dtype):
    """A bin without samples (the degenerate roi, adaptive grid) is 0/0 = NaN in both."""
    rtol = 1e-5 if dtype == torch.float32 else 1e-12
    x, rois = _input(dtype, channels=24), torch.tensor(ROIS, dtype=dtype)
    for sampling_ratio in (-1, 2):
        for scale in (1.0, 0.5):
            y = _compare(lambda a, r: tv.ops.ps_roi_align(a, r, (3, 4), scale, sampling_ratio),
                         lambda a, r: jops.ps_roi_align(a, r, (3, 4), scale, sampling_ratio),
                         x, rois, rtol)
            assert np.isnan(y.detach().numpy()).any() == (sampling_ratio == -1)
    assert repr(jops.PSRoIAlign(3, 0.5, 2)) == repr(tv.ops.PSRoIAlign(3, 0.5, 2))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_ps_roi_pool(tv, dtype):
    """Values as torchvision; gradients too, away from the input's last row and column (see
    test_ps_roi_pool_gradient_is_the_derivative_at_the_border)."""
    rtol = 1e-6 if dtype == torch.float32 else 1e-12
    x, rois = _input(dtype, channels=24), torch.tensor(ROIS, dtype=dtype)
    for scale in (1.0, 0.5):
        _compare(lambda a, r: tv.ops.ps_roi_pool(a, r, (3, 4), scale),
                 lambda a, r: jops.ps_roi_pool(a, r, (3, 4), scale), x, rois, rtol, grad=False)
        interior = rois[[0, 2, 4]]
        _compare(lambda a, r: tv.ops.ps_roi_pool(a, r, (3, 4), scale),
                 lambda a, r: jops.ps_roi_pool(a, r, (3, 4), scale), x, interior, rtol)
    assert repr(jops.PSRoIPool(3, 0.5)) == repr(tv.ops.PSRoIPool(3, 0.5))


def test_ps_roi_pool_gradient_is_the_derivative_at_the_border():
    """torchvision's backward kernel clips bins at ``size`` where its forward clips at
    ``size - 1``; jtorch's gradient is the forward's derivative: central differences along a
    direction on the input's last rows and columns, and along a random one."""
    x = _input(torch.float64, channels=4).numpy()
    rois = jtorch.tensor([[1, -3.0, 2.5, 14.0, 9.7]], dtype=jtorch.float64)
    rng = np.random.default_rng(0)
    w = rng.standard_normal((1, 1, 2, 2))

    def f(a):
        return float((jops.ps_roi_pool(jtorch.tensor(a), rois, 2) * jtorch.tensor(w)).sum())

    xj = jtorch.tensor(x, requires_grad=True)
    (jops.ps_roi_pool(xj, rois, 2) * jtorch.tensor(w)).sum().backward()
    border = np.zeros_like(x)
    border[1, :, -2:, :] = rng.standard_normal(border[1, :, -2:, :].shape)
    border[1, :, :, -2:] = rng.standard_normal(border[1, :, :, -2:].shape)
    for v in (border, rng.standard_normal(x.shape)):
        numeric = (f(x + 1e-6 * v) - f(x - 1e-6 * v)) / 2e-6
        np.testing.assert_allclose(float((xj.grad.numpy() * v).sum()), numeric, rtol=1e-7)
    assert np.abs(xj.grad.numpy()[1, :, -1, :]).max() == 0  # the forward never reads them


def test_multi_scale_roi_align(tv):
    torch.manual_seed(0)
    feats = OrderedDict((name, torch.randn(2, 3, s, s, dtype=torch.float64))
                        for name, s in (("feat1", 32), ("feat2", 16), ("feat3", 8)))
    g = torch.Generator().manual_seed(1)
    boxes = []
    for n in (5, 3):
        b = torch.rand(n, 4, generator=g, dtype=torch.float64) * 96
        b[:, 2:] += b[:, :2] + torch.rand(n, 2, generator=g, dtype=torch.float64) * 200
        boxes.append(b)
    shapes = [(128, 128), (120, 128)]
    for names in (["feat1", "feat3"], ["feat2"], ["feat1", "feat2", "feat3"]):
        tm = tv.ops.MultiScaleRoIAlign(names, 3, 2, canonical_scale=64)
        jm = jops.MultiScaleRoIAlign(names, 3, 2, canonical_scale=64)
        tf = OrderedDict((k, v.clone().requires_grad_()) for k, v in feats.items())
        jf = OrderedDict((k, to_jtorch(v, requires_grad=True)) for k, v in feats.items())
        yt = tm(tf, boxes, shapes)
        yj = jm(jf, [to_jtorch(b) for b in boxes], shapes)
        np.testing.assert_allclose(yj.detach().numpy(), yt.detach().numpy(), rtol=1e-12,
                                   atol=1e-12)
        assert jm.scales == tm.scales
        assert (jm.map_levels.k_min, jm.map_levels.k_max) == \
            (tm.map_levels.k_min, tm.map_levels.k_max)
        w = torch.randn(yt.shape, dtype=torch.float64)
        (yt * w).sum().backward()
        (yj * to_jtorch(w)).sum().backward()
        for k in names:
            np.testing.assert_allclose(jf[k].grad.numpy(), tf[k].grad.numpy(), rtol=1e-12,
                                       atol=1e-12, err_msg=k)
        assert repr(jm) == repr(tm)


def test_errors_and_empty_rois(tv):
    x = torch.randn(1, 8, 6, 6)
    rois = torch.tensor([[0, 1.0, 1.0, 4.0, 4.0]])
    for name in ("roi_align", "roi_pool", "ps_roi_align", "ps_roi_pool"):
        t_op, j_op = getattr(tv.ops, name), getattr(jops, name)
        for a, r in ((x, rois.double()), (x.double(), rois), (x.long(), rois.long())):
            raises_like(lambda: t_op(a, r, 2), lambda: j_op(to_jtorch(a), to_jtorch(r), 2))
        raises_like(lambda: t_op(x, rois[:, 1:], 2),
                    lambda: j_op(to_jtorch(x), to_jtorch(rois[:, 1:]), 2))
        raises_like(lambda: t_op(x, [rois], 2),
                    lambda: j_op(to_jtorch(x), [to_jtorch(rois)], 2))
        empty = j_op(to_jtorch(x), jtorch.zeros(0, 5), 2)
        assert tuple(empty.shape) == tuple(t_op(x, torch.zeros(0, 5), 2).shape)
    for name in ("ps_roi_align", "ps_roi_pool"):
        raises_like(lambda: getattr(tv.ops, name)(x, rois, 3),
                    lambda: getattr(jops, name)(to_jtorch(x), to_jtorch(rois), 3))


def test_inside_compile():
    """A fixed sampling_ratio and roi_pool trace (roi_pool's window bound by the input's
    size); an adaptive grid's size depends on the boxes: jtorch.compile runs it eagerly (with
    its warning), a JAX transformation raises jtorch's TraceError."""
    x = jtorch.randn(2, 4, 10, 12)
    rois = jtorch.tensor(ROIS)

    def step(a, r):
        return (jops.roi_align(a, r, 3, 0.5, 2, True) * 2,
                jops.roi_pool(a, r, 3, 0.5), jops.ps_roi_pool(a, r, 2, 0.5))

    for got, want in zip(jtorch.compile(step)(x, rois), step(x, rois)):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=1e-6)
    adaptive = jtorch.compile(lambda a, r: jops.roi_align(a, r, 3, 0.5, -1))
    with pytest.warns(UserWarning, match="(?s)sampling_ratio <= 0.*Running it eagerly instead"):
        got = adaptive(x, rois)
    np.testing.assert_array_equal(got.numpy(), jops.roi_align(x, rois, 3, 0.5, -1).numpy())
    with pytest.raises(TraceError, match="sampling_ratio <= 0"):
        jtorch.func.vmap(lambda r: jops.roi_align(x, r[None], 3, 0.5, -1))(rois)
