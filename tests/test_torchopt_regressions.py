"""Regressions found by running TorchOpt unchanged under jtorch
(scripts/real_drivers/torchopt_meta.py, docs/real-programs.md): each test is a small stand-in
for what the library did, in plain torch-API code, run in jtorch and in real PyTorch."""

import pytest
import torch

import jtorch


def test_distributed_autograd_is_a_build_without_it():
    # torchopt.distributed.autograd runs `import torch.distributed.autograd as autograd` and
    # `from torch.distributed.autograd import context` at `import torchopt`
    # (ModuleNotFoundError), then asks autograd.is_available() before defining its backward
    import torch.distributed.autograd as want

    import jtorch.distributed.autograd as autograd
    from jtorch.distributed.autograd import context

    assert jtorch.distributed.autograd is autograd
    assert autograd.is_available() is False
    assert want.__all__ == autograd.__all__ == ["context", "is_available"]
    assert isinstance(want.is_available(), bool)
    # PyTorch's names beyond __all__, as a build without distributed autograd lacks them
    for name in ("backward", "get_gradients", "DistAutogradContext"):
        assert not hasattr(autograd, name)
        with pytest.raises(NotImplementedError,
                           match=f"torch.distributed.autograd.{name}"):
            getattr(autograd, name)
    with pytest.raises(NotImplementedError, match="torch.distributed.autograd.context"):
        with context():
            pass
    assert not hasattr(autograd, "__wrapped__")  # dunders stay plain AttributeErrors
    assert torch.distributed.autograd.context.__name__ == context.__name__
