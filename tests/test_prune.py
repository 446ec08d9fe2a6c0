"""torch.nn.utils.prune against PyTorch: the deterministic methods (L1, Ln for every norm,
custom masks, global, with importance scores, composed) give PyTorch's masks; the random ones
prune the same amount in the same structure; state_dict keys, hooks, forward and training steps
(eager and compiled) through pruned layers, remove(), is_pruned() and the errors."""

import numpy as np
import pytest
import torch
import torch.nn.utils.prune as tprune
from helpers import assert_close

import jtorch
import jtorch.nn.utils.prune as jprune

LIBS = ((torch, tprune), (jtorch, jprune))


def _net(T):
    return T.nn.Sequential(T.nn.Conv2d(2, 4, 3), T.nn.ReLU(), T.nn.Flatten(),
                           T.nn.Linear(16, 5))


def _pair(build=_net):
    """The same network in both libraries, with PyTorch's initial weights."""
    torch.manual_seed(0)
    t = build(torch)
    j = build(jtorch)
    j.load_state_dict({k: jtorch.tensor(v.numpy()) for k, v in t.state_dict().items()})
    return t, j


def _same_state(j, t):
    ts, js = t.state_dict(), j.state_dict()
    assert list(js) == list(ts)
    for k in ts:
        assert_close(js[k], ts[k], atol=0, rtol=0, msg=k)


X = np.random.default_rng(0).standard_normal((3, 2, 4, 4)).astype(np.float32)


def _train(T, model, steps=2, compiled=False):
    opt = T.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x = T.tensor(X)

    def step():
        opt.zero_grad()
        loss = model(x).pow(2).mean()
        loss.backward()
        opt.step()
        return loss

    run = T.compile(step) if compiled else step
    return [float(run().detach()) for _ in range(steps)]


DETERMINISTIC = {
    "l1 fraction": lambda P, m: P.l1_unstructured(m[3], "weight", amount=0.3),
    "l1 count": lambda P, m: P.l1_unstructured(m[0], "bias", amount=2),
    "ln n=2 dim=0": lambda P, m: P.ln_structured(m[0], "weight", amount=0.5, n=2, dim=0),
    "ln n=1 dim=1": lambda P, m: P.ln_structured(m[0], "weight", amount=1, n=1, dim=1),
    "ln inf dim=-1": lambda P, m: P.ln_structured(m[3], "weight", amount=3, n=float("inf"),
                                                  dim=-1),
    "ln -inf": lambda P, m: P.ln_structured(m[3], "weight", amount=2, n=float("-inf"), dim=0),
    "ln fro": lambda P, m: P.ln_structured(m[3], "weight", amount=0.25, n="fro", dim=1),
    "ln zero amount": lambda P, m: P.ln_structured(m[0], "weight", amount=0, n=2, dim=0),
    "identity": lambda P, m: P.identity(m[3], "bias"),
    "custom": lambda P, m: P.custom_from_mask(
        m[3], "bias", mask=m[3].bias.detach() > 0),
    "importance scores": lambda P, m: P.l1_unstructured(
        m[3], "weight", amount=0.5, importance_scores=m[3].weight.detach().flip(0)),
    "global": lambda P, m: P.global_unstructured(
        [(m[0], "weight"), (m[3], "weight"), (m[3], "bias")], P.L1Unstructured, amount=0.4),
    "twice l1": lambda P, m: (P.l1_unstructured(m[3], "weight", amount=0.3),
                              P.l1_unstructured(m[3], "weight", amount=0.3)),
    "l1 then ln": lambda P, m: (P.l1_unstructured(m[0], "weight", amount=10),
                                P.ln_structured(m[0], "weight", amount=1, n=2, dim=0),
                                P.custom_from_mask(m[0], "weight",
                                                   mask=m[0].weight_orig.detach() > -0.2)),
    "global after l1": lambda P, m: (P.l1_unstructured(m[3], "weight", amount=0.2),
                                     P.global_unstructured([(m[3], "weight"), (m[0], "bias")],
                                                           P.L1Unstructured, amount=5)),
}


@pytest.mark.parametrize("name", list(DETERMINISTIC))
def test_deterministic_methods_match_pytorch(name):
    t, j = _pair()
    for (_, P), m in zip(LIBS, (t, j)):
        DETERMINISTIC[name](P, m)
    _same_state(j, t)
    hooks = [[type(h).__name__ for h in m._forward_pre_hooks.values()] for m in (t, j)]
    assert hooks[1] == hooks[0]
    for mt, mj in zip(t, j):
        for name_, _ in mt.named_buffers():
            tensor_name = name_[:-len("_mask")]
            assert_close(getattr(mj, tensor_name), getattr(mt, tensor_name), atol=0, rtol=0)
    assert_close(j(jtorch.tensor(X)), t(torch.tensor(X)), atol=1e-5, rtol=1e-5)


def test_training_through_pruned_layers():
    t, j = _pair()
    for (_, P), m in zip(LIBS, (t, j)):
        P.ln_structured(m[0], "weight", amount=1, n=2, dim=0)
        P.l1_unstructured(m[3], "weight", amount=0.5)
    losses = [_train(T, m, steps=3) for (T, _), m in zip(LIBS, (t, j))]
    np.testing.assert_allclose(losses[1], losses[0], rtol=1e-5)
    _same_state_close(j, t)
    # pruned entries stay zero in the effective weight, while weight_orig keeps training
    assert bool((j[3].weight[j[3].weight_mask == 0] == 0).all())


