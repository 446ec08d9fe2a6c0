"""Regressions found by running Tianshou unchanged under jtorch
(scripts/real_drivers/tianshou_policies.py, docs/real-programs.md): each test is a small
stand-in for what the library did, in plain torch-API code, run in jtorch and in real PyTorch."""

import numpy as np
import pytest
import torch

import jtorch


def _lazy_params_after_sample(T, cls, logits, weights):
    """Tianshou's discrete SAC: the policy's forward builds ``Categorical(logits=...)`` and
    samples an action (``sample`` reads the lazy ``probs`` inside ``no_grad``), then the
    actor's loss is taken from the same distribution's ``probs`` and ``entropy``."""
    lg = T.tensor(logits, requires_grad=True)
    dist = cls(T, lg)
    dist.sample()
    loss = -(dist.entropy().sum() + (dist.probs * T.tensor(weights)).sum()) / 5
    loss.backward()
    return dist.probs.requires_grad, loss.detach().numpy(), lg.grad.numpy()


@pytest.mark.parametrize("cls", [
    lambda T, lg: T.distributions.Categorical(logits=lg),
    lambda T, lg: T.distributions.Bernoulli(logits=lg),
    lambda T, lg: T.distributions.Geometric(logits=lg),
], ids=["categorical", "bernoulli", "geometric"])
def test_lazy_probs_computed_in_sample_keep_their_gradient(cls):
    # jtorch's lazy_property computed probs under sample()'s no_grad and cached a detached
    # tensor: discrete SAC's actor gradient was zero (PyTorch computes it under enable_grad)
    rng = np.random.default_rng(0)
    logits = rng.standard_normal((5, 3)).astype(np.float32)
    weights = rng.standard_normal((5, 3)).astype(np.float32)
    want = _lazy_params_after_sample(torch, cls, logits, weights)
    got = _lazy_params_after_sample(jtorch, cls, logits, weights)
    assert got[0] is want[0] is True
    np.testing.assert_allclose(got[1], want[1], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(got[2], want[2], rtol=1e-5, atol=1e-7)
    assert np.abs(got[2]).max() > 1e-3


def test_lazy_property_first_read_in_no_grad():
    # the same when the first read of probs/logits is the user's own, inside no_grad
    for T in (jtorch, torch):
        lg = T.tensor([[0.3, -1.2, 0.5]], requires_grad=True)
        p = T.tensor([[0.2, 0.5, 0.3]], requires_grad=True)
        a = T.distributions.Categorical(logits=lg)
        b = T.distributions.Categorical(probs=p)
        with T.no_grad():
            a.probs, b.logits  # noqa: B018
        assert a.probs.requires_grad and b.logits.requires_grad, T.__name__
        (a.probs[0, 1] + b.logits[0, 2]).backward()
        assert lg.grad is not None and p.grad is not None, T.__name__
