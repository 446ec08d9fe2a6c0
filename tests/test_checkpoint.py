"""utils.checkpoint: the same outputs and gradients as without it, against real PyTorch."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import jtorch
from tests.helpers import assert_close

RS = np.random.default_rng(0)
W1 = RS.standard_normal((4, 5)).astype(np.float32)
W2 = RS.standard_normal((5, 3)).astype(np.float32)
X = RS.standard_normal((6, 4)).astype(np.float32)


def _run(T, ck, reentrant, xgrad, seg_kind="tuple"):
    w1 = T.tensor(W1, requires_grad=True)
    w2 = T.tensor(W2, requires_grad=True)
    x = T.tensor(X, requires_grad=xgrad)

    def seg(h, scale=2.0):
        return T.tanh(h @ w1) @ w2, (h * scale).sum()

    if ck:
        a, b = T.utils.checkpoint.checkpoint(seg, x, use_reentrant=reentrant)
    else:
        a, b = seg(x)
    (a.pow(2).sum() + b).backward()
    return a, b, w1.grad, w2.grad, x.grad


@pytest.mark.parametrize("reentrant", [True, False])
@pytest.mark.parametrize("xgrad", [True, False])
def test_checkpoint_matches_torch(reentrant, xgrad):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            t = _run(torch, True, reentrant, xgrad)
        except RuntimeError as e:  # reentrant checkpoint with no grad input: torch refuses
            with pytest.raises(RuntimeError, match=str(e).split(" and ")[0]):
                _run(jtorch, True, reentrant, xgrad)
            return
        j = _run(jtorch, True, reentrant, xgrad)
    plain = _run(jtorch, False, reentrant, xgrad)
    for a, b, c in zip(j, t, plain):
        if b is None:
            assert a is None
            continue
        assert_close(a, b)
        np.testing.assert_allclose(a.detach().numpy(), c.detach().numpy(), rtol=1e-6)


def test_preserve_rng_state_makes_dropout_match():
    w = jtorch.tensor(W1, requires_grad=True)

    def seg(h):
        y = h @ w
        return y * (jtorch.rand_like(y) > 0.5) * 2.0

    grads = []
    for ck in (False, True):
        w.grad = None
        jtorch.manual_seed(3)
        x = jtorch.tensor(X, requires_grad=True)
        out = jtorch.utils.checkpoint.checkpoint(seg, x, use_reentrant=False) if ck else seg(x)
        out.sum().backward()
        grads.append((out.detach(), w.grad, x.grad))
    for a, b in zip(*grads):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    after = jtorch.rand(3)  # the generator is where the plain run left it
    jtorch.manual_seed(3)
    seg(jtorch.tensor(X))
    np.testing.assert_array_equal(after.numpy(), jtorch.rand(3).numpy())


@pytest.mark.parametrize("segments", [1, 2, 3])
def test_checkpoint_sequential_matches_torch(segments):
    res = []
    for T in (torch, jtorch):
        T.manual_seed(0)
        layers = [T.nn.Linear(4, 8), T.nn.Tanh(), T.nn.Linear(8, 8), T.nn.Tanh(),
                  T.nn.Linear(8, 2)]
        model = T.nn.Sequential(*layers)
        if T is jtorch:
            with jtorch.no_grad():
                for p, q in zip(model.parameters(), res[0][1]):
                    p.copy_(jtorch.tensor(q.detach().numpy()))
        x = T.tensor(X, requires_grad=True)
        out = T.utils.checkpoint.checkpoint_sequential(model, segments, x, use_reentrant=False)
        out.sum().backward()
        res.append((out, list(model.parameters()), x.grad))
    (to, tp, tx), (jo, jp, jx) = res
    assert_close(jo, to)
    assert_close(jx, tx)
    for a, b in zip(jp, tp):
        assert_close(a.grad, b.grad)


def test_checkpoint_arguments_and_errors():
    f = lambda x: x * 2  # noqa: E731
    x = jtorch.ones(2, requires_grad=True)
    with pytest.warns(UserWarning, match="use_reentrant parameter should be passed"):
        jtorch.utils.checkpoint.checkpoint(f, x)
    with pytest.raises(ValueError, match="Unexpected keyword arguments: foo"):
        jtorch.utils.checkpoint.checkpoint(f, x, use_reentrant=True, foo=1)
    with pytest.raises(ValueError, match="only supported when use_reentrant=False"):
        jtorch.utils.checkpoint.checkpoint(f, x, use_reentrant=True, debug=True)
    y = jtorch.utils.checkpoint.checkpoint(lambda a, k=1: a * k, x, use_reentrant=False, k=3)
    assert y.grad_fn is not None
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0])
    with jtorch.no_grad():
        assert jtorch.utils.checkpoint.checkpoint(f, x, use_reentrant=False).grad_fn is None
