"""What torchsde, torchcde and geomloss rely on, found by running them unchanged under jtorch
(scripts/real_drivers/sde_cde_ot.py, docs/real-programs.md). The driver found no jtorch bug:
these tests pin, in plain torch-API code run in jtorch and in real PyTorch, the behaviours its
matching numbers depend on, and the comparison wrapper's per-generator draws."""

import importlib.util
import os

import numpy as np
import torch

import jtorch

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_fresh_generators_with_one_seed_draw_the_same():
    # torchsde's BrownianInterval draws each node's noise as
    # torch.randn(size, dtype=, device=, generator=torch.Generator(device).manual_seed(seed)),
    # and is consistent (the same query gives the same increment) only if one seed gives one draw
    for T in (jtorch, torch):
        draws = []
        for _ in range(2):
            g = T.Generator(T.device("cpu"))
            assert g.manual_seed(1234) is g
            draws.append(T.randn((3, 2), dtype=T.float64, device=T.device("cpu"), generator=g))
        assert draws[0].dtype == T.float64
        assert T.equal(draws[0], draws[1]), T.__name__
        other = T.randn((3, 2), dtype=T.float64, generator=T.Generator().manual_seed(1235))
        assert not T.equal(draws[0], other), T.__name__


def _double_vjp_jvp(T, x_values, v_values):
    """torchsde's misc.jvp: a Jacobian-vector product by differentiating a vjp with respect to
    its (zero) cotangent, after the torch.as_strided(i, (), ()) workaround."""
    x = T.tensor(x_values, dtype=T.float64, requires_grad=True)
    v = T.tensor(v_values, dtype=T.float64)
    _ = T.as_strided(x, (), ())
    y = T.sin(x) * x.sum() + x ** 2
    dummy = T.zeros_like(y, requires_grad=True)
    vjp, = T.autograd.grad(y, x, grad_outputs=dummy, create_graph=True, allow_unused=True)
    jvp, = T.autograd.grad(vjp, dummy, grad_outputs=v, create_graph=True)
    second, = T.autograd.grad(jvp.sum(), x)
    return jvp.detach().numpy(), second.numpy()


def test_jvp_by_double_vjp_matches_pytorch():
    xs, vs = [0.3, -1.2, 0.7], [1.0, 0.5, -2.0]
    for got, want in zip(_double_vjp_jvp(jtorch, xs, vs), _double_vjp_jvp(torch, xs, vs)):
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-14)


def test_bucketize_on_knots_matches_pytorch():
    # torchcde finds a spline's piece with torch.bucketize(t, knots).sub(1).clamp(0, n): a time
    # on a knot, before the first and after the last one must land where PyTorch puts it
    knots = [0.0, 0.4, 0.5, 1.3, 2.0]
    queries = [-0.2, 0.0, 0.4, 0.45, 1.3, 2.0, 2.5]
    got = [int(jtorch.bucketize(jtorch.tensor(q, dtype=jtorch.float64),
                                jtorch.tensor(knots, dtype=jtorch.float64)).sub(1).clamp(0, 3))
           for q in queries]
    want = [int(torch.bucketize(torch.tensor(q, dtype=torch.float64),
                                torch.tensor(knots, dtype=torch.float64)).sub(1).clamp(0, 3))
            for q in queries]
    assert got == want


def _load_wrapper():
    spec = importlib.util.spec_from_file_location(
        "shared_rng_run_under_test", os.path.join(_ROOT, "scripts", "shared_rng_run.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # defines the replacements; installs nothing
    return module


def test_wrapper_draws_from_a_generator_by_its_seed():
    # scripts/shared_rng_run.py: a draw given a seeded generator comes from that seed's own
    # NumPy stream (the same in both frameworks, and the same for the same seed), not from the
    # shared stream, which it leaves where it was
    wrapper = _load_wrapper()
    wrapper.manual_seed(0)
    first = wrapper.randn(3, dtype=torch.float64, generator=torch.Generator().manual_seed(5))
    again = wrapper.randn(3, dtype=torch.float64, generator=torch.Generator().manual_seed(5))
    shared = wrapper.randn(3, dtype=torch.float64)
    assert torch.equal(first, again)
    np.testing.assert_array_equal(first.numpy(), np.random.default_rng(5).standard_normal(3))
    np.testing.assert_array_equal(shared.numpy(), np.random.default_rng(0).standard_normal(3))
    g = torch.Generator().manual_seed(5)
    both = [wrapper.rand(2, dtype=torch.float64, generator=g) for _ in range(2)]
    np.testing.assert_array_equal(torch.cat(both).numpy(), np.random.default_rng(5).random(4))
