"""Mixture-of-Experts layers as transformers 5.17 runs them (scripts/hf_tiny_models.py's MoE
families), against PyTorch: values and gradients of the three experts implementations, written
out here with the same torch calls as transformers' ``integrations/moe.py`` (no transformers
import: it would bind ``torch`` to one library per process).

- ``grouped_mm`` (transformers' default): tokens sorted by expert, ``histc`` counts and an
  int32 ``cumsum`` for the offsets, ``F.grouped_mm`` on the transposed expert weights,
  ``masked_fill`` of the rows past the last offset, the inverse permutation written with
  ``inv[perm] = arange``;
- ``batched_mm``: every token's expert weights gathered, one ``bmm``;
- ``eager``: a loop over the experts hit, ``index_add_`` into the output.
"""

import numpy as np
import pytest
import torch
from helpers import parity, rand

import jtorch

E, TOP_K, H, I = 4, 2, 8, 16   # experts, experts per token, hidden, expert intermediate


def _route(T, x, router):
    probs = T.softmax(x @ router.t(), dim=-1)
    weights, index = T.topk(probs, TOP_K, dim=-1)
    return weights / weights.sum(-1, keepdim=True), index


def _gate(T, gate_up):
    gate, up = gate_up.chunk(2, dim=-1)
    return T.nn.functional.silu(gate) * up


def _grouped(T, x, router, gate_up, down, sentinel=False):
    weights, index = _route(T, x, router)
    if sentinel:   # expert parallelism's sentinel ids (>= E) sort past the last offset
        index = T.where(T.arange(index.shape[0])[:, None] == 0, E, index)
        weights = T.where(index >= E, 0.0, weights)
    ids, w = index.reshape(-1), weights.reshape(-1)
    ids_g, perm = T.sort(ids)
    xs = x[perm // TOP_K]
    counts = T.histc(ids_g.float(), bins=E, min=0, max=E - 1)
    offs = T.cumsum(counts, dim=0, dtype=T.int32)
    mask = (ids_g >= E).unsqueeze(-1)
    xs.masked_fill_(mask, 0.0)
    h = T.nn.functional.grouped_mm(xs, gate_up.transpose(-2, -1), offs=offs)
    h = _gate(T, h.masked_fill(mask, 0.0))
    h = T.nn.functional.grouped_mm(h, down.transpose(-2, -1), offs=offs).masked_fill(mask, 0.0)
    h = h * w[perm].unsqueeze(-1)
    inv = T.empty_like(perm)
    inv[perm] = T.arange(perm.size(0))
    return h[inv].view(x.shape[0], TOP_K, H).sum(dim=1)


def _batched(T, x, router, gate_up, down):
    weights, index = _route(T, x, router)
    ids = index.reshape(-1).clamp(0, E - 1)
    xs = x.repeat_interleave(TOP_K, dim=0)
    h = _gate(T, T.bmm(gate_up[ids], xs.unsqueeze(-1)).squeeze(-1))
    h = T.bmm(down[ids], h.unsqueeze(-1)).squeeze(-1) * weights.reshape(-1).unsqueeze(-1)
    return h.view(x.shape[0], TOP_K, H).sum(dim=1)


def _eager(T, x, router, gate_up, down):
    weights, index = _route(T, x, router)
    out = T.zeros_like(x)
    with T.no_grad():
        hit = T.nn.functional.one_hot(index, num_classes=E).permute(2, 1, 0)
        experts = T.greater(hit.sum(dim=(-1, -2)), 0).nonzero()
    for e in experts:
        e = e[0]
        pos, tok = T.where(hit[e])
        h = _gate(T, T.nn.functional.linear(x[tok], gate_up[e]))
        h = T.nn.functional.linear(h, down[e]) * weights[tok, pos, None]
        out.index_add_(0, tok, h)
    return out


def _weights(seed):
    return (rand(10, H, seed=seed), rand(E, H, seed=seed + 1),
            rand(E, 2 * I, H, seed=seed + 2, low=-0.5, high=0.5),
            rand(E, H, I, seed=seed + 3, low=-0.5, high=0.5))


@pytest.mark.parametrize("impl", [_grouped, _batched, _eager])
def test_experts_implementations(impl):
    parity(impl, *_weights(0), jit=False)


def test_grouped_with_an_unused_expert_and_sentinels():
    x, router, gate_up, down = _weights(10)
    x = np.abs(x) + 0.1
    router[3] = -10.0   # positive tokens: expert 3 scores lowest, never chosen (an empty group)
    parity(lambda T, *a: _grouped(T, *a, sentinel=True), x, router, gate_up, down, jit=False)


def test_implementations_agree():
    args = [torch.tensor(a) for a in _weights(20)]
    ref = _eager(torch, *args)
    for impl in (_grouped, _batched):
        np.testing.assert_allclose(impl(torch, *args).numpy(), ref.numpy(), atol=1e-5)


def test_legacy_contiguous_format():
    """phimoe's router (``sparsemixer``) draws its Gumbel noise into
    ``torch.empty_like(x, memory_format=torch.legacy_contiguous_format)``; jtorch lacked the
    name. It is PyTorch's old name for ``contiguous_format`` (the same object)."""
    assert jtorch.legacy_contiguous_format is jtorch.contiguous_format
    assert repr(jtorch.legacy_contiguous_format) == repr(torch.legacy_contiguous_format)

    def fn(T, x):
        x = x.t()
        noise = T.empty_like(x, memory_format=T.legacy_contiguous_format)
        y = x.clone(memory_format=T.legacy_contiguous_format)
        return [y * 2, T.tensor(noise.stride()), T.tensor(y.stride())]

    parity(fn, rand(3, 5, seed=30), jit=False)
