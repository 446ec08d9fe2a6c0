"""Regressions found by running Stable-Baselines3 unchanged under jtorch
(scripts/real_drivers/sb3_agents.py, docs/real-programs.md): each test is a small stand-in for
what the library did, in plain torch-API code, run in jtorch and in real PyTorch."""

import io
import zipfile

import numpy as np
import torch

import jtorch


def _state(T):
    return {"w": T.arange(6.0).reshape(2, 3), "b": T.tensor([1, -2], dtype=T.int64)}


def _same_state(loaded):
    assert sorted(loaded) == ["b", "w"]
    np.testing.assert_array_equal(np.asarray(loaded["w"]), np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(np.asarray(loaded["b"]), [1, -2])
    assert loaded["b"].dtype == (jtorch.int64 if isinstance(loaded["b"], jtorch.Tensor)
                                 else torch.int64)


def test_save_into_a_member_of_a_zip_archive():
    # SB3's model.save writes each state dict with torch.save into
    # ZipFile.open(name, mode="w"), a write-only stream whose tell() raises
    # io.UnsupportedOperation (jtorch failed there); both frameworks read both files
    members = {}
    for T in (jtorch, torch):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, mode="w") as archive:
            with archive.open("policy.pth", mode="w", force_zip64=True) as f:
                T.save(_state(T), f)
        with zipfile.ZipFile(buf) as archive:
            members[T.__name__] = archive.read("policy.pth")
    for data in members.values():
        for T in (jtorch, torch):
            _same_state(T.load(io.BytesIO(data), weights_only=True))


def test_save_mid_stream_counts_offsets_from_its_start():
    # a file that already holds other bytes: PyTorch's archive starts where the stream is and
    # loads from there
    for T in (jtorch, torch):
        buf = io.BytesIO()
        buf.write(b"header" * 5)
        start = buf.tell()
        T.save(_state(T), buf)
        end = buf.tell()
        for L in (jtorch, torch):
            buf.seek(start)
            _same_state(L.load(buf, weights_only=True))
            _same_state(L.load(io.BytesIO(buf.getvalue()[start:end]), weights_only=True))


def test_tanh_float32_rounding_and_saturation():
    # SAC's squashed Gaussian: log(1 - tanh(u)**2 + 1e-6) with u = 8.59 gave 13.72 in jtorch
    # (tanh exactly 1 from |u| = 7.9) and 13.61 in PyTorch (tanh = 1 - 2**-24 up to 9.01)
    x = np.concatenate([np.linspace(-12, 12, 48_001), [0.0, -0.0, 1e-30, np.inf, -np.inf]])
    x = x.astype(np.float32)
    want = torch.tanh(torch.from_numpy(x)).numpy()
    got = jtorch.tanh(jtorch.from_numpy(x)).numpy()
    # both within 1 ulp of the correctly rounded value: they differ on 0.1% of inputs
    ulps = np.abs(got.view(np.int32).astype(np.int64) - want.view(np.int32).astype(np.int64))
    assert ulps.max() <= 1 and (ulps > 0).mean() < 0.005
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    u = np.array([8.5856, -8.0, 9.0, 0.3], np.float32)

    def squashed(T):
        t = T.from_numpy(u).requires_grad_()
        lp = T.log(1 - T.tanh(t) ** 2 + 1e-6).sum()
        (g,) = T.autograd.grad(lp, t)
        return lp.item(), g.numpy()

    (lp_j, g_j), (lp_t, g_t) = squashed(jtorch), squashed(torch)
    assert abs(lp_j - lp_t) < 1e-5 * abs(lp_t)
    np.testing.assert_allclose(g_j, g_t, rtol=1e-5)


def test_tanh_derivative_from_output():
    # PyTorch's TanhBackward0 is g * (1 - y * y) of the rounded output y, second order too
    x = np.array([0.3, 8.5856, -9.5, 2.0, -0.7], np.float32)
    out = {}
    for T in (jtorch, torch):
        t = T.from_numpy(x).requires_grad_()
        (g,) = T.autograd.grad(T.tanh(t).sum(), t, create_graph=True)
        (gg,) = T.autograd.grad(g.sum(), t)
        out[T.__name__] = (g.detach().numpy(), gg.numpy())
    np.testing.assert_array_equal(out["jtorch"][0], out["torch"][0])
    np.testing.assert_allclose(out["jtorch"][1], out["torch"][1], rtol=1e-6)
    # forward mode (torch.func.jvp) and float64, float16 and complex inputs
    tangent = np.linspace(-1, 1, 5).astype(np.float32)
    want = torch.func.jvp(torch.tanh, (torch.from_numpy(x),), (torch.from_numpy(tangent),))[1]
    got = jtorch.func.jvp(jtorch.tanh, (jtorch.from_numpy(x),), (jtorch.from_numpy(tangent),))[1]
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    d = np.random.default_rng(0).standard_normal(1000) * 5
    np.testing.assert_allclose(jtorch.tanh(jtorch.from_numpy(d)).numpy(),
                               torch.tanh(torch.from_numpy(d)).numpy(), rtol=0, atol=1e-15)
    h = np.array([0.5, 3.0, 9.0], np.float16)
    np.testing.assert_array_equal(jtorch.tanh(jtorch.from_numpy(h)).numpy(),
                                  torch.tanh(torch.from_numpy(h)).numpy())
    c = np.array([1 + 2j, -0.5 + 0.1j], np.complex64)
    np.testing.assert_allclose(jtorch.tanh(jtorch.from_numpy(c)).numpy(),
                               torch.tanh(torch.from_numpy(c)).numpy(), rtol=1e-6)
