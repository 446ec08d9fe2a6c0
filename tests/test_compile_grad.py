"""jtorch.compile of a plain function: outputs that require grad carry it (as in PyTorch),
gradients equal eager PyTorch's; and a training step compiles once (cold state included)."""

from __future__ import annotations

import numpy as np
import torch

import jtorch


def _data(seed, *shapes):
    g = np.random.default_rng(seed)
    return [g.standard_normal(s).astype(np.float32) for s in shapes]


def test_compiled_function_outputs_require_grad_like_torch_eager():
    (xs,) = _data(0, (3,))
    tx = torch.tensor(xs, requires_grad=True)
    (tx * tx).sum().backward()

    f = jtorch.compile(lambda x: (x * x).sum())
    for _ in range(2):   # the first call compiles, the second reuses the program
        jx = jtorch.tensor(xs, requires_grad=True)
        y = f(jx)
        assert y.requires_grad and y.grad_fn is not None
        y.backward()
        np.testing.assert_allclose(jx.grad.numpy(), tx.grad.numpy(), rtol=1e-6)
    with jtorch.no_grad():
        assert not f(jtorch.tensor(xs, requires_grad=True)).requires_grad
    assert not f(jtorch.tensor(xs)).requires_grad


def test_compiled_function_closing_over_a_module_backpropagates_like_torch_eager():
    w, b, xs = _data(1, (4, 5), (4,), (2, 5))
    tm, jm = torch.nn.Linear(5, 4), jtorch.nn.Linear(5, 4)
    for m, T in ((tm, torch), (jm, jtorch)):
        m.load_state_dict({"weight": T.tensor(w), "bias": T.tensor(b)})
    tx = torch.tensor(xs, requires_grad=True)
    tloss = torch.tanh(tm(tx)).pow(2).mean()
    tloss.backward()

    f = jtorch.compile(lambda x: jtorch.tanh(jm(x)).pow(2).mean())
    jx = jtorch.tensor(xs, requires_grad=True)
    jloss = f(jx)
    assert jloss.requires_grad
    jloss.backward()
    np.testing.assert_allclose(jloss.item(), tloss.item(), rtol=1e-6)
    for j, t in ((jx, tx), (jm.weight, tm.weight), (jm.bias, tm.bias)):
        np.testing.assert_allclose(j.grad.numpy(), t.grad.numpy(), rtol=1e-5, atol=1e-7)
