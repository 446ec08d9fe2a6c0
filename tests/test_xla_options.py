"""The compiler options jtorch passes to its jax.jit calls (jtorch/_core/xla_options.py)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jtorch._core import xla_options


@pytest.fixture
def fresh(monkeypatch):
    """Each test decides again from scratch; the decision of the session is kept around it."""
    monkeypatch.setattr(xla_options, "_decided", None)
    return monkeypatch


def test_cpu_gets_the_options_and_they_compile(fresh):
    fresh.delenv("XLA_FLAGS", raising=False)
    program = xla_options.compiler_options()
    kernel = xla_options.compiler_options(kernel=True)
    eager = xla_options.compiler_options(eager=True)
    if jax.default_backend() != "cpu":   # (a GPU: the autotuning option alone, tested below)
        assert program is None
        assert kernel == eager == (xla_options.KERNEL_GPU_OPTIONS
                                   if jax.default_backend() == "gpu" else None)
        return
    assert program == eager == xla_options.CPU_OPTIONS
    assert kernel == {**xla_options.CPU_OPTIONS, **xla_options.KERNEL_CPU_OPTIONS}
    for opts in (program, kernel):
        f = jax.jit(lambda x: x * 2, compiler_options=opts)
        np.testing.assert_array_equal(f(np.arange(3.0)), np.arange(3.0) * 2)


def test_gpu_kernels_and_eager_programs_do_not_autotune(fresh):
    # on a GPU backend: op kernels and the fused backward compile without XLA:GPU's
    # autotuning, jtorch.compile's programs with XLA's defaults; the user's XLA_FLAGS win
    fresh.delenv("XLA_FLAGS", raising=False)
    fresh.setattr(jax, "default_backend", lambda: "gpu")
    fresh.setattr(xla_options, "_compiles", lambda options: True)
    assert xla_options.compiler_options(kernel=True) == {"xla_gpu_autotune_level": 0}
    assert xla_options.compiler_options(eager=True) == {"xla_gpu_autotune_level": 0}
    assert xla_options.compiler_options() is None
    fresh.setattr(xla_options, "_decided", None)
    fresh.setenv("XLA_FLAGS", "--xla_gpu_autotune_level=4")
    assert xla_options.compiler_options(kernel=True) is None


def test_users_xla_flags_win(fresh):
    # an option the user's XLA_FLAGS name is left out; the others stay
    fresh.setenv("XLA_FLAGS", "--xla_cpu_experimental_ynn_fusion_type=")
    assert xla_options.compiler_options() is None
    if jax.default_backend() == "cpu":
        assert xla_options.compiler_options(kernel=True) == xla_options.KERNEL_CPU_OPTIONS


def test_rejected_option_is_left_out_once(fresh):
    # a jaxlib that does not know one option: the probe of all of them fails, each is then
    # probed alone, and only the rejected one is left out, remembered
    fresh.delenv("XLA_FLAGS", raising=False)
    fresh.setattr(xla_options, "KERNEL_CPU_OPTIONS", {"xla_no_such_option_in_any_jaxlib": "1"})
    calls = []
    real_jit = jax.jit
    fresh.setattr(jax, "jit", lambda *a, **k: calls.append(1) or real_jit(*a, **k))
    for _ in range(2):
        assert xla_options.compiler_options(kernel=True) == (
            xla_options.CPU_OPTIONS if jax.default_backend() == "cpu" else None)
    assert len(calls) == {"cpu": 3, "gpu": 1}.get(jax.default_backend(), 0)


def test_kernel_options_keep_the_bits():
    # op kernels compile with the older elemental emitters: the same bits as the default
    # emitters on transcendental, reduction and normalisation ops
    if jax.default_backend() != "cpu":
        return
    x = np.random.default_rng(0).normal(size=(64, 300)).astype(np.float32)

    def ops(a):
        return (jnp.tanh(a), jnp.exp(a), jax.nn.gelu(a, approximate=False),
                jax.nn.softmax(a, axis=-1), a.sum(0), jnp.log1p(jnp.abs(a)))

    plain = jax.jit(ops)(x)
    kernel = jax.jit(ops, compiler_options=xla_options.compiler_options(kernel=True))(x)
    for p, k in zip(plain, kernel):
        np.testing.assert_array_equal(np.asarray(k), np.asarray(p))


def test_jit_inside_an_outer_jit():
    # JAX refuses compiler options on a nested jit: called while another jit traces (with
    # traced arguments or only constants), the function runs as a plain nested jit
    f = xla_options.jit(jnp.sin)
    g = xla_options.jit(lambda: jnp.arange(3.0))
    a = np.array([0.5, 1.0, 2.0], np.float32)
    out = jax.jit(lambda x: f(x) + g())(a)
    np.testing.assert_allclose(out, np.sin(a) + np.arange(3.0), rtol=1e-6)
    np.testing.assert_allclose(f(a), np.sin(a), rtol=1e-6)              # top level again


def test_inside_a_transform_the_options_jit_is_not_tried():
    # under jit, vjp or vmap the plain nested jit runs at once (the options jit would trace
    # the function and then be refused); at top level the options jit runs
    if xla_options.compiler_options() is None:
        return
    f = xla_options.jit(jnp.sin)
    calls = []
    real_top = f.top
    f.top = lambda *a: calls.append(1) or real_top(*a)
    a = np.array([0.5, 1.0, 2.0], np.float32)
    np.testing.assert_allclose(jax.jit(lambda x: f(x))(a), np.sin(a), rtol=1e-6)
    out, back = jax.vjp(lambda x: f(x), a)
    np.testing.assert_allclose(back(np.ones(3, np.float32))[0], np.cos(a), rtol=1e-6)
    np.testing.assert_allclose(jax.vmap(lambda x: f(x))(a), np.sin(a), rtol=1e-6)
    assert calls == []
    np.testing.assert_allclose(f(a), np.sin(a), rtol=1e-6)
    assert calls == [1]
