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


def test_cpu_gets_the_option_and_it_compiles(fresh):
    fresh.delenv("XLA_FLAGS", raising=False)
    opts = xla_options.compiler_options()
    if jax.default_backend() != "cpu":
        assert opts is None
        return
    assert opts == xla_options.CPU_OPTIONS
    f = jax.jit(lambda x: x * 2, compiler_options=opts)
    np.testing.assert_array_equal(f(np.arange(3.0)), np.arange(3.0) * 2)


def test_users_xla_flags_win(fresh):
    fresh.setenv("XLA_FLAGS", "--xla_cpu_experimental_ynn_fusion_type=")
    assert xla_options.compiler_options() is None


def test_rejected_option_falls_back_once(fresh):
    # a jaxlib that does not know the option: one failed probe, then no options, remembered
    fresh.delenv("XLA_FLAGS", raising=False)
    fresh.setattr(xla_options, "CPU_OPTIONS", {"xla_no_such_option_in_any_jaxlib": "1"})
    calls = []
    real_jit = jax.jit
    fresh.setattr(jax, "jit", lambda *a, **k: calls.append(1) or real_jit(*a, **k))
    assert xla_options.compiler_options() is None
    assert xla_options.compiler_options() is None
    assert len(calls) == (1 if jax.default_backend() == "cpu" else 0)



def test_jit_inside_an_outer_jit():
    # JAX refuses compiler options on a nested jit: called while another jit traces (with
    # traced arguments or only constants), the function runs as a plain nested jit
    f = xla_options.jit(jnp.sin)
    g = xla_options.jit(lambda: jnp.arange(3.0))
    a = np.array([0.5, 1.0, 2.0], np.float32)
    out = jax.jit(lambda x: f(x) + g())(a)
    np.testing.assert_allclose(out, np.sin(a) + np.arange(3.0), rtol=1e-6)
    np.testing.assert_allclose(f(a), np.sin(a), rtol=1e-6)              # top level again
