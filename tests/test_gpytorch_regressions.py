"""Regressions found by running GPyTorch (and linear_operator) unchanged under jtorch
(scripts/real_drivers/gpytorch_models.py, docs/real-programs.md): each test is a small stand-in
for what the library did, in plain torch-API code, run in jtorch and in real PyTorch."""

import numpy as np
import torch

import jtorch


def test_standard_normal_helper_of_distributions_utils():
    # gpytorch.distributions.multivariate_normal imports torch.distributions.utils.
    # _standard_normal (its rsample's noise); jtorch lacked it (ImportError at import gpytorch)
    from torch.distributions.utils import _standard_normal as want_fn

    from jtorch.distributions.utils import _standard_normal as got_fn
    got = got_fn((3, 4), dtype=jtorch.float64, device=jtorch.device("cpu"))
    want = want_fn((3, 4), dtype=torch.float64, device=torch.device("cpu"))
    assert got.shape == want.shape and got.dtype == jtorch.float64
    assert str(got.device) == str(want.device)
    # standard normal draws (jtorch's stream is its own: compare the distribution loosely)
    big = got_fn((20000,), dtype=jtorch.float32, device="cpu")
    assert abs(big.mean().item()) < 0.05 and abs(big.std().item() - 1) < 0.05


def test_float32_expm1_and_log1p_round_as_pytorch():
    # GPyTorch sets a hyperparameter through the inverse softplus x + log(-expm1(-x)) of a
    # float32 raw parameter: XLA's float32 expm1 is up to 5 ulp off (3 in 4 results differ
    # from PyTorch's near 0), so lengthscale 0.05 became a raw value one ulp away
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.uniform(-0.5, 0.5, 4000), rng.uniform(-20, 20, 4000),
                        [0.05, 0.5, 0.02, 0.01, 2.0, 0.3, 1e-6, -1e-6]]).astype(np.float32)
    for name in ("expm1", "log1p"):
        arg = np.abs(x) if name == "log1p" else x
        got = getattr(jtorch, name)(jtorch.tensor(arg)).numpy()
        want = getattr(torch, name)(torch.from_numpy(arg)).numpy()
        # both within an ulp of the correctly rounded value: a few differ in the last bit
        assert (got != want).mean() < 0.03, name
        np.testing.assert_allclose(got, want, rtol=2.5e-7, atol=0)
    small = np.float32([0.05, 0.5, 0.02, 0.01, 2.0, 0.3])
    inv = [T.tensor(small) + T.log(-T.expm1(-T.tensor(small))) for T in (jtorch, torch)]
    np.testing.assert_array_equal(inv[0].numpy(), inv[1].numpy())


def test_float32_expm1_gradient_and_other_dtypes():
    x = np.float32([0.3, -0.2, 1e-4, 3.0])
    got_x = jtorch.tensor(x, requires_grad=True)
    want_x = torch.tensor(x, requires_grad=True)
    jtorch.expm1(got_x).sum().backward()
    torch.expm1(want_x).sum().backward()
    np.testing.assert_allclose(got_x.grad.numpy(), want_x.grad.numpy(), rtol=1e-6)
    for name in ("expm1", "log1p"):
        for dt in ("float16", "bfloat16", "float64", "complex64"):
            got = getattr(jtorch, name)(jtorch.tensor(np.abs(x)).to(getattr(jtorch, dt)))
            want = getattr(torch, name)(torch.tensor(np.abs(x)).to(getattr(torch, dt)))
            assert got.dtype == getattr(jtorch, dt)
            np.testing.assert_allclose(np.asarray(got.to(jtorch.complex128).numpy()),
                                       want.to(torch.complex128).numpy(), rtol=1e-2)


