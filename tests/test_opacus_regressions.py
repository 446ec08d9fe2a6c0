"""Regressions found by running Opacus and torch-ema unchanged under jtorch
(scripts/real_drivers/opacus_dp.py, docs/real-programs.md): each test is a small stand-in for
what the library did, in plain torch-API code, run in jtorch and in real PyTorch."""

import copy
import io

import numpy as np
import pytest
import torch

import jtorch


def test_distributed_tensor_old_path_and_implicit_replication():
    # `import opacus` imports implicit_replication from torch.distributed._tensor.experimental
    # (ModuleNotFoundError under the runner): the old path aliases torch.distributed.tensor
    import jtorch.distributed._tensor.experimental as exp
    import torch.distributed._tensor.experimental as want

    import jtorch.distributed._tensor as old
    import jtorch.distributed.tensor as new
    assert exp is new.experimental
    assert old.DTensor is new.DTensor and old.Shard is new.Shard
    for mod in (want, exp):
        with mod.implicit_replication():
            pass
    assert (jtorch.ones(2) + 1).tolist() == [2.0, 2.0]
    for name in ("local_map", "context_parallel", "register_sharding"):
        assert hasattr(want, name)
        with pytest.raises(NotImplementedError, match=name):
            getattr(exp, name)


def _round_trip(T, tensors):
    buf = io.BytesIO()
    T.save(tensors, buf)
    buf.seek(0)
    return T.load(buf)


@pytest.mark.parametrize("accessed", [False, True])
def test_deepcopy_of_loaded_tensors(accessed):
    # torch_ema's load_state_dict deep-copies the loaded dict: jtorch's loaded tensors carry
    # their storage link, whose deep copy marked the tensor as viewed mid-iteration
    # ("dictionary changed size during iteration"), and the copy shared no bytes with its link
    values = [np.arange(3, dtype=np.float32), np.ones((2, 2), np.float32)]
    results = []
    for T in (jtorch, torch):
        loaded = _round_trip(T, {"shadow": [T.tensor(v) for v in values], "n": 3})
        if accessed:
            loaded["shadow"][0].untyped_storage()
        copied = copy.deepcopy(loaded)
        copied["shadow"][0].add_(1)
        assert copied["n"] == 3
        assert (copied["shadow"][0].untyped_storage().data_ptr()
                != loaded["shadow"][0].untyped_storage().data_ptr())
        results.append([t.numpy().copy() for t in copied["shadow"] + loaded["shadow"]])
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


class _Net:
    """A per-sample-gradient model (Embedding, Conv1d, GroupNorm, LayerNorm, Linear) built in
    either framework from the same weights."""

    @staticmethod
    def build(T):
        nn = T.nn
        rng = np.random.default_rng(0)
        m = nn.ModuleDict({"emb": nn.Embedding(7, 4), "conv": nn.Conv1d(4, 4, 3, padding=1),
                           "gn": nn.GroupNorm(2, 4), "ln": nn.LayerNorm(4),
                           "fc": nn.Linear(4, 3)})
        with T.no_grad():
            for p in m.parameters():
                p.copy_(T.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32)))
        return m

    @staticmethod
    def forward(T, m, tokens):
        h = m["emb"](tokens).transpose(1, 2)
        h = m["gn"](T.tanh(m["conv"](h))).transpose(1, 2)
        return m["fc"](m["ln"](h)).mean(1)


