"""torch.func.functionalize against PyTorch 2.13: same values and gradients, inputs mutated as
the function mutates them, outputs that never alias an input, and the error for a bad
``remove``."""

import numpy as np
import pytest
import torch

import jtorch

REMOVE = ["mutations", "mutations_and_views"]


def _mutating(T):
    def f(x, y):
        v = x.view(-1)
        v.add_(1)                  # mutates the input x through a view
        z = y.clone()
        z.mul_(3)
        return v, z.sin() + x.sum(), {"same": y}
    return f


@pytest.mark.parametrize("remove", REMOVE)
def test_values_input_mutations_and_no_aliasing_as_pytorch(remove):
    a, b = np.arange(4.0).reshape(2, 2), np.array([0.5, -1.0])
    res = {}
    for T in (torch, jtorch):
        x, y = T.tensor(a), T.tensor(b)
        v, s, d = T.func.functionalize(_mutating(T), remove=remove)(x, y)
        v.add_(100)                # an output is not a view of the input: x keeps its values
        d["same"].add_(100)        # nor is an output that was an input
        res[T] = [x.numpy().copy(), y.numpy().copy(), v.numpy(), s.numpy(), d["same"].numpy()]
    for got, ref in zip(res[jtorch], res[torch]):
        np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("remove", REMOVE)
def test_gradients_and_transforms_as_pytorch(remove):
    def f(T):
        def g(x):
            h = x.clone()
            h.mul_(x).add_(2)
            return (h.sin() * x).sum()
        return g
    a = np.array([0.3, -1.2, 2.0])
    ref = torch.func.grad(torch.func.functionalize(f(torch), remove=remove))(torch.tensor(a))
    got = jtorch.func.grad(jtorch.func.functionalize(f(jtorch), remove=remove))(jtorch.tensor(a))
    np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-12)
    xt, xj = torch.tensor(a, requires_grad=True), jtorch.tensor(a, requires_grad=True)
    torch.func.functionalize(f(torch), remove=remove)(xt).backward()
    jtorch.func.functionalize(f(jtorch), remove=remove)(xj).backward()
    np.testing.assert_allclose(xj.grad.numpy(), xt.grad.numpy(), rtol=1e-12)


def test_invalid_remove_raises_as_pytorch():
    with pytest.raises(RuntimeError) as ref:
        torch.func.functionalize(lambda x: x, remove="views")
    with pytest.raises(RuntimeError) as got:
        jtorch.func.functionalize(lambda x: x, remove="views")
    assert str(got.value) == str(ref.value)


def test_keeps_the_wrapped_functions_name():
    def my_step(x):
        return x * 2
    assert jtorch.func.functionalize(my_step).__name__ == "my_step"


@pytest.mark.parametrize("remove", REMOVE)
@pytest.mark.parametrize("case", ["view", "identity", "mutated_identity", "transpose",
                                  "mutated_view", "detach"])
def test_outputs_alias_inputs_where_pytorch_s_do(remove, case):
    fns = {"view": lambda x: x.view(-1), "identity": lambda x: x,
           "mutated_identity": lambda x: x.add_(1), "transpose": lambda x: x.t(),
           "mutated_view": lambda x: x.view(-1).add_(1), "detach": lambda x: x.detach()}
    seen = []
    for T in (torch, jtorch):
        x = T.zeros(2, 2)
        out = T.func.functionalize(fns[case], remove=remove)(x)
        is_input = out is x
        out.add_(10)               # does writing the output write the input?
        seen.append((is_input, x.numpy().tolist(), out.numpy().tolist()))
    assert seen[1] == seen[0]
