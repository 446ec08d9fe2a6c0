"""Regressions found by running zuko and nflows unchanged under jtorch
(scripts/real_drivers/flow_libs.py, docs/real-programs.md): each test is a small stand-in for
what the library did, in plain torch-API code, run in jtorch and in real PyTorch."""

import pytest
import torch

import jtorch


def _leaky_relu_mask(T, default, kind):
    previous = T.get_default_dtype()
    T.set_default_dtype(getattr(T, default))
    try:
        x = T.tensor([-1.5, 0.0, 2.0, -0.25], requires_grad=True)
        kind = T.Tensor if kind == "class" else "torch.Tensor"
        mask = (x < 0).type(kind)
        y = x * (0.1 * mask + (1 - mask))
        y.sum().backward()
        half = T.tensor([1.0, 2.0], dtype=T.float16).type(kind)
        same = T.tensor([1.0]).type(kind)
        return (str(mask.dtype), mask.tolist(), y.tolist(), x.grad.tolist(), str(half.dtype),
                same.type(kind) is same)
    finally:
        T.set_default_dtype(previous)


@pytest.mark.parametrize("default", ["float32", "float64"])
@pytest.mark.parametrize("kind", ["class", "string"])
def test_type_torch_tensor_is_the_default_type(default, kind):
    # nflows' LeakyReLU: mask = (inputs < 0).type(torch.Tensor), a float mask in the default
    # dtype (ValueError "invalid type: 'torch._tensor.Tensor'" in jtorch), then its gradient
    assert _leaky_relu_mask(jtorch, default, kind) == _leaky_relu_mask(torch, default, kind)
