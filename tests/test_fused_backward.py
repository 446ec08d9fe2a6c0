"""A repeated graph's backward runs as one XLA program (jtorch/_core/fused_backward.py): the
same gradients as PyTorch and as node by node, and PyTorch's errors and hooks where they apply.

Each test records the same graph FUSE_AT times or more, so its later backwards take the fused
path (checked through the module's program cache); the gradients are compared with PyTorch's.
Programs compile at the third sighting here; by default they compile on a helper thread while
the loop goes on node by node (the last test).
"""

import time

import numpy as np
import pytest
import torch
from helpers import assert_close, rand

import jtorch
from jtorch._core import fused_backward

STEPS = 4   # the fixture fuses from the third sighting


@pytest.fixture(autouse=True)
def _fuse_from_third_sighting(monkeypatch):
    monkeypatch.setattr(fused_backward, "FUSE_AT", 3)
    monkeypatch.setattr(fused_backward, "_SEEN", {})
    monkeypatch.setattr(fused_backward, "_PROGRAMS", {})
    monkeypatch.setattr(fused_backward, "_REFUSED", set())
    monkeypatch.setattr(fused_backward, "BACKGROUND", False)   # fused from the third on


def _mlp_params(T):
    return [T.tensor(rand(*s, seed=i), requires_grad=True)
            for i, s in enumerate([(16, 8), (16,), (4, 16), (4,)])]


def _mlp_loss(T, params, x, y):
    w1, b1, w2, b2 = params
    h = (x @ w1.t() + b1).tanh()
    logits = h @ w2.t() + b2
    return T.nn.functional.cross_entropy(logits, y) + (w1 * w1).sum() * 0.01


def _train(T, steps, zero=True, lr=0.1):
    """An eager training loop (manual SGD); returns the parameters' values and last grads."""
    params = _mlp_params(T)
    x = T.tensor(rand(5, 8, seed=10))
    y = T.tensor(np.array([0, 3, 1, 2, 3]))
    for _ in range(steps):
        if zero:
            for p in params:
                p.grad = None
        _mlp_loss(T, params, x, y).backward()
        with T.no_grad():
            for p in params:
                p -= lr * p.grad
    return params


def test_training_loop_matches_pytorch_and_runs_fused():
    steps = STEPS + 2
    expected, actual = _train(torch, steps), _train(jtorch, steps)
    assert len(fused_backward._PROGRAMS) == 1
    for a, e in zip(actual, expected):
        assert_close(a, e)
        assert_close(a.grad, e.grad)


def test_fused_gradients_equal_node_by_node(monkeypatch):
    fused = _train(jtorch, STEPS)
    monkeypatch.setattr(fused_backward, "FUSE_AT", 0)
    by_node = _train(jtorch, STEPS)
    for a, b in zip(fused, by_node):
        np.testing.assert_array_equal(a.grad.numpy(), b.grad.numpy())


def test_gradients_accumulate_into_existing_grad():
    expected, actual = _train(torch, STEPS, zero=False), _train(jtorch, STEPS, zero=False)
    assert fused_backward._PROGRAMS
    for a, e in zip(actual, expected):
        assert_close(a.grad, e.grad)


def _repeat(T, fn, times=STEPS):
    out = None
    for _ in range(times):
        out = fn(T)
    return out


def test_shared_input_and_multiple_roots():
    """A tensor used twice sums its gradients; backward of several roots seeds each."""
    def step(T):
        a = T.tensor(rand(3, 4, seed=1), requires_grad=True)
        b = T.tensor(rand(3, 4, seed=2), requires_grad=True)
        u = (a * b).exp()
        v = (a + a.sin()).sum(0)
        T.autograd.backward([u.sum(), v], [T.tensor(2.0), T.ones(4)])
        return a.grad, b.grad
    expected = _repeat(torch, step)
    actual = _repeat(jtorch, step)
    assert fused_backward._PROGRAMS
    for a, e in zip(actual, expected):
        assert_close(a, e)


def test_unused_output_and_integer_output():
    """max's indices output and one unused half of a split get no gradient."""
    def step(T):
        x = T.tensor(rand(4, 6, seed=3), requires_grad=True)
        values, _ = x.max(1)
        left, _right = x.split(3, dim=1)
        (values.sum() + left.pow(2).sum()).backward()
        return x.grad
    expected = _repeat(torch, step)
    actual = _repeat(jtorch, step)
    assert fused_backward._PROGRAMS
    assert_close(actual, expected)


def test_second_backward_without_retain_graph_raises():
    def step(T):
        x = T.tensor(rand(3, seed=4), requires_grad=True)
        y = (x.exp() * 2).sum()
        y.backward()
        with pytest.raises(RuntimeError, match="Trying to backward through the graph a second"):
            y.backward()
        return x.grad
    assert_close(_repeat(jtorch, step), _repeat(torch, step))
    assert fused_backward._PROGRAMS


