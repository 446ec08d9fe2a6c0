"""Regressions found by running pytorch-metric-learning unchanged under jtorch
(scripts/real_drivers/metric_learning_losses.py, docs/real-programs.md): each test is a small
stand-in for what the library did, in plain torch-API code, run in jtorch and in real PyTorch."""

import numpy as np
import pytest
import torch

import jtorch

# (op, its NumPy-style keywords): PyTorch's argument parser takes ``axis`` for ``dim`` and
# ``keepdims`` for ``keepdim`` in every op (SubCenterArcFaceLoss: ``cosine.max(axis=2)``)
CASES = [
    (lambda T, x: x.max(axis=2)[0], "max"),
    (lambda T, x: x.max(axis=1, keepdims=True).values, "max keepdims"),
    (lambda T, x: T.min(x, axis=0).values, "torch.min"),
    (lambda T, x: x.sum(axis=(0, 2), keepdims=True), "sum"),
    (lambda T, x: T.mean(x, axis=1), "mean"),
    (lambda T, x: x.std(axis=2, keepdims=True), "std"),
    (lambda T, x: x.logsumexp(axis=1), "logsumexp"),
    (lambda T, x: x.softmax(axis=-1), "softmax"),
    (lambda T, x: x.cumsum(axis=1), "cumsum"),
    (lambda T, x: T.cat([x, x * 2], axis=1), "cat"),
    (lambda T, x: x.norm(dim=2), "norm"),
    (lambda T, x: T.gather(x, axis=2, index=T.zeros(2, 3, 1, dtype=T.long)), "gather (check)"),
    (lambda T, x: x.amax(axis=(0, 1)), "amax"),
]


@pytest.mark.parametrize("fn,label", CASES, ids=[c[1] for c in CASES])
def test_numpy_keyword_aliases(fn, label):
    x = np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np.float32)
    out, grads = [], []
    for T in (jtorch, torch):
        t = T.tensor(x, requires_grad=True)
        y = fn(T, t)
        (y * T.arange(y.numel(), dtype=y.dtype).reshape(y.shape)).sum().backward()
        out.append(y.detach().numpy())
        grads.append(t.grad.numpy())
    np.testing.assert_allclose(out[0], out[1], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6, atol=1e-6)


def test_numpy_keyword_argmax_and_errors():
    x = np.random.default_rng(1).standard_normal((3, 5)).astype(np.float32)
    for kw in ({"axis": 1}, {"axis": 0, "keepdims": True}):
        assert np.array_equal(jtorch.tensor(x).argmax(**kw).numpy(),
                              torch.tensor(x).argmax(**kw).numpy())
    # a keyword neither name of the op's parameters still fails, as in PyTorch
    for T in (jtorch, torch):
        with pytest.raises(TypeError):
            T.tensor(x).sum(axes=1)
        with pytest.raises(TypeError):
            T.gather(T.tensor(x), axes=1, index=T.zeros(3, 1, dtype=T.long))
