"""Hugging Face transformers on jtorch: tiny models (random weights, no download) trained a few
steps, generated from and reloaded through ``save_pretrained``/``from_pretrained``, and its
Trainer, under real PyTorch and under ``python -m jtorch``, from the same weights and batches
(scripts/hf_tiny_models.py; docs/real-programs.md). transformers is imported in a child
process, where ``import torch`` is PyTorch in one run and jtorch in the other."""

from __future__ import annotations

import importlib.util
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
spec = importlib.util.spec_from_file_location(
    "hf_tiny_models", os.path.join(ROOT, "scripts", "hf_tiny_models.py"))
hf = importlib.util.module_from_spec(spec)
spec.loader.exec_module(hf)


def _same(family):
    ref, err = hf._outputs(family, jtorch=False)
    assert ref is not None, f"PyTorch run failed: {err}"
    got, err = hf._outputs(family, jtorch=True)
    assert got is not None, f"jtorch run failed: {err}"
    assert len(got) == len(ref), (ref, got)
    for r, g in zip(ref, got):
        assert hf.NUMBER.sub("#", g) == hf.NUMBER.sub("#", r), (r, g)
        for x, y in zip(hf.NUMBER.findall(r), hf.NUMBER.findall(g)):
            assert abs(float(x) - float(y)) <= 1e-5 * max(abs(float(x)), 1.0), (r, g)
    if family in hf.FAMILIES:
        assert any(line.startswith("reloaded equal True") for line in got), got


def test_llama_trains_generates_and_reloads_as_in_pytorch():
    """A decoder with grouped-query attention, rotary embeddings and RMSNorm: losses, gradient
    norms, the greedy tokens and the reloaded logits."""
    _same("llama")


@pytest.mark.slow
@pytest.mark.parametrize("family", sorted(set(hf.RUNS) - {"llama"}))
def test_family_as_in_pytorch(family):
    """The other families (the Mixture-of-Experts ones in each experts implementation run),
    and ``trainer``: transformers' Trainer through accelerate."""
    _same(family)

