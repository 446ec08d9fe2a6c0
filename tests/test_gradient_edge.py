"""torch.autograd.graph.get_gradient_edge and GradientEdge inputs of autograd.grad and
backward, against PyTorch 2.13: an edge keeps the node its tensor had when it was taken (a
later in-place op does not move it), leaf edges accumulate in backward(inputs=...), and
PyTorch's errors."""

import numpy as np
import pytest
import torch

import jtorch
from jtorch._core import fused_backward

A, B = np.array([0.5, -1.5, 2.0]), np.array([1.25, 0.75, -0.5])


def _both(fn):
    """fn(T, get_gradient_edge) run in PyTorch and jtorch; NumPy copies of what it returns."""
    out = []
    for T in (torch, jtorch):
        res = fn(T, T.autograd.graph.get_gradient_edge)
        out.append([None if r is None else np.asarray(r.detach().numpy()) for r in res])
    return out


def _assert_same(ref, got):
    assert len(ref) == len(got)
    for r, g in zip(ref, got):
        assert (r is None) == (g is None)
        if r is not None:
            np.testing.assert_allclose(g, r, rtol=1e-12)


def test_an_edge_keeps_the_node_from_before_an_in_place_op():
    def fn(T, edge_of):
        x = T.tensor(A, requires_grad=True)
        y = x * 2
        e = edge_of(y)
        y.mul_(3)
        loss = (y ** 2).sum()
        by_edge, by_tensor, of_x = T.autograd.grad(loss, [e, y, x])
        return by_edge, by_tensor, of_x
    _assert_same(*_both(fn))


def test_leaf_and_view_edges_and_the_edge_fields():
    def fn(T, edge_of):
        x = T.tensor(np.stack([A, B]), requires_grad=True)
        first, second = x.unbind()
        e = edge_of(second)
        assert e.output_nr == 1 and edge_of(x).output_nr == 0
        assert e.ownership_token is None and len(e) == 3
        assert type(e).__name__ == "GradientEdge" and e._fields == ("node", "output_nr",
                                                                      "ownership_token")
        assert edge_of(x).node.name() == "torch::autograd::AccumulateGrad"
        loss = (first * second.exp()).sum()
        return T.autograd.grad(loss, (e, edge_of(x), edge_of(first)))
    _assert_same(*_both(fn))


def test_backward_with_edges_accumulates_only_into_leaf_edges():
    def fn(T, edge_of):
        x, w = T.tensor(A, requires_grad=True), T.tensor(B, requires_grad=True)
        loss = (x * w).sum()
        loss.backward(inputs=[edge_of(x)], retain_graph=True)
        y = x * w
        y.sum().backward(inputs=edge_of(y))       # a non-leaf edge: nothing to accumulate
        assert not y.retains_grad
        return x.grad, w.grad
    _assert_same(*_both(fn))


@pytest.mark.parametrize("case", ["no_grad", "unused", "materialize"])
def test_errors_as_pytorch(case):
    errs = []
    for T in (torch, jtorch):
        edge_of = T.autograd.graph.get_gradient_edge
        x, z = T.tensor(A, requires_grad=True), T.tensor(B, requires_grad=True)
        loss = (x * x).sum()
        with pytest.raises(RuntimeError) as e:
            if case == "no_grad":
                edge_of(T.tensor(A))
            elif case == "unused":
                T.autograd.grad(loss, edge_of(z))
            else:
                T.autograd.grad(loss, edge_of(z), materialize_grads=True)
        errs.append(str(e.value))
    assert errs[1] == errs[0]
    x = jtorch.tensor(A, requires_grad=True)
    z = jtorch.tensor(B, requires_grad=True)
    assert jtorch.autograd.grad((x * x).sum(), jtorch.autograd.graph.get_gradient_edge(z),
                                allow_unused=True) == (None,)


def test_edges_in_a_repeated_graph_take_the_fused_backward(monkeypatch):
    monkeypatch.setattr(fused_backward, "FUSE_AT", 2)
    monkeypatch.setattr(fused_backward, "BACKGROUND", False)
    w = jtorch.tensor(B, requires_grad=True)
    wt = torch.tensor(B, requires_grad=True)
    for _ in range(4):
        x, xt = jtorch.tensor(A), torch.tensor(A)
        h, ht = (x * w).tanh(), (xt * wt).tanh()
        e, et = (jtorch.autograd.graph.get_gradient_edge(h),
                 torch.autograd.graph.get_gradient_edge(ht))
        got = jtorch.autograd.grad((h * h).sum(), [e, w])
        ref = torch.autograd.grad((ht * ht).sum(), [et, wt])
        for g, r in zip(got, ref):
            np.testing.assert_allclose(g.numpy(), r.numpy(), rtol=1e-12)
    assert any(p.ready for p in fused_backward._PROGRAMS.values())