def test_retain_graph_runs_twice():
    def step(T):
        x = T.tensor(rand(3, seed=5), requires_grad=True)
        y = (x.exp() * x).sum()
        y.backward(retain_graph=True)
        y.backward()
        return x.grad
    assert_close(_repeat(jtorch, step), _repeat(torch, step))
    assert fused_backward._PROGRAMS


@pytest.mark.parametrize("T", [torch, jtorch], ids=["torch", "jtorch"])
def test_inplace_modification_of_saved_input_raises(T):
    def graph():
        x = T.tensor(rand(3, seed=6), requires_grad=True)
        h = x * 1.0
        return h, (h * h).sum()
    for _ in range(STEPS):
        graph()[1].backward()
    h, y = graph()
    with T.no_grad():
        h.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()
    assert T is torch or fused_backward._PROGRAMS


def test_hooks_run_and_see_pytorch_values():
    """A graph with a tensor hook runs node by node; a leaf's post-accumulate hook runs in
    either path and sees the accumulated gradient."""
    def step(T, seen):
        x = T.tensor(rand(4, seed=7), requires_grad=True)
        x.register_post_accumulate_grad_hook(lambda p: seen.append(p.grad.sum().item()))
        h = x.sin()
        h.register_hook(lambda g: g * 3)
        (h * 2).sum().backward()
        y = x.cos().sum()
        y.backward()
        return x.grad

    seen_t, seen_j = [], []
    expected = _repeat(torch, lambda T: step(T, seen_t))
    actual = _repeat(jtorch, lambda T: step(T, seen_j))
    assert_close(actual, expected)
    np.testing.assert_allclose(seen_j, seen_t, rtol=1e-5)
    assert len(fused_backward._PROGRAMS) == 1   # the hook-free graph of y only


def test_module_and_optimizer_training_matches_pytorch():
    def run(T):
        T.manual_seed(0)
        model = T.nn.Sequential(T.nn.Linear(6, 8), T.nn.ReLU(), T.nn.LayerNorm(8),
                                T.nn.Linear(8, 3))
        with T.no_grad():
            for i, p in enumerate(model.parameters()):
                p.copy_(T.tensor(rand(*p.shape, seed=20 + i, low=-0.5, high=0.5)))
        opt = T.optim.Adam(model.parameters(), lr=0.01)
        x = T.tensor(rand(7, 6, seed=30))
        y = T.tensor(np.array([0, 1, 2, 0, 1, 2, 0]))
        for _ in range(STEPS + 2):
            opt.zero_grad()
            T.nn.functional.cross_entropy(model(x), y).backward()
            opt.step()
        return list(model.parameters())
    expected, actual = run(torch), run(jtorch)
    assert fused_backward._PROGRAMS
    for a, e in zip(actual, expected):
        assert_close(a, e, atol=1e-5, rtol=1e-5)
        assert_close(a.grad, e.grad, atol=1e-5, rtol=1e-5)


def test_changing_shapes_fall_back_to_node_by_node():
    """A loop whose batch size changes every step: the structure's program compiles at most
    MAX_SHAPE_VARIANTS shapes, then the structure runs node by node; gradients stay PyTorch's."""
    def run(T):
        w = T.tensor(rand(6, 3, seed=40), requires_grad=True)
        grads = []
        for n in range(1, 3 * fused_backward.MAX_SHAPE_VARIANTS):
            x = T.tensor(rand(n, 6, seed=n))
            w.grad = None
            (x @ w).softmax(1).pow(2).sum().backward()
            grads.append(w.grad)
        return grads
    expected, actual = run(torch), run(jtorch)
    assert fused_backward._REFUSED and not fused_backward._PROGRAMS
    for a, e in zip(actual, expected):
        assert_close(a, e)


def _count_fused_runs(monkeypatch):
    """A list that gets one entry per backward that ran as the fused program."""
    runs, settle = [], fused_backward.settle
    monkeypatch.setattr(fused_backward, "settle",
                        lambda key, prog: (runs.append(prog), settle(key, prog))[1])
    return runs


