"""torch.utils.flop_counter.FlopCounterMode against real PyTorch: the FLOPs of matrix
products, linear layers and convolutions, forward and backward, per module (found running
PyTorch Lightning, whose model summary counts a forward of ``example_input_array``)."""

import numpy as np
import pytest
import torch
import torch.utils.flop_counter

import jtorch
import jtorch.utils.flop_counter


def _counts(T, build):
    """Total and per-module FLOPs (op names as strings) of ``build(T)()`` within the mode."""
    np.random.seed(0)
    run = build(T)
    with T.utils.flop_counter.FlopCounterMode(display=False) as counter:
        run()
    per_module = {mod: {str(op): n for op, n in ops.items()}
                  for mod, ops in counter.get_flop_counts().items()}
    return counter.get_total_flops(), per_module


def _t(T, *shape, grad=False):
    return T.tensor(np.random.standard_normal(shape).astype(np.float32), requires_grad=grad)


class _Net:
    """A module tree (Linear, Sequential of a bias-free Linear), built in either framework."""

    def __new__(cls, T):
        class Net(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.a = T.nn.Linear(3, 3)
                self.b = T.nn.Sequential(T.nn.Linear(3, 2, bias=False))

            def forward(self, x):
                return self.b(self.a(x))

        return Net()


CASES = {
    "mv": lambda T: lambda: _t(T, 2, 3) @ _t(T, 3),
    "vec@mat": lambda T: lambda: _t(T, 3) @ _t(T, 3, 4),
    "3d@2d": lambda T: lambda: _t(T, 5, 2, 3) @ _t(T, 3, 4),
    "2d@3d": lambda T: lambda: _t(T, 2, 3) @ _t(T, 5, 3, 4),
    "broadcast": lambda T: lambda: _t(T, 5, 1, 2, 3) @ _t(T, 1, 6, 3, 4),
    "mm": lambda T: lambda: T.mm(_t(T, 2, 3), _t(T, 3, 4)),
    "addmm": lambda T: lambda: T.addmm(_t(T, 4), _t(T, 2, 3), _t(T, 3, 4)),
    "bmm": lambda T: lambda: T.bmm(_t(T, 2, 2, 3), _t(T, 2, 3, 4)),
    "mm backward": lambda T: lambda: T.mm(_t(T, 2, 3, grad=True), _t(T, 3, 4)).sum().backward(),
    "linear backward": lambda T: (lambda lin, x: lambda: lin(x).sum().backward())(
        T.nn.Linear(3, 4), _t(T, 5, 2, 3, grad=True)),
    "conv": lambda T: (lambda c, x: lambda: c(x))(
        T.nn.Conv2d(4, 6, 3, stride=2, groups=2), _t(T, 2, 4, 9, 9)),
    "conv backward": lambda T: (lambda c, x: lambda: c(x).sum().backward())(
        T.nn.Conv2d(4, 6, 3, stride=2, groups=2), _t(T, 2, 4, 9, 9, grad=True)),
    "conv_transpose backward": lambda T: (lambda c, x: lambda: c(x).sum().backward())(
        T.nn.ConvTranspose2d(4, 6, 3, stride=2), _t(T, 2, 4, 5, 5, grad=True)),
    "conv1d unbatched": lambda T: lambda: T.nn.functional.conv1d(_t(T, 2, 9), _t(T, 4, 2, 3)),
    "modules": lambda T: (lambda m: lambda: m(_t(T, 4, 3)))(_Net(T)),
    "modules backward": lambda T: (lambda m: lambda: m(_t(T, 4, 3, grad=True)).sum().backward())(
        _Net(T)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_flops_as_pytorch_counts_them(name):
    assert _counts(jtorch, CASES[name]) == _counts(torch, CASES[name])


def test_no_grad_forward_and_outside_the_mode():
    for T in (jtorch, torch):
        lin = T.nn.Linear(3, 4)
        counter = T.utils.flop_counter.FlopCounterMode(display=False)
        with T.no_grad(), counter:
            lin(T.ones(2, 3))
        assert counter.get_total_flops() == 48
        out = lin(T.ones(2, 3, requires_grad=True))
        with counter:
            pass
        out.sum().backward()   # after the mode closed: not counted
        assert counter.get_total_flops() == 0
        assert counter.get_flop_counts() == {"Global": {}}   # get_total_flops made the key
