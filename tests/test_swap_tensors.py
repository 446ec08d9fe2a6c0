"""torch.utils.swap_tensors against PyTorch 2.13: class, data, autograd state and attributes
are exchanged while references stay valid; a leaf's accumulator from before the swap is
poisoned; PyTorch's errors for weak references."""

import weakref

import numpy as np
import pytest
import torch

import jtorch


def _state(t):
    return (type(t).__name__, t.detach().numpy().tolist(), t.requires_grad,
            t.dtype.is_floating_point, tuple(t.shape), getattr(t, "tag", None),
            None if t.grad is None else t.grad.numpy().tolist())


def test_everything_is_exchanged_as_in_pytorch():
    seen = []
    for T in (torch, jtorch):
        a = T.nn.Parameter(T.tensor([1.0, 2.0]))
        a.grad = T.tensor([0.5, 0.25])
        a.tag = "a"
        b = T.tensor([3, 4, 5])
        holder = [a, b]
        T.utils.swap_tensors(a, b)
        assert holder[0] is a and holder[1] is b   # the objects keep their identity
        seen.append((_state(a), _state(b)))
    assert seen[1] == seen[0]


def test_a_swapped_in_parameter_trains_in_a_new_graph():
    a = jtorch.nn.Parameter(jtorch.tensor([1.0, 2.0]))
    b = jtorch.tensor([3.0, 4.0])
    (a * 5).sum().backward()          # a's accumulator exists before the swap
    jtorch.utils.swap_tensors(a, b)
    (b * b).sum().backward()          # by hand: d/db sum(b^2) = 2b, added to the old grad 5
    np.testing.assert_array_equal(b.grad.numpy(), [7.0, 9.0])


def test_a_graph_recorded_before_the_swap_is_poisoned():
    msgs = []
    for T in (torch, jtorch):
        x, y = T.tensor([1.0, 2.0], requires_grad=True), T.tensor([3.0, 4.0])
        loss = (x * 2).sum()
        T.utils.swap_tensors(x, y)
        with pytest.raises(RuntimeError) as e:
            loss.backward()
        msgs.append(str(e.value))
        assert not x.requires_grad and y.requires_grad
    assert msgs[1] == msgs[0]


@pytest.mark.parametrize("which", [0, 1])
def test_a_weakref_refuses_the_swap_as_in_pytorch(which):
    msgs = []
    for T in (torch, jtorch):
        ts = [T.randn(2), T.randn(2)]
        ref = weakref.ref(ts[which])
        with pytest.raises(RuntimeError) as e:
            T.utils.swap_tensors(*ts)
        msgs.append(str(e.value))
        assert ref() is ts[which]
    assert msgs[1] == msgs[0]


def test_an_output_the_graph_saves_can_be_swapped():
    x = jtorch.tensor([1.0, -2.0], requires_grad=True)
    with jtorch.no_grad():
        y = x.exp()   # exp saves its output; no graph under no_grad, but try with one
    z = x.exp()
    other = jtorch.zeros(2)
    jtorch.utils.swap_tensors(z, other)   # the graph's own weak reference is not a user's
    np.testing.assert_array_equal(other.detach().numpy(), y.numpy())
