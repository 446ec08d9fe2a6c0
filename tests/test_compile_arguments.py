"""jtorch.compile of a function that writes into its tensor arguments in place: the writes
reach the caller's tensors, as under torch.compile (before 2026-11-29 they were lost)."""

from __future__ import annotations

import warnings

import numpy as np
import torch

import jtorch


def _inputs(lib):
    g = np.random.default_rng(0)
    vals = [g.standard_normal(s).astype(np.float32) for s in ((3,), (2, 2), (4,), (5,))]
    x, y, z, base = (lib.tensor(v) for v in vals)
    return x, [y], {"z": z}, base


def _step(lib):
    def step(x, ys, d, view, scale):
        x.mul_(scale)                 # a plain tensor argument
        ys[0].add_(x.sum())           # a tensor in a list
        d["z"].lerp_(x[:1], 0.25)     # a tensor in a dict
        view.add_(1.0)                # a view: its base changes too
        return (x * 2).sum()          # an output made after the writes
    return step


def test_writes_into_tensor_arguments_reach_the_caller_as_under_torch_compile():
    results = {}
    for lib in (torch, jtorch):
        step = lib.compile(_step(lib))
        x, ys, d, base = _inputs(lib)
        outs = [step(x, ys, d, base[1:3], 1.5) for _ in range(3)]   # traced, then cached
        results[lib] = [t.numpy() for t in (*outs, x, ys[0], d["z"], base)]
    for got, ref in zip(results[jtorch], results[torch]):
        np.testing.assert_allclose(got, ref, rtol=1e-6)


def test_write_then_differentiable_output_runs_eagerly_with_torch_values():
    """A write into an argument by a function whose outputs need a graph (no backward inside):
    the differentiable program cannot carry the write, so the call runs eagerly, warning."""
    results = {}
    for lib in (torch, jtorch):
        def f(x, w):
            x.mul_(2)
            return (x * w).sum()

        step = lib.compile(f)
        x, w = lib.ones(2), lib.tensor([1.0, 3.0], requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            y = step(x, w)
        if lib is jtorch:
            assert any("writes in place into a tensor argument" in str(c.message)
                       for c in caught)
        y.backward()
        results[lib] = [y.detach().numpy(), x.numpy(), w.grad.numpy()]
    for got, ref in zip(results[jtorch], results[torch]):
        np.testing.assert_allclose(got, ref, rtol=1e-6)
