"""Regressions found by running snntorch unchanged under jtorch
(scripts/real_drivers/snntorch_snns.py, docs/real-programs.md): each test is a small stand-in
for what the library did, in plain torch-API code, run in jtorch and in real PyTorch."""

import warnings

import numpy as np
import pytest
import torch

import jtorch


@pytest.mark.parametrize("T", [torch, jtorch], ids=["torch", "jtorch"])
def test_c_value_importable_without_constructor(T):
    """``snntorch.functional.loss`` starts with ``from torch._C import Value`` (a TorchScript IR
    class it never uses): the import failed with ImportError. As in PyTorch, the class exists,
    nothing is an instance of it, and it cannot be constructed."""
    from_c = T._C.Value
    assert isinstance(from_c, type)
    assert not isinstance(T.zeros(1), from_c)
    with pytest.raises(TypeError, match=r"torch\._C\.Value: No constructor defined!"):
        from_c()


def _full_backward_hook_warning(T):
    """snntorch's GradOutputMonitor: a full backward hook on a first layer whose input needs no
    gradient, so PyTorch warns when backward() runs; returns the warning and the gradient the
    hook saw."""
    lin = T.nn.Linear(3, 2)
    with T.no_grad():
        lin.weight.copy_(T.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]))
        lin.bias.zero_()
    seen = []
    lin.register_full_backward_hook(lambda m, gi, go: seen.append((gi, go[0].clone())))
    x = T.tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        (lin(x) ** 2).sum().backward()  # the line the warning must point at
    return caught, seen, lin.weight.grad


def test_full_backward_hook_warning_points_at_backward_call():
    """The "Full backward hook is firing ... no inputs require gradients" UserWarning pointed
    into jtorch/autograd/gradients.py (a fixed stacklevel copied from PyTorch, whose engine
    stack is shorter); PyTorch's points at the user's ``backward()`` line."""
    results = {}
    for T in (torch, jtorch):
        caught, seen, wgrad = _full_backward_hook_warning(T)
        hooks = [w for w in caught if "Full backward hook is firing" in str(w.message)]
        assert len(hooks) == 1, [str(w.message) for w in caught]
        assert hooks[0].category is UserWarning
        assert hooks[0].filename == __file__, hooks[0].filename
        assert len(seen) == 1 and seen[0][0] == (None,)
        results[T.__name__] = (seen[0][1].detach().numpy(), wgrad.numpy())
    for a, b in zip(results["torch"], results["jtorch"]):
        np.testing.assert_allclose(b, a, rtol=1e-6, atol=1e-6)