def test_background_compile_then_fused(monkeypatch):
    """By default the program compiles on a helper thread; the loop goes on node by node and
    takes the fused path from the SWITCH_AFTER-th sighting after the compile started on,
    however soon the compile finished, with PyTorch's results throughout."""
    monkeypatch.setattr(fused_backward, "BACKGROUND", True)
    monkeypatch.setattr(fused_backward, "SWITCH_AFTER", 2)
    runs = _count_fused_runs(monkeypatch)
    steps = STEPS + 4
    expected = _train(torch, steps)
    params = _mlp_params(jtorch)
    x = jtorch.tensor(rand(5, 8, seed=10))
    y = jtorch.tensor(np.array([0, 3, 1, 2, 3]))
    for step in range(steps):
        for p in params:
            p.grad = None
        if step == fused_backward.FUSE_AT:
            fused_backward.wait()   # compiled already: still node by node until the switch
        _mlp_loss(jtorch, params, x, y).backward()
        with jtorch.no_grad():
            for p in params:
                p -= 0.1 * p.grad
    # sightings 1-2 node by node, 3 starts the compile, 4 node by node, 5 on fused
    assert len(runs) == steps - fused_backward.FUSE_AT - 1
    for a, e in zip(params, expected):
        assert_close(a, e)
        assert_close(a.grad, e.grad)


def test_background_compile_speed_does_not_change_results(monkeypatch):
    """Which steps run fused is fixed, so a seeded loop computes the same bits whether the
    helper thread compiles fast or slowly, even on a graph whose fused gradient differs from
    node by node's in the last bit (a broadcast operand's summed gradient plus a second one)."""
    monkeypatch.setattr(fused_backward, "BACKGROUND", True)
    monkeypatch.setattr(fused_backward, "SWITCH_AFTER", 3)
    b0, c = rand(16, seed=1) * 0.1, rand(8, 16, seed=2)

    def train(slow):
        monkeypatch.setattr(fused_backward, "_SEEN", {})
        monkeypatch.setattr(fused_backward, "_PROGRAMS", {})
        compile_ = fused_backward.FusedBackward._compile
        monkeypatch.setattr(fused_backward.FusedBackward, "_compile",
                            lambda self, *a: (time.sleep(0.5 if slow else 0), compile_(self, *a)))
        b, ct = jtorch.tensor(b0, requires_grad=True), jtorch.tensor(c)
        for _ in range(10):
            b.grad = None
            ((b.exp() * ct).sum() + (b * ct).sum()).backward()
            with jtorch.no_grad():
                b -= 0.01 * b.grad
            if not slow:
                fused_backward.wait()
        return b.detach().numpy()

    fast, slow = train(False), train(True)
    np.testing.assert_array_equal(fast, slow)


def test_autograd_grad_and_backward_inputs_run_fused():
    """autograd.grad captures the gradients arriving at its inputs (leaves and an
    intermediate) and accumulates nothing; backward(inputs=...) accumulates only into those."""
    def step(T):
        a = T.tensor(rand(3, 4, seed=50), requires_grad=True)
        b = T.tensor(rand(4, 2, seed=51), requires_grad=True)
        h = (a @ b).tanh()
        loss = (h * h).sum() + a.sum()
        ga, gh = T.autograd.grad(loss, (a, h), retain_graph=True)
        loss.backward(inputs=[b])
        return ga, gh, b.grad, a.grad
    expected = _repeat(torch, step)
    actual = _repeat(jtorch, step)
    assert len(fused_backward._PROGRAMS) == 2
    assert actual[3] is None and expected[3] is None
    for x, e in zip(actual[:3], expected[:3]):
        assert_close(x, e)


def test_autograd_grad_unused_input_raises_as_pytorch():
    def step(T):
        a = T.tensor(rand(3, seed=52), requires_grad=True)
        c = T.tensor(rand(3, seed=53), requires_grad=True)
        y = a.exp().sum()
        with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
            T.autograd.grad(y, (a, c), retain_graph=True)
        return T.autograd.grad(y, (a, c), allow_unused=True)
    expected = _repeat(torch, step)
    actual = _repeat(jtorch, step)
    assert fused_backward._PROGRAMS
    assert actual[1] is None and expected[1] is None
    assert_close(actual[0], expected[0])


def test_autograd_grad_to_gradient_edges_made_by_hand():
    """TorchJD's autogram Engine asks autograd.grad, step after step (so fused from the third),
    for the gradients at GradientEdges it makes itself from the parameters' nodes: jtorch
    raised AttributeError ('GradientEdge' object has no attribute '_device')."""
    def run(T):
        params = _mlp_params(T)
        x = T.tensor(rand(5, 8, seed=10))
        out = []
        for _ in range(STEPS):
            w1, b1, w2, b2 = params
            losses = ((x @ w1.t() + b1).tanh() @ w2.t() + b2).pow(2).sum(1)
            # edges made by hand from the leaves' nodes, as TorchJD's get_leaf_edges does
            edges = [T.autograd.graph.GradientEdge(T.autograd.graph.get_gradient_edge(p).node,
                                                   0) for p in params]
            out.append(T.autograd.grad(losses, edges, grad_outputs=T.ones_like(losses),
                                       retain_graph=True))
        return out

    t, j = run(torch), run(jtorch)
    assert fused_backward._PROGRAMS
    for ts, js in zip(t, j):
        for a, b in zip(ts, js):
            np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-5, atol=1e-4)
