"""torch.conv_tbc / F.conv_tbc against PyTorch 2.13: values and gradients of input, weight and
bias over paddings and kernel widths, integer and bfloat16 inputs, and PyTorch's errors."""

import numpy as np
import pytest
import torch

import jtorch

G = np.random.default_rng(0)
X, W, B = G.standard_normal((7, 2, 3)), G.standard_normal((3, 3, 4)), G.standard_normal(4)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("pad", [0, 1, 3])
@pytest.mark.parametrize("width", [1, 3])
def test_values_and_gradients_as_pytorch(dtype, pad, width):
    res = []
    for T in (torch, jtorch):
        x, w, b = (T.tensor(a[:width] if a is W else a, dtype=getattr(T, dtype),
                            requires_grad=True) for a in (X, W, B))
        y = T.nn.functional.conv_tbc(x, w, b, pad)
        (y * y.detach().cos()).sum().backward()
        res.append([y.detach().numpy(), x.grad.numpy(), w.grad.numpy(), b.grad.numpy()])
        assert y.grad_fn.name() == "ConvTbcBackward0"
    tol = 1e-5 if dtype == "float32" else 1e-12
    for got, ref in zip(res[1], res[0]):
        np.testing.assert_allclose(got, ref, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", ["int64", "bfloat16"])
def test_other_dtypes_as_pytorch(dtype):
    src = [np.round(a * 3) for a in (X, W, B)]
    ref = torch.conv_tbc(*(torch.tensor(a).to(getattr(torch, dtype)) for a in src), 1)
    got = jtorch.conv_tbc(*(jtorch.tensor(a).to(getattr(jtorch, dtype)) for a in src), 1)
    assert got.dtype == getattr(jtorch, dtype)
    np.testing.assert_array_equal(got.float().numpy(), ref.float().numpy())


def test_a_float64_bias_is_cast_to_the_input_dtype():
    ref = torch.conv_tbc(torch.tensor(X, dtype=torch.float32), torch.tensor(W, dtype=torch.float32),
                         torch.tensor(B))
    got = jtorch.conv_tbc(jtorch.tensor(X, dtype=jtorch.float32),
                          jtorch.tensor(W, dtype=jtorch.float32), jtorch.tensor(B))
    assert got.dtype == jtorch.float32
    np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", ["input_dims", "weight_dims", "bias_dims", "bias_size",
                                  "channels", "dtypes", "too_short"])
def test_errors_as_pytorch(case):
    def args(T):
        x, w, b = T.tensor(X), T.tensor(W), T.tensor(B)
        return {"input_dims": (x[0], w, b, 0), "weight_dims": (x, w[0], b, 0),
                "bias_dims": (x, w, b[:, None], 0), "bias_size": (x, w, b[:2], 0),
                "channels": (x, w[:, :2], b, 0), "dtypes": (x, w.float(), b, 0),
                "too_short": (x, T.tensor(G.standard_normal((12, 3, 4))), b, 1)}[case]
    with pytest.raises(RuntimeError) as ref:
        torch.conv_tbc(*args(torch))
    with pytest.raises(RuntimeError) as got:
        jtorch.conv_tbc(*args(jtorch))
    assert str(got.value) == str(ref.value)


def test_compiles_to_the_eager_values_and_gradients():
    def step(x, w, b):
        y = jtorch.conv_tbc(x, w, b, 2)
        y.pow(2).sum().backward()
        return y

    vals = []
    for fn in (step, jtorch.compile(step)):
        x, w, b = (jtorch.tensor(a, requires_grad=True) for a in (X, W, B))
        y = fn(x, w, b)
        vals.append([y.detach().numpy(), x.grad.numpy(), w.grad.numpy(), b.grad.numpy()])
    for got, ref in zip(vals[1], vals[0]):
        np.testing.assert_allclose(got, ref, rtol=1e-12)
