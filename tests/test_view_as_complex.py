"""torch.view_as_real and torch.view_as_complex against PyTorch: values and gradients (LLaMA's
rotary embedding), strides, writes through the views in both directions, grad_fn names and
PyTorch's errors."""

import numpy as np
import pytest
import torch
from helpers import parity, raises_like

import jtorch


def _rotary(T, xq, xk, freqs):
    """Meta's LLaMA ``apply_rotary_emb``: pairs of features rotated as complex numbers."""
    freqs_cis = T.polar(T.ones_like(freqs), freqs)
    xq_ = T.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
    xk_ = T.view_as_complex(xk.float().reshape(*xk.shape[:-1], -1, 2))
    freqs_cis = freqs_cis.view(1, xq_.shape[1], 1, xq_.shape[-1])
    xq_out = T.view_as_real(xq_ * freqs_cis).flatten(3)
    xk_out = T.view_as_real(xk_ * freqs_cis).flatten(3)
    return xq_out.type_as(xq), xk_out.type_as(xk)


def test_llama_rotary_embedding_values_and_gradients():
    rng = np.random.default_rng(0)
    xq = rng.standard_normal((2, 5, 3, 8)).astype(np.float32)
    xk = rng.standard_normal((2, 5, 3, 8)).astype(np.float32)
    freqs = np.outer(np.arange(5), 1.0 / 10000 ** (np.arange(0, 8, 2) / 8)).astype(np.float32)
    parity(_rotary, xq, xk, freqs, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_round_trip_values_and_gradients(dtype):
    x = np.random.default_rng(1).standard_normal((4, 3, 2)).astype(dtype)
    parity(lambda T, x: T.view_as_real(T.view_as_complex(x) * (1 - 2j)).sum(-1), x)
    parity(lambda T, x: T.view_as_complex(x.transpose(0, 1)).abs(), x)


@pytest.mark.parametrize("make", [
    lambda T: T.view_as_real(T.zeros(3, 4, dtype=T.complex64)),
    lambda T: T.view_as_real(T.zeros(3, 4, dtype=T.complex64).t()),
    lambda T: T.view_as_real(T.zeros(3, 4, dtype=T.complex128)[1:, ::2]),
    lambda T: T.view_as_complex(T.zeros(3, 4, 2)),
    lambda T: T.view_as_complex(T.zeros(3, 4, 2).transpose(0, 1)),
    lambda T: T.view_as_complex(T.zeros(3, 6)[:, 2:4]),
    lambda T: T.view_as_complex(T.zeros(3, 2, dtype=T.float64)).unsqueeze(0),
], ids=["real", "real_t", "real_sliced", "complex", "complex_t", "complex_offset",
        "complex_unsqueezed"])
def test_strides_offsets_dtypes(make):
    t, j = make(torch), make(jtorch)
    assert tuple(j.shape) == tuple(t.shape)
    assert tuple(j.stride()) == tuple(t.stride())
    assert j.storage_offset() == t.storage_offset()
    assert j.is_contiguous() == t.is_contiguous()
    assert str(j.dtype) == str(t.dtype)


def _writes(T):
    """Writes through both views and into the base; every tensor's values after each."""
    seen = []
    z = T.complex(T.arange(6.).reshape(2, 3), T.arange(6., 12.).reshape(2, 3))
    r = T.view_as_real(z)
    r[0, 1, 1] = 100.0                      # the imaginary part of z[0, 1]
    seen += [z.clone(), r.clone()]
    c = T.view_as_complex(r[:, 1:])         # a complex view of a real view of z
    c.mul_(2 - 1j)
    seen += [z.clone(), r.clone(), c.clone()]
    z.add_(1j)                              # the base: both views see it
    seen += [r.clone(), c.clone()]
    x = T.arange(12.).reshape(3, 2, 2)
    y = T.view_as_complex(x.transpose(0, 1))
    y[0] = 1 + 2j
    seen += [x.clone(), y.clone()]
    T.view_as_real(y).add_(1)
    seen += [x.clone(), y.clone()]
    return seen


def test_writes_through_views_reach_the_base_and_each_other():
    for t, j in zip(_writes(torch), _writes(jtorch)):
        np.testing.assert_array_equal(j.numpy(), t.numpy())


def test_writes_through_views_are_differentiable():
    def fn(T, a):
        z = T.complex(a, a * 2)
        r = T.view_as_real(z)
        r[..., 0].mul_(a)                  # the real parts, scaled in place
        return T.view_as_real(z * (0.5 + 1j))

    parity(fn, np.random.default_rng(2).standard_normal((3, 4)).astype(np.float32))


def test_grad_fn_names():
    for T in (torch, jtorch):
        x = T.ones(3, 2, requires_grad=True)
        z = T.view_as_complex(x)
        assert type(z.grad_fn).__name__ == "ViewAsComplexBackward0"
        assert type(T.view_as_real(z).grad_fn).__name__ == "ViewAsRealBackward0"
    assert not hasattr(jtorch.Tensor, "view_as_real")   # (a function only, as in PyTorch)


@pytest.mark.parametrize("make", [
    lambda T: T.view_as_real(T.zeros(3)),
    lambda T: T.view_as_complex(T.zeros(3, 2, dtype=T.int64)),
    lambda T: T.view_as_complex(T.zeros(3, 2, dtype=T.bfloat16)),
    lambda T: T.view_as_complex(T.zeros((), dtype=T.float64)),
    lambda T: T.view_as_complex(T.zeros(3, 3)),
    lambda T: T.view_as_complex(T.zeros(2, 3).t()),
    lambda T: T.view_as_complex(T.zeros(3, 3)[:, 1:]),
    lambda T: T.view_as_complex(T.zeros(3, 4)[:, 1:3]),
    lambda T: T.view_as_complex(T.zeros(3, 5)[:, :2]),
], ids=["real_of_real", "complex_of_long", "complex_of_bf16", "complex_of_0d", "last_not_2",
        "last_stride", "offset", "odd_offset", "odd_stride"])
def test_errors(make):
    raises_like(lambda: make(torch), lambda: make(jtorch))


def test_half_is_reported_as_not_implemented():
    with pytest.raises(NotImplementedError, match="view_as_complex"):
        jtorch.view_as_complex(jtorch.zeros(3, 2, dtype=jtorch.float16))
