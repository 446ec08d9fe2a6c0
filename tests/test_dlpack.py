"""DLPack exchange against PyTorch: torch.from_dlpack of NumPy arrays and capsules,
torch.utils.dlpack, numpy.from_dlpack of a tensor, tensors passed between jtorch and real
PyTorch, and the errors."""

import numpy as np
import pytest
import torch
from helpers import raises_like

import jtorch


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int8, np.bool_])
def test_from_dlpack_of_numpy(dtype):
    a = (np.arange(12).reshape(3, 4) % 5).astype(dtype)
    j, t = jtorch.from_dlpack(a), torch.from_dlpack(a)
    assert str(j.dtype) == str(t.dtype) and tuple(j.shape) == tuple(t.shape)
    np.testing.assert_array_equal(j.numpy(), t.numpy())


def test_numpy_reads_a_tensor_and_capsules_round_trip():
    for T in (torch, jtorch):
        x = T.arange(6.).reshape(2, 3)
        np.testing.assert_array_equal(np.from_dlpack(x), np.arange(6.).reshape(2, 3))
        assert x.__dlpack_device__() == torch.zeros(1).__dlpack_device__()
        y = T.utils.dlpack.from_dlpack(T.utils.dlpack.to_dlpack(x))
        np.testing.assert_array_equal(y.numpy(), x.numpy())


def test_exchange_with_real_pytorch():
    j = jtorch.from_dlpack(torch.arange(5, dtype=torch.int32))
    assert str(j.dtype) == "torch.int32" and j.tolist() == [0, 1, 2, 3, 4]
    t = torch.from_dlpack(jtorch.linspace(0, 1, 3))
    assert t.tolist() == [0.0, 0.5, 1.0]
    j2 = jtorch.from_dlpack(torch.utils.dlpack.to_dlpack(torch.ones(2, 2)))
    assert j2.tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_errors():
    raises_like(lambda: torch.ones(2, requires_grad=True).__dlpack__(),
                lambda: jtorch.ones(2, requires_grad=True).__dlpack__())
    raises_like(lambda: torch.from_dlpack(5), lambda: jtorch.from_dlpack(5))

    def twice(T):
        c = T.utils.dlpack.to_dlpack(T.ones(2))
        T.from_dlpack(c)
        T.from_dlpack(c)

    raises_like(lambda: twice(torch), lambda: twice(jtorch))
