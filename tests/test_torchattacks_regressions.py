"""Regressions found by running torchattacks unchanged under jtorch
(scripts/real_drivers/torchattacks_attacks.py, docs/real-programs.md): each test is a small
stand-in for what the library did, in plain torch-API code, run in jtorch and in real PyTorch."""

import importlib

import numpy as np
import torch

import jtorch


def _reseeded_draws(T):
    """APGD's, FAB's and Square's ``perturb``: ``torch.random.manual_seed(seed)`` then
    ``torch.cuda.random.manual_seed(seed)`` (a no-op without CUDA) before their random
    starts."""
    T.random.manual_seed(3)
    T.cuda.random.manual_seed(3)
    T.cuda.random.manual_seed_all(3)
    return T.cuda.random


def test_cuda_random_module():
    ref = _reseeded_draws(torch)
    sub = _reseeded_draws(jtorch)
    assert sorted(sub.__all__) == sorted(ref.__all__)
    for name in ref.__all__:
        assert callable(getattr(sub, name)), name
    # the same functions as torch.cuda's, so seeding either is the same thing
    assert sub.manual_seed is jtorch.cuda.manual_seed
    assert sub.get_rng_state_all() == ref.get_rng_state_all() == []
    assert importlib.import_module("jtorch.cuda.random") is sub
    # no CUDA: seeding the GPU generator leaves the CPU stream where torch.random put it
    jtorch.random.manual_seed(5)
    a = jtorch.rand(4).numpy()
    jtorch.random.manual_seed(5)
    jtorch.cuda.random.manual_seed(7)
    np.testing.assert_array_equal(jtorch.rand(4).numpy(), a)
