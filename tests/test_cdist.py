"""torch.cdist against PyTorch: values and gradients for p = 0, 0.5, 1, 1.5, 2, 3, inf in every
compute_mode (both of ATen's computations), batched and broadcast inputs, gradients at zero
distances and at ties of the inf-norm, dtypes, autocast and errors."""

import numpy as np
import pytest
import torch
from helpers import assert_close, parity, raises_like, rand

import jtorch

MODES = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
         "donot_use_mm_for_euclid_dist")
P = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, float("inf"))


def _with_coincidences(x1, x2):
    """x1 with a row equal to a row of x2 (zero distance) and coordinates equal to x2's (zero
    differences, and inf-norm ties)."""
    x1 = x1.copy()
    x1[..., 1, :] = x2[..., 2, :]
    x1[..., 0, 0] = x2[..., 0, 0]
    x1[..., 3, :2] = x2[..., 1, :2] + 1.0   # two coordinates tie for the largest difference
    return x1


@pytest.mark.parametrize("mode", MODES)
def test_every_p(mode):
    x2 = rand(4, 3, seed=1)
    x1 = _with_coincidences(rand(5, 3, seed=0), x2)
    parity(lambda T, a, b: [T.cdist(a, b, p=p, compute_mode=mode) for p in P], x1, x2,
           atol=1e-5, rtol=1e-5)


def test_batched_and_broadcast():
    def fn(T, a, b, c):
        return [T.cdist(a, b), T.cdist(a, b, p=1), T.cdist(a, c, p=float("inf")),
                T.cdist(c, b, 3.0, "donot_use_mm_for_euclid_dist")]

    x2 = rand(3, 4, 6, seed=3)
    parity(fn, _with_coincidences(rand(2, 1, 5, 6, seed=2), x2[0]), x2, rand(5, 6, seed=4),
           atol=1e-5, rtol=1e-5)


def test_matrix_product_path_by_size():
    # more than 25 rows: the default mode takes ATen's matrix-product formula for p = 2
    x2 = rand(4, 3, seed=6)
    x1 = _with_coincidences(rand(30, 3, seed=5), x2)
    parity(lambda T, a, b: [T.cdist(a, b), T.cdist(b, a), T.cdist(a, b, p=1)], x1, x2,
           atol=1e-5, rtol=1e-5)


def test_float64():
    x2 = rand(4, 3, dtype=np.float64, seed=8)
    x1 = _with_coincidences(rand(5, 3, dtype=np.float64, seed=7), x2)
    parity(lambda T, a, b: [T.cdist(a, b, p=p) for p in (1.0, 2.0, 2.5, float("inf"))], x1, x2)


def test_empty_inputs():
    for a, b in (((0, 4), (5, 4)), ((3, 0), (5, 0)), ((2, 3, 4), (2, 0, 4))):
        for p in (2.0, float("inf")):
            outs = [T.cdist(T.ones(a), T.ones(b), p=p) for T in (torch, jtorch)]
            assert_close(outs[1], outs[0])


def test_autocast_and_half():
    x1, x2 = rand(3, 4, seed=9), rand(5, 4, seed=10)
    outs = []
    for T in (torch, jtorch):
        with T.autocast("cpu", dtype=T.bfloat16):
            outs.append(T.cdist(T.tensor(x1).bfloat16(), T.tensor(x2).bfloat16()))
        # the matrix-product path runs in float16 too
        outs.append(T.cdist(T.tensor(np.tile(x1, (10, 1))).half(), T.tensor(x2).half()))
    assert_close(outs[2], outs[0], atol=1e-5, rtol=1e-5)
    assert_close(outs[3], outs[1], atol=2e-3, rtol=2e-3)


def test_grad_fn_name():
    for T in (torch, jtorch):
        out = T.cdist(T.ones(2, 3, requires_grad=True), T.zeros(4, 3), p=1)
        assert out.grad_fn.name() == "CdistBackward0"


ERRORS = [
    lambda T: T.cdist(T.ones(3), T.ones(2, 3)),
    lambda T: T.cdist(T.ones(2, 3), T.ones(3)),
    lambda T: T.cdist(T.ones(2, 3), T.ones(2, 4)),
    lambda T: T.cdist(T.ones(2, 3, dtype=T.int64), T.ones(2, 3)),
    lambda T: T.cdist(T.ones(2, 3), T.ones(2, 3, dtype=T.complex64)),
    lambda T: T.cdist(T.ones(2, 3), T.ones(2, 3), p=-1),
    lambda T: T.cdist(T.ones(2, 3), T.ones(2, 3), compute_mode="x"),
    lambda T: T.cdist(T.ones(2, 3), T.ones(2, 3), compute_mode=None),
    lambda T: T.cdist(T.ones(2, 2, 3), T.ones(3, 2, 3)),
    lambda T: T.cdist(T.ones(2, 3), T.ones(2, 3, dtype=T.float64)),
    lambda T: T.cdist(T.ones(2, 3), T.ones(2, 3, dtype=T.float64),
                      compute_mode="use_mm_for_euclid_dist"),
    lambda T: T.cdist(T.ones(2, 3, dtype=T.float16), T.ones(2, 3, dtype=T.float16)),
    lambda T: T.cdist(T.ones(2, 3, dtype=T.bfloat16), T.ones(2, 3, dtype=T.bfloat16), p=1),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors(i):
    raises_like(lambda: ERRORS[i](torch), lambda: ERRORS[i](jtorch))