@pytest.mark.parametrize("loss_reduction", ["sum", "mean"])
def test_call_for_per_sample_grads(loss_reduction):
    # Opacus's grad_sample_mode="ew" (GradSampleModuleExpandedWeights) calls
    # torch.nn.utils._per_sample_grad.call_for_per_sample_grads (ModuleNotFoundError)
    tokens = np.random.default_rng(1).integers(0, 7, (5, 6))
    got = []
    for T in (jtorch, torch):
        from importlib import import_module
        per_sample = import_module(f"{T.__name__}.nn.utils._per_sample_grad")
        m = _Net.build(T)

        class Wrapped(T.nn.Module):
            def __init__(self, inner, T=T):
                super().__init__()
                self.inner, self.T = inner, T

            def forward(self, x):
                return _Net.forward(self.T, self.inner, x)

        w = Wrapped(m)
        out = per_sample.call_for_per_sample_grads(w, loss_reduction=loss_reduction)(
            T.tensor(tokens))
        loss = out.pow(2).sum() if loss_reduction == "sum" else out.pow(2).mean()
        loss.backward()
        assert all(p.grad is None for p in w.parameters())
        got.append([out.detach().numpy()] + [p.grad_sample.numpy() for p in w.parameters()])
        with pytest.raises(RuntimeError, match="Please clear out the grad_sample"):
            per_sample.call_for_per_sample_grads(w)
    for a, b in zip(*got):
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_call_for_per_sample_grads_matches_loop_and_accumulates():
    # batch_first=False (batch in dim 1); two backwards accumulate into grad_sample
    from jtorch.nn.utils._per_sample_grad import call_for_per_sample_grads
    rng = np.random.default_rng(2)
    fc = jtorch.nn.Linear(3, 2)
    x = jtorch.tensor(rng.standard_normal((4, 5, 3)).astype(np.float32))   # (T, B, F)
    out = call_for_per_sample_grads(fc, batch_first=False)(x)
    assert out.shape == (4, 5, 2)
    out.pow(2).sum().backward(retain_graph=True)
    out.pow(2).sum().backward()
    for b in range(5):
        fc.zero_grad()
        fc(x[:, b]).pow(2).sum().backward()
        np.testing.assert_allclose(fc.weight.grad_sample[b].numpy(), 2 * fc.weight.grad.numpy(),
                                   rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(fc.bias.grad_sample[b].numpy(), 2 * fc.bias.grad.numpy(),
                                   rtol=1e-5, atol=1e-6)
    with pytest.raises(RuntimeError, match="Expected loss_reduction argument"):
        call_for_per_sample_grads(jtorch.nn.Linear(2, 2), loss_reduction="none")


_NORMS = {
    "group_norm": lambda F, x, w, b: F.group_norm(x, 2, w, b),
    "layer_norm": lambda F, x, w, b: F.layer_norm(x, (4,), w, b),
    "instance_norm": lambda F, x, w, b: F.instance_norm(x, weight=w, bias=b),
    "batch_norm": lambda F, x, w, b: F.batch_norm(x, None, None, w, b, training=True),
}


@pytest.mark.parametrize("norm", sorted(_NORMS))
@pytest.mark.parametrize("dtypes", [("float64", "float32", None), ("float64", "float32", "float32"),
                                    ("float32", "float64", "float64"),
                                    ("float64", "float64", "float32"),
                                    ("bfloat16", "float32", "float32"),
                                    ("bfloat16", "bfloat16", "float32"),
                                    ("float16", "float32", None), ("float32", "bfloat16", None)])
def test_norm_parameter_dtypes(norm, dtypes):
    # a float64 model whose BatchNorm ModuleValidator.fix replaced by a float32 GroupNorm:
    # PyTorch raises "mixed dtype (CPU)", jtorch computed in float64; parameters of the
    # input's dtype, or float32 ones with a half input, run
    x_dt, w_dt, b_dt = dtypes
    outcomes = []
    for T in (jtorch, torch):
        x = T.arange(24, dtype=T.float32).reshape(2, 4, 3).sin().to(getattr(T, x_dt))
        x = x.reshape(2, 3, 4) if norm == "layer_norm" else x
        w = T.full((4,), 1.5, dtype=getattr(T, w_dt))
        b = None if b_dt is None else T.full((4,), 0.25, dtype=getattr(T, b_dt))
        try:
            out = _NORMS[norm](T.nn.functional, x, w, b)
            outcomes.append((str(out.dtype), out.float().numpy()))
        except RuntimeError as e:
            outcomes.append((str(e), None))
    (got, got_v), (want, want_v) = outcomes
    assert got.replace("jtorch", "torch") == want
    if want_v is not None:
        np.testing.assert_allclose(got_v, want_v, rtol=1e-2, atol=1e-2)
