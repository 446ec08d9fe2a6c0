"""torchvision.ops.deform_conv2d and DeformConv2d (jtorch.vision.ops) against torchvision
0.28's own C++ CPU kernel (``vision_helpers.load_torchvision_extension``): outputs and the
gradients of the input, offsets, mask, weight and bias, with offset and weight groups,
strides, padding and dilation; the module; errors; the same values inside jtorch.compile."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from helpers import raises_like
from vision_helpers import load_torchvision_extension, to_jtorch

import jtorch
from jtorch.vision import ops as jops

# (in, out, offset groups, weight groups, kernel, stride, padding, dilation, mask)
CASES = [(4, 6, 1, 1, 3, 1, 1, 1, False), (4, 6, 2, 2, 3, 2, 1, 1, True),
         (6, 4, 3, 1, (2, 3), (1, 2), (0, 1), (2, 1), True)]


@pytest.fixture(scope="module")
def tv(tmp_path_factory):
    return load_torchvision_extension("_C.so", tmp_path_factory.mktemp("tv_cuda_stubs"))


def _pair(v):
    return (v, v) if isinstance(v, int) else v


def _inputs(case, dtype):
    c, o, g, wg, k, s, p, d, use_mask = case
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = _pair(k), _pair(s), _pair(p), _pair(d)
    ho = (7 + 2 * ph - (dh * (kh - 1) + 1)) // sh + 1
    wo = (8 + 2 * pw - (dw * (kw - 1) + 1)) // sw + 1
    torch.manual_seed(0)
    tensors = [torch.randn(2, c, 7, 8, dtype=dtype),
               torch.randn(2, 2 * g * kh * kw, ho, wo, dtype=dtype) * 2,  # samples cross borders
               torch.randn(o, c // wg, kh, kw, dtype=dtype), torch.randn(o, dtype=dtype)]
    if use_mask:
        tensors.append(torch.rand(2, g * kh * kw, ho, wo, dtype=dtype))
    return tensors, (s, p, d)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_deform_conv2d(tv, case, dtype):
    rtol = 2e-5 if dtype == torch.float32 else 1e-12
    tensors, (s, p, d) = _inputs(CASES[case], dtype)
    ts = [t.clone().requires_grad_() for t in tensors]
    js = [to_jtorch(t, requires_grad=True) for t in tensors]

    def call(ops, a):
        return ops.deform_conv2d(a[0], a[1], a[2], a[3], s, p, d, a[4] if len(a) > 4 else None)

    yt, yj = call(tv.ops, ts), call(jops, js)
    np.testing.assert_allclose(yj.detach().numpy(), yt.detach().numpy(), rtol=rtol, atol=rtol)
    g = torch.randn(yt.shape, dtype=dtype)
    grads = torch.autograd.grad(yt, ts, g)
    (yj * to_jtorch(g)).sum().backward()
    for name, a, want in zip(("input", "offset", "weight", "bias", "mask"), js, grads):
        scale = max(float(want.abs().max()), 1.0)
        np.testing.assert_allclose(a.grad.numpy() / scale, want.numpy() / scale, rtol=0,
                                   atol=rtol, err_msg=name)


def test_module_no_bias_and_errors(tv):
    torch.manual_seed(0)
    tm = tv.ops.DeformConv2d(4, 6, 3, padding=1, groups=2, bias=False)
    jm = jops.DeformConv2d(4, 6, 3, padding=1, groups=2, bias=False)
    assert repr(jm) == repr(tm)
    assert repr(jops.DeformConv2d(2, 2, (1, 3), dilation=2)) == \
        repr(tv.ops.DeformConv2d(2, 2, (1, 3), dilation=2))
    jm.load_state_dict({k: to_jtorch(v) for k, v in tm.state_dict().items()})
    x, off = torch.randn(1, 4, 5, 5), torch.randn(1, 18, 5, 5)
    np.testing.assert_allclose(jm(to_jtorch(x), to_jtorch(off)).detach().numpy(),
                               tm(x, off).detach().numpy(), rtol=1e-5, atol=1e-5)
    bound = 1 / np.sqrt(2 * 3 * 3)   # kaiming_uniform_(a=sqrt(5)): 1 / sqrt(fan_in)
    assert float(jops.DeformConv2d(4, 2, 3, groups=2).weight.abs().max()) <= bound
    raises_like(lambda: tv.ops.DeformConv2d(3, 4, 3, groups=2),
                lambda: jops.DeformConv2d(3, 4, 3, groups=2))
    raises_like(lambda: tv.ops.DeformConv2d(4, 3, 3, groups=2),
                lambda: jops.DeformConv2d(4, 3, 3, groups=2))
    w = torch.randn(2, 4, 3, 3)
    for off in (torch.randn(1, 5, 3, 3), torch.randn(1, 18, 4, 3), torch.randn(1, 20, 3, 3),
                torch.randn(2, 18, 3, 3)):
        raises_like(lambda: tv.ops.deform_conv2d(x, off, w),  # noqa: B023
                    lambda: jops.deform_conv2d(to_jtorch(x), to_jtorch(off), to_jtorch(w)))  # noqa: B023


def test_inside_compile():
    tensors, (s, p, d) = _inputs(CASES[1], torch.float32)
    a = [to_jtorch(t) for t in tensors]

    def step(x, off, w, b, m):
        return jops.deform_conv2d(x, off, w, b, s, p, d, m)

    np.testing.assert_allclose(jtorch.compile(step)(*a).numpy(), step(*a).numpy(), rtol=1e-5,
                               atol=1e-5)
