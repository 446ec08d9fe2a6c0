"""Regressions found by running piq and pytorch-msssim unchanged under jtorch
(scripts/real_drivers/image_quality.py, docs/real-programs.md): each test is a small stand-in
for what the library did, in plain torch-API code, run in jtorch and in real PyTorch."""

import math

import numpy as np
import pytest
import torch

import jtorch


def _nan_images(n=5000):
    # from 4096 elements on, XLA:CPU's YNNPACK reductions skipped NaN in max/min
    a = np.linspace(-2.0, 3.0, 4 * n).reshape(4, n)
    a[1, 3000] = a[2, 7] = np.nan
    a[3] = np.nan
    return a


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_max_min_propagate_nan_in_large_reductions(dtype):
    # the driver's checksum printed abs().max() of a NaN gradient (piq.haarpsi with
    # subsample=False) as -inf: max() of 24576 NaNs was the reduction's initial value
    a = _nan_images().astype(dtype)
    inf = math.inf
    fns = {
        "max": lambda T, x: x.max(), "min": lambda T, x: x.min(),
        "amax": lambda T, x: x.amax(), "amin": lambda T, x: T.amin(x, dim=1),
        "amax_dim": lambda T, x: x.amax(1, keepdim=True),
        "aminmax": lambda T, x: T.stack(T.aminmax(x, dim=1)),
        "aminmax_all": lambda T, x: T.stack(T.aminmax(x)),
        "max_dim": lambda T, x: x.max(1).values,
        "flat_abs_max": lambda T, x: x.flatten().abs().max(),
        "norm_inf": lambda T, x: T.linalg.vector_norm(x, inf, dim=1),
        "norm_-inf": lambda T, x: T.linalg.vector_norm(x, -inf),
        "tensor_norm_inf": lambda T, x: x.norm(inf),
    }
    for name, fn in fns.items():
        want = fn(torch, torch.tensor(a)).numpy()
        got = fn(jtorch, jtorch.tensor(a)).numpy()
        np.testing.assert_array_equal(got, want, err_msg=name)


def test_max_nan_gradient_and_clip_grad_inf_norm():
    a = _nan_images()
    a[0, 5] = a[0, -1]  # a tie: the gradient is shared
    for rows, fn in ((slice(0, 2), lambda T, x: x.max() + x.min()),
                     (slice(0, 1), lambda T, x: x.amax(1).sum() + 2 * T.amin(x, 1).sum()
                      + T.linalg.vector_norm(x, math.inf)),
                     (slice(0, 1), lambda T, x: T.stack(T.aminmax(x)).sum())):
        grads = []
        for T in (jtorch, torch):
            x = T.tensor(a[rows], requires_grad=True)
            fn(T, x).backward()
            grads.append(x.grad.numpy())
        np.testing.assert_array_equal(*grads)
    norms = []
    for T in (jtorch, torch):
        p = T.nn.Parameter(T.ones(5000))
        p.grad = T.tensor(a[1], dtype=T.float32)
        norms.append(T.nn.utils.clip_grad_norm_([p], 1.0, norm_type=math.inf).item())
        with pytest.raises(RuntimeError, match="non-finite"):
            T.nn.utils.clip_grad_norm_([p], 1.0, norm_type=math.inf, error_if_nonfinite=True)
    assert all(math.isnan(n) for n in norms)


def test_large_reductions_without_nan_unchanged():
    a = np.random.default_rng(0).standard_normal((3, 6000)).astype(np.float32)
    for fn in (lambda T, x: x.max(), lambda T, x: x.amin(1), lambda T, x: T.stack(T.aminmax(x)),
               lambda T, x: T.linalg.vector_norm(x, math.inf, dim=1)):
        np.testing.assert_array_equal(fn(jtorch, jtorch.tensor(a)).numpy(),
                                      fn(torch, torch.tensor(a)).numpy())
    x = jtorch.tensor(a, dtype=jtorch.int64)
    assert x.max().item() == torch.tensor(a, dtype=torch.int64).max().item()


def test_stack_and_cat_of_return_types_keep_autograd():
    # torch.stack(torch.aminmax(x)) (a torch.return_types named tuple) lost the graph: the
    # kernel's argument template took only plain tuples and lists as sequences of tensors
    a = np.array([[1.0, 3.0, 2.0], [0.5, -1.0, 4.0]])
    grads = []
    for T in (jtorch, torch):
        x = T.tensor(a, requires_grad=True)
        y = T.stack(T.aminmax(x, dim=1)) * T.tensor([[1.0], [2.0]], dtype=T.float64)
        z = T.cat(x.max(1)[:1] + (x.sum(0),)).sum() + T.cat(T.sort(x[0]))[:3].sum()
        assert y.requires_grad and z.requires_grad
        (y.sum() + z.sum()).backward()
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(*grads)
