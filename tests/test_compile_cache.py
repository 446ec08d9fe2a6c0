"""jtorch.compile's programs work with JAX's persistent compilation cache: the same training step
traced again (a new model and optimizer, as in a new process) lowers to the same program and
loads from the cache directory instead of compiling (tests/conftest.py gives the test run one,
with no minimum compile time). Nothing in the program depends on object ids or names that
change between runs."""

from __future__ import annotations

import jax.monitoring
import numpy as np
import pytest

import jtorch as torch
from jtorch import nn

HIT = "/jax/compilation_cache/cache_hits"


@pytest.fixture
def cache_hits():
    hits = []

    def listener(event, **_):
        if event == HIT:
            hits.append(event)

    jax.monitoring.register_event_listener(listener)
    yield hits
    jax.monitoring.unregister_event_listener(listener)


def _losses():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(7, 13), nn.ReLU(), nn.Linear(13, 3))
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)

    @torch.compile
    def step(x, y):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss

    g = np.random.default_rng(0)
    x = torch.tensor(g.standard_normal((9, 7)).astype(np.float32))
    y = torch.tensor(g.integers(0, 3, 9))
    return [float(step(x, y)) for _ in range(3)]


def test_a_compiled_step_traced_again_loads_from_the_persistent_cache(cache_hits):
    first = _losses()
    before = len(cache_hits)
    second = _losses()
    assert len(cache_hits) > before, "the second trace of the same step compiled again"
    assert second == first
