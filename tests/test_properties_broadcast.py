"""Property test: broadcasting random shapes through pointwise ops gives PyTorch's result shape,
or PyTorch's exception type and message."""

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, given, settings, strategies as st

import jtorch

# derandomized: the same examples every run (a CI failure reproduces); too_slow: the first
# examples compile kernels
SETTINGS = settings(deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
dims = st.lists(st.integers(0, 3), min_size=0, max_size=4)


@st.composite
def shape_pair(draw):
    """Two shapes: often compatible (dims replaced by 1 or dropped), sometimes arbitrary."""
    a = draw(dims)
    if draw(st.booleans()):
        b = list(a[draw(st.integers(0, len(a))):])
        b = [1 if draw(st.booleans()) else d for d in b]
        if draw(st.booleans()):
            b = [draw(st.integers(1, 2))] + b
    else:
        b = draw(dims)
    return tuple(a), tuple(b)


BINARY = [
    lambda L, x, y: x + y,
    lambda L, x, y: L.mul(x, y),
    lambda L, x, y: L.atan2(x, y),
    lambda L, x, y: L.maximum(x, y),
    lambda L, x, y: x < y,
    lambda L, x, y: L.where(x > 0, x, y),
    lambda L, x, y: L.lerp(x, y, 0.5),
    lambda L, x, y: L.clamp(x, max=y),
]


def _outcome(fn):
    try:
        return "ok", tuple(fn().shape)
    except (RuntimeError, ValueError, TypeError) as e:
        return type(e).__name__, str(e).split("\n")[0]


@settings(SETTINGS, max_examples=40)
@given(shape_pair(), st.integers(0, len(BINARY) - 1))
def test_broadcast_shapes_and_errors(shapes, which):
    a, b = shapes
    fn = BINARY[which]
    x = np.random.default_rng(0).uniform(-1, 1, a).astype(np.float32)
    y = np.random.default_rng(1).uniform(-1, 1, b).astype(np.float32)
    expected = _outcome(lambda: fn(torch, torch.tensor(x), torch.tensor(y)))
    got = _outcome(lambda: fn(jtorch, jtorch.tensor(x), jtorch.tensor(y)))
    assert got == expected


@settings(SETTINGS, max_examples=15)
@given(shape_pair(), dims)
def test_three_way_broadcast(shapes, c):
    a, b = shapes
    c = tuple(c)
    cond = np.random.default_rng(2).uniform(-1, 1, c) > 0
    x = np.ones(a, np.float32)
    y = np.zeros(b, np.float64)
    expected = _outcome(lambda: torch.where(torch.tensor(cond), torch.tensor(x),
                                            torch.tensor(y)))
    got = _outcome(lambda: jtorch.where(jtorch.tensor(cond), jtorch.tensor(x),
                                        jtorch.tensor(y)))
    assert got == expected


@pytest.mark.parametrize("a,b", [((2, 3), (3, 2)), ((0,), (2,)), ((4, 1, 3), (2, 3, 3))])
def test_known_broadcast_errors(a, b):
    expected = _outcome(lambda: torch.ones(a) + torch.ones(b))
    assert _outcome(lambda: jtorch.ones(a) + jtorch.ones(b)) == expected
