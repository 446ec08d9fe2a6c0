"""Regressions found by running pytorch/tutorials' scripts under jtorch (docs/real-programs.md):
each test is a small stand-in for what the tutorial did, run in jtorch and in real PyTorch."""

import numpy as np
import pytest
import torch

import jtorch


def _names(node):
    return [None if f is None else type(f).__name__ for f, _ in node.next_functions]


def _linear_graph(T, shape, bias):
    T.manual_seed(0)
    w = T.tensor(np.linspace(-1, 1, 12).reshape(4, 3), dtype=T.float32, requires_grad=True)
    b = T.tensor([0.5, -0.25, 0.125, 1.0], requires_grad=True) if bias else None
    x = T.tensor(np.linspace(-2, 2, int(np.prod(shape))).reshape(shape), dtype=T.float32,
                 requires_grad=True)
    y = T.nn.functional.linear(T.relu(x), w, b)
    return x, w, b, y


@pytest.mark.parametrize("bias", [True, False])
def test_linear_node_lists_its_inputs_as_pytorch(bias):
    # beginner_source/blitz/neural_networks_tutorial.py prints
    # loss.grad_fn.next_functions[0][0].next_functions[0][0]: the last Linear's AddmmBackward0
    # lists the bias first (addmm(bias, input, weight.t())), so that is an AccumulateGrad
    *_, y = _linear_graph(jtorch, (2, 3), bias)
    *_, expected = _linear_graph(torch, (2, 3), bias)
    got, want = _names(y.grad_fn), _names(expected.grad_fn)
    assert type(y.grad_fn).__name__ == type(expected.grad_fn).__name__
    # PyTorch passes the weight through a TBackward0 (its t()); jtorch's edge goes to the
    # weight's AccumulateGrad directly
    assert got[:-1] == want[:-1]
    assert want[-1] == "TBackward0" and got[-1] == "AccumulateGrad"
    if bias:
        assert got[0] == "AccumulateGrad" and got[1] == "ReluBackward0"


def test_linear_node_hooks_see_the_bias_gradient_first():
    # a node hook's grad_inputs follow next_functions: (bias, input, ...)
    seen = {}
    for name, T in (("jtorch", jtorch), ("torch", torch)):
        x, w, b, y = _linear_graph(T, (2, 3), True)
        grads = []
        y.grad_fn.register_hook(lambda gi, go, grads=grads: grads.extend(gi))
        (y * T.arange(8.0).reshape(2, 4)).sum().backward()
        seen[name] = grads, (x.grad, w.grad, b.grad)
    (jgi, (jx, jw, jb)), (tgi, (tx, tw, tb)) = seen["jtorch"], seen["torch"]
    np.testing.assert_allclose(jgi[0].numpy(), tgi[0].numpy(), rtol=1e-6)  # the bias's
    np.testing.assert_allclose(jgi[1].numpy(), tgi[1].numpy(), rtol=1e-6)  # relu(x)'s
    np.testing.assert_allclose(jb.numpy(), tb.numpy(), rtol=1e-6)
    np.testing.assert_allclose(jw.numpy(), tw.numpy(), rtol=1e-6)
    np.testing.assert_allclose(jx.numpy(), tx.numpy(), rtol=1e-6)


def test_linear_bias_edge_is_the_bias_parameter():
    # the AccumulateGrad the tutorial reaches holds the last layer's bias
    for T in (jtorch, torch):
        layer = T.nn.Linear(3, 2)
        out = layer(T.relu(T.ones(1, 3, requires_grad=True)))
        loss = T.nn.functional.mse_loss(out, T.zeros(1, 2))
        acc = loss.grad_fn.next_functions[0][0].next_functions[0][0]
        assert type(acc).__name__ == "AccumulateGrad"
        assert acc.variable is layer.bias
