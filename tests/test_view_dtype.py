"""Tensor.view(dtype) against PyTorch: the bits read as another dtype, shapes and strides
between element sizes, storage shared both ways, no gradient, and PyTorch's errors."""

import numpy as np
import pytest
import torch
from helpers import raises_like

import jtorch

CASES = [
    ("float32", "int32", lambda T, x: x), ("float32", "int32", lambda T, x: x.t()),
    ("float32", "uint8", lambda T, x: x), ("float32", "int16", lambda T, x: x[1:]),
    ("int16", "float32", lambda T, x: x), ("int16", "float32", lambda T, x: x[1:, 2:]),
    ("uint8", "float64", lambda T, x: x), ("float16", "bfloat16", lambda T, x: x),
    ("int64", "float64", lambda T, x: x[:, ::2]), ("bool", "uint8", lambda T, x: x),
    ("float64", "int8", lambda T, x: x[1:]),
]


def _base(T, dtype):
    a = np.arange(48).reshape(3, 16)
    if dtype == "bool":
        return T.tensor(a % 3 == 0)
    if dtype in ("int16", "uint8", "int64"):
        return T.tensor(a, dtype=getattr(T, dtype))
    return T.tensor(a * 0.37 - 4, dtype=getattr(T, dtype))


@pytest.mark.parametrize("src,dst,pick", CASES,
                         ids=[f"{a}-{b}-{i}" for i, (a, b, _) in enumerate(CASES)])
def test_values_geometry_and_shared_storage(src, dst, pick):
    seen = []
    for T in (torch, jtorch):
        base = _base(T, src)
        v = pick(T, base).view(getattr(T, dst))
        got = [tuple(v.shape), tuple(v.stride()), v.storage_offset(), str(v.dtype),
               v.clone()]
        if v.numel() and tuple(v.shape) == tuple(pick(T, base).shape):   # same element size
            v[0] = v[-1]          # a write through the view lands in the base's bits
            got.append(base.clone())
        base.view(-1)[:5] = base.view(-1)[5:10]
        got.append(v.clone())     # and a write to the base shows in the view
        seen.append(got)
    t, j = seen
    for a, b in zip(j, t):
        if isinstance(b, torch.Tensor):
            np.testing.assert_array_equal(_bytes(a), _bytes(b))
        else:
            assert a == b


def _bytes(t):
    if "bfloat16" in str(t.dtype):   # (PyTorch's numpy() has no bfloat16; the float is exact)
        t = t.float()
    return np.ascontiguousarray(t.numpy()).view(np.uint8)


def test_no_gradient():
    for T in (torch, jtorch):
        a = T.ones(2, 3, requires_grad=True)
        for v in (a.view(T.int32), (a * 1).half().view(T.bfloat16)):
            assert not v.requires_grad and v.grad_fn is None


@pytest.mark.parametrize("make", [
    lambda T: T.zeros(3, 4, dtype=T.int16).t().view(T.float32),
    lambda T: T.zeros(4, 5, dtype=T.int16)[:, :2].view(T.float32),
    lambda T: T.zeros(4, 4, dtype=T.int16)[:, 1:3].view(T.float32),
    lambda T: T.zeros(3, 3, dtype=T.int16).view(T.float32),
    lambda T: T.zeros((), dtype=T.int16).view(T.float32),
    lambda T: T.zeros(2, 3).t().view(T.uint8),
], ids=["stride_last", "stride0", "offset", "size", "zero_dim", "to_smaller_stride"])
def test_errors(make):
    raises_like(lambda: make(torch), lambda: make(jtorch))


def test_complex_views_are_reported():
    with pytest.raises(NotImplementedError, match="view_as_real"):
        jtorch.zeros(2, dtype=jtorch.complex64).view(jtorch.float32)


def test_size_changing_write_reaches_the_base():
    # (schedulefree swaps tensors by XOR through view(torch.uint8); more in
    # tests/test_optimizers_regressions.py)
    got, want = jtorch.zeros(2, 4), torch.zeros(2, 4)
    for t, T in ((got, jtorch), (want, torch)):
        v = t.view(T.uint8)
        v[0, 3] = 63
        v[1, 1:3] = 7
    np.testing.assert_array_equal(got.numpy(), want.numpy())