def _same_state_close(j, t):
    ts, js = t.state_dict(), j.state_dict()
    assert list(js) == list(ts)
    for k in ts:
        assert_close(js[k], ts[k], atol=1e-5, rtol=1e-5, msg=k)


def test_compiled_training_step_through_a_pruned_layer():
    t, j = _pair()
    for (_, P), m in zip(LIBS, (t, j)):
        P.l1_unstructured(m[3], "weight", amount=0.5)
    eager = _train(torch, t, steps=3)
    compiled = _train(jtorch, j, steps=3, compiled=True)
    np.testing.assert_allclose(compiled, eager, rtol=1e-5)
    _same_state_close(j, t)


def test_remove():
    t, j = _pair()
    for (T, P), m in zip(LIBS, (t, j)):
        P.l1_unstructured(m[3], "weight", amount=0.5)
        P.ln_structured(m[3], "weight", amount=1, n=1, dim=0)
        P.custom_from_mask(m[0], "bias", mask=m[0].bias.detach() < 0.1)
        assert P.is_pruned(m)
        P.remove(m[3], "weight")
        assert isinstance(m[3].weight, T.nn.Parameter)
        assert not any(isinstance(h, P.BasePruningMethod) for h in m[3]._forward_pre_hooks.values())
        P.remove(m[0], "bias")
        assert not P.is_pruned(m)
    _same_state(j, t)
    assert [n for n, _ in j.named_parameters()] == [n for n, _ in t.named_parameters()]


@pytest.mark.parametrize("amount", [0.0, 0.3, 5])
def test_random_unstructured_prunes_the_amount(amount):
    for (_, P), m in zip(LIBS, _pair()):
        P.random_unstructured(m[3], "weight", amount=amount)
        n = m[3].weight_mask.numel()
        pruned = int((m[3].weight_mask == 0).sum())
        assert pruned == (amount if isinstance(amount, int) else round(amount * n))
        assert bool(((m[3].weight == 0) | (m[3].weight_mask == 1)).all())


@pytest.mark.parametrize("dim, amount", [(0, 0.5), (1, 1), (-1, 2)])
def test_random_structured_prunes_whole_channels(dim, amount):
    for (_, P), m in zip(LIBS, _pair()):
        P.random_structured(m[0], "weight", amount=amount, dim=dim)
        mask = m[0].weight_mask
        others = [d for d in range(mask.dim()) if d != dim % mask.dim()]
        per_channel = mask.sum(dim=others)
        size = 1
        for d in others:
            size *= mask.shape[d]
        channels = mask.shape[dim]
        expected = amount if isinstance(amount, int) else round(amount * channels)
        assert int((per_channel == 0).sum()) == expected
        assert int((per_channel == size).sum()) == channels - expected


def test_prune_method_and_container_api():
    for T, P in LIBS:
        w = T.tensor([[1.0, -3.0], [0.5, 2.0]])
        assert P.L1Unstructured(amount=2).prune(w).tolist() == [[0.0, -3.0], [0.0, 2.0]]
        assert P.LnStructured(amount=1, n=1, dim=0).prune(w).tolist() == [[1.0, -3.0],
                                                                          [0.0, 0.0]]
        lin = T.nn.Linear(2, 2)
        m1 = P.L1Unstructured.apply(lin, "weight", amount=1)
        m2 = P.RandomStructured.apply(lin, "weight", amount=1, dim=0)
        assert isinstance(m2, P.PruningContainer) and len(m2) == 2 and m2[0] is m1
        assert [type(x).__name__ for x in m2] == ["L1Unstructured", "RandomStructured"]
        with pytest.raises(ValueError, match="Can only add pruning methods acting on the "
                                             "parameter named 'weight'"):
            other = P.Identity()
            other._tensor_name = "bias"
            m2.add_pruning_method(other)
        with pytest.raises(TypeError, match="is not a BasePruningMethod subclass"):
            m2.add_pruning_method(3)


ERRORS = [
    lambda P, m: P.l1_unstructured(m, "weight", amount=-1),
    lambda P, m: P.l1_unstructured(m, "weight", amount=1.5),
    lambda P, m: P.l1_unstructured(m, "weight", amount="a"),
    lambda P, m: P.l1_unstructured(m, "weight", amount=100),
    lambda P, m: P.ln_structured(m, "bias", amount=1, n=2, dim=0),
    lambda P, m: P.ln_structured(m, "weight", amount=1, n=2, dim=2),
    lambda P, m: P.random_structured(m, "weight", amount=9, dim=0),
    lambda P, m: P.remove(m, "weight"),
    lambda P, m: P.global_unstructured([(m, "weight")], P.LnStructured, amount=1, n=2, dim=0),
    lambda P, m: P.global_unstructured([(m, "weight")], P.L1Unstructured, importance_scores=[],
                                       amount=1),
    lambda P, m: P.global_unstructured(3, P.L1Unstructured, amount=1),
    lambda P, m: P.l1_unstructured(m, "weight", amount=1, importance_scores=m.bias),
    lambda P, m: P.custom_from_mask(m, "weight", mask=m.bias),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors(i):
    outcomes = []
    for T, P in LIBS:
        m = T.nn.Linear(3, 2)
        with pytest.raises(Exception) as e:
            ERRORS[i](P, m)
        # a failed pruning leaves the module as it was
        assert sorted(n for n, _ in m.named_parameters()) == ["bias", "weight"]
        outcomes.append((type(e.value).__name__, str(e.value).replace("jtorch.", "torch.")))
    assert outcomes[1] == outcomes[0]
