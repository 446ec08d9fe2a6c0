"""torch.get_device_module against PyTorch 2.13: the module of a device type, the current
accelerator's (the CPU's without one) by default, and PyTorch's errors."""

import pytest
import torch

import jtorch


@pytest.mark.parametrize("device", [None, "cpu", "cpu:0", "cuda", "cuda:1"])
def test_the_module_of_a_device_type_as_pytorch(device):
    ref = torch.get_device_module(device if device is None or isinstance(device, str)
                                  else torch.device(device))
    got = jtorch.get_device_module(device)
    assert got.__name__ == ref.__name__.replace("torch", "jtorch", 1)
    if device is not None:
        assert jtorch.get_device_module(jtorch.device(device)) is got


@pytest.mark.parametrize("device", ["meta", "foo", 3])
def test_errors_as_pytorch(device):
    with pytest.raises(RuntimeError) as ref:
        torch.get_device_module(device)
    with pytest.raises(RuntimeError) as got:
        jtorch.get_device_module(device)
    assert str(got.value) == str(ref.value)


def test_a_backend_module_jtorch_lacks_is_not_implemented():
    with pytest.raises(NotImplementedError, match="torch.mps"):
        jtorch.get_device_module("mps")
