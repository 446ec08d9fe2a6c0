"""Regressions found by running TransformerLens unchanged under jtorch
(scripts/real_drivers/transformer_lens_hooks.py, docs/real-programs.md): each test is a small
stand-in for what the library (or the Hugging Face model it wraps) did, in plain torch-API code,
run in jtorch and in real PyTorch."""

import pytest
import torch
from helpers import parity, raises_like, rand
from torch._higher_order_ops.associative_scan import associative_scan as torch_scan

import jtorch
from jtorch._higher_order_ops.associative_scan import associative_scan as jtorch_scan


def _scan(lib):
    return torch_scan if lib is torch else jtorch_scan


def test_associative_scan_mamba_recurrence():
    # transformers' Mamba imports torch._higher_order_ops.associative_scan (ModuleNotFoundError
    # under jtorch) for its selective-scan recurrence h_t = a_t * h_{t-1} + b_t: a pytree of two
    # leaves, combine_mode="generic", scanned along dim 2
    def fn(lib, a, b):
        def combine(left, right):
            return left[0] * right[0], right[0] * left[1] + right[1]
        return _scan(lib)(combine, (a, b), dim=2, combine_mode="generic")

    for n in (1, 2, 5, 8):
        parity(fn, rand(2, 3, n, 4, low=0.1, high=1.0, seed=n), rand(2, 3, n, 4, seed=n + 10),
               atol=1e-5, rtol=1e-5)


def test_associative_scan_sum_reverse_and_vmapped_combine():
    # a reversed cumulative sum, and a combine_fn that sees one element's shape (matrix
    # products of 2x2 blocks: combine_fn is vmapped over the scan dimension)
    parity(lambda lib, x: _scan(lib)(lambda p, q: p + q, x, dim=-1, reverse=True,
                                     combine_mode="generic"), rand(3, 7), atol=1e-5, rtol=1e-5)
    parity(lambda lib, m: _scan(lib)(lambda p, q: p @ q, m, dim=0, combine_mode="generic"),
           rand(6, 2, 2, low=-1.0, high=1.0), atol=1e-5, rtol=1e-5)
    parity(lambda lib, m: _scan(lib)(lambda p, q: p @ q, m, dim=0, reverse=True,
                                     combine_mode="generic"),
           rand(5, 2, 2, low=-1.0, high=1.0, seed=3), atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("kwargs", [{"dim": 1}, {"dim": 5, "combine_mode": "generic"},
                                    {"dim": 1, "combine_mode": "scan"},
                                    {"dim": 1, "reverse": 1, "combine_mode": "generic"}])
def test_associative_scan_errors(kwargs):
    # PyTorch's checks: "pointwise" (the default) needs CUDA or XPU tensors
    x = rand(3, 4)
    raises_like(lambda: _scan(torch)(lambda p, q: p + q, torch.tensor(x), **kwargs),
                lambda: _scan(jtorch)(lambda p, q: p + q, jtorch.tensor(x), **kwargs))