def test_tensor_split_takes_split_size_keyword():
    # BoTorch's gen_batch_initial_conditions: X.split(split_size=batch_limit, dim=0)
    x = np.arange(10.0)
    got = jtorch.tensor(x).split(split_size=3, dim=0)
    want = torch.tensor(x).split(split_size=3, dim=0)
    assert [g.tolist() for g in got] == [w.tolist() for w in want]
    got = jtorch.split(jtorch.tensor(x), split_size_or_sections=[4, 6])
    want = torch.split(torch.tensor(x), split_size_or_sections=[4, 6])
    assert [g.tolist() for g in got] == [w.tolist() for w in want]


def test_sobol_engine_sequence_is_pytorchs():
    # BoTorch draws its QMC base samples and optimize_acqf's raw samples from
    # torch.quasirandom.SobolEngine, which jtorch lacked
    for dim in (1, 3, 40):
        got, want = jtorch.quasirandom.SobolEngine(dim), torch.quasirandom.SobolEngine(dim)
        for n, dtype in ((1, None), (6, "float64"), (9, "float32")):
            a = got.draw(n, dtype=getattr(jtorch, dtype) if dtype else None)
            b = want.draw(n, dtype=getattr(torch, dtype) if dtype else None)
            assert str(a.dtype) == str(b.dtype)
            np.testing.assert_array_equal(a.numpy(), b.numpy())
        got.fast_forward(5)
        want.fast_forward(5)
        np.testing.assert_array_equal(got.draw(3).numpy(), want.draw(3).numpy())
        got.reset()
        want.reset()
        np.testing.assert_array_equal(got.draw_base2(2).numpy(), want.draw_base2(2).numpy())
    assert repr(jtorch.quasirandom.SobolEngine(3, scramble=True, seed=2)) == \
        repr(torch.quasirandom.SobolEngine(3, scramble=True, seed=2))


def test_sobol_engine_direction_numbers_and_scramble_are_pytorchs():
    from jtorch.quasirandom import _initial_state, _scrambled
    want = torch.zeros(300, 30, dtype=torch.long)
    torch._sobol_engine_initialize_state_(want, 300)
    state = _initial_state(300)
    np.testing.assert_array_equal(state, want.numpy())
    ltm = torch.randint(2, (300, 30, 30), generator=torch.Generator().manual_seed(3)).tril()
    torch._sobol_engine_scramble_(want, ltm, 300)
    np.testing.assert_array_equal(_scrambled(state, ltm.numpy()), want.numpy())
    # a scrambled engine: points in [0, 1), reproducible under a seed, balanced per dimension
    a = jtorch.quasirandom.SobolEngine(4, scramble=True, seed=0).draw(256, dtype=jtorch.float64)
    b = jtorch.quasirandom.SobolEngine(4, scramble=True, seed=0).draw(256, dtype=jtorch.float64)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    counts = np.floor(a.numpy() * 16).astype(int)
    assert all(np.bincount(counts[:, d], minlength=16).tolist() == [16] * 16 for d in range(4))


def test_log_prob_rounds_parameter_terms_in_their_dtype():
    # GPyTorch's priors keep float32 parameters and score float64 hyperparameters: PyTorch's
    # Normal rounds scale**2 and log(scale) to float32, Laplace log(2 * scale), Cauchy
    # -log(pi) - log(scale), and HalfCauchy casts the value to float32; jtorch computed the
    # location-scale form in float64 (BoTorch's SingleTaskGP loss differed at 1e-8)
    value = np.array([0.3, 1.7, 2.2, 0.8])
    for name in ("Normal", "Laplace", "Cauchy", "HalfCauchy", "LogNormal"):
        out = []
        for T in (jtorch, torch):
            D = getattr(T.distributions, name)
            scale = T.tensor([1.7320507764816284])
            d = D(scale) if name == "HalfCauchy" else D(T.tensor([1.7607871294021606]), scale)
            lp = d.log_prob(T.tensor(value, dtype=T.float64))
            out.append((str(lp.dtype), np.array(lp.tolist())))
        assert out[0][0] == out[1][0], name
        np.testing.assert_allclose(out[0][1], out[1][1], rtol=1e-15, atol=0, err_msg=name)
