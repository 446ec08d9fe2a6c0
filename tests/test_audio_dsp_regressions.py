"""Regressions found by running nnAudio, julius and auraloss unchanged under jtorch
(scripts/real_drivers/audio_dsp.py, docs/real-programs.md): each test is a small stand-in for
what the libraries did, in plain torch-API code, run in jtorch and in real PyTorch."""

import numpy as np
import pytest
import torch

import jtorch

NAN, INF = float("nan"), float("inf")


def _loss_and_grad(T, fn, values, **kwargs):
    x = T.tensor(values, requires_grad=True)
    loss = fn(T)(x, T.zeros(len(values)), **kwargs)
    loss.sum().backward()
    return loss.detach().numpy(), x.grad.numpy()


@pytest.mark.parametrize("fn, kwargs", [
    (lambda T: T.nn.functional.l1_loss, {}),
    (lambda T: T.nn.functional.l1_loss, {"reduction": "none"}),
    (lambda T: T.nn.functional.l1_loss, {"weight": None}),
    (lambda T: T.nn.functional.smooth_l1_loss, {"beta": 0.0}),
    (lambda T: T.nn.functional.smooth_l1_loss, {"reduction": "none"}),
    (lambda T: T.nn.functional.smooth_l1_loss, {"beta": 0.5, "reduction": "none"}),
    (lambda T: T.nn.functional.huber_loss, {"delta": 0.5, "reduction": "none"}),
    (lambda T: T.nn.functional.huber_loss, {"delta": 2.0}),
], ids=["l1", "l1_none", "l1_weight_none", "smooth_l1_beta0", "smooth_l1", "smooth_l1_beta05",
        "huber", "huber_delta2"])
def test_regression_loss_gradients_at_nan_and_inf(fn, kwargs):
    # a trainable nnAudio mel front end whose log-spectrogram went NaN, trained by l1_loss:
    # PyTorch's l1_loss gradient is sgn(d), 0 at a NaN d, so the other entries kept finite
    # gradients and the mel basis stayed finite; jtorch's was NaN there (sign(NaN)), and one
    # Adam step made the whole basis NaN. smooth_l1/huber keep PyTorch's own backward: NaN at
    # NaN, +-1 (or delta) at an infinite d (jtorch's was NaN there)
    values = [NAN, 1.0, -2.0, 0.0, 0.2, -0.3, INF, -INF, 3.0]
    want = _loss_and_grad(torch, fn, values, **kwargs)
    got = _loss_and_grad(jtorch, fn, values, **kwargs)
    for w, g in zip(want, got):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=0)


def test_l1_loss_of_a_nan_prediction_leaves_the_other_gradients_finite():
    # the driver's shape: a (2, 16, 8) spectrogram-like prediction, one band NaN, a mean l1
    rng = np.random.default_rng(0)
    pred = rng.standard_normal((2, 16, 8)).astype(np.float32)
    pred[1, 3] = np.nan
    target = rng.standard_normal((2, 16, 8)).astype(np.float32)
    out = []
    for T in (torch, jtorch):
        w = T.tensor(np.eye(16, dtype=np.float32), requires_grad=True)
        loss = T.nn.functional.l1_loss(w @ T.tensor(pred), T.tensor(target))
        loss.backward()
        out.append((loss.item(), w.grad.numpy()))
    assert np.isnan(out[0][0]) and np.isnan(out[1][0])
    np.testing.assert_allclose(out[1][1], out[0][1], rtol=1e-6, atol=1e-7)
    assert np.isfinite(out[1][1]).sum() == np.isfinite(out[0][1]).sum()
