"""The meta device: shapes and dtypes without values, compared with PyTorch's meta tensors
(what each call gives: shape, dtype, device, requires_grad, grad_fn's name, the printed text,
the errors)."""

import warnings

import numpy as np
import pytest
import torch
from helpers import raises_like

import jtorch


def _same(j, t):
    """jtorch's meta result ``j`` matches PyTorch's ``t`` (tensors, or tuples of them)."""
    if isinstance(t, tuple):
        assert type(j).__name__ == type(t).__name__ and len(j) == len(t)
        for a, b in zip(j, t):
            _same(a, b)
        return
    assert j.is_meta and t.is_meta
    assert tuple(j.shape) == tuple(t.shape)
    assert str(j.dtype) == str(t.dtype) and str(j.device) == str(t.device) == "meta"
    assert j.requires_grad == t.requires_grad and j.is_leaf == t.is_leaf
    assert type(j.grad_fn).__name__ == type(t.grad_fn).__name__
    assert repr(j).split(" object at")[0] == repr(t).split(" object at")[0]


def _net(T):
    return T.nn.Sequential(T.nn.Conv2d(3, 8, 3, padding=1), T.nn.BatchNorm2d(8), T.nn.ReLU(),
                           T.nn.MaxPool2d(2), T.nn.Flatten(), T.nn.Linear(8 * 4 * 4, 10))


def test_a_model_built_on_meta_has_its_shapes_and_no_values():
    with torch.device("meta"):
        t = _net(torch)
    with jtorch.device("meta"):
        j = _net(jtorch)
    for (kj, pj), (kt, pt) in zip(j.state_dict().items(), t.state_dict().items()):
        assert kj == kt
        _same(pj, pt)
    for pj, pt in zip(j.parameters(), t.parameters()):
        assert repr(pj) == repr(pt)   # "Parameter containing:\ntensor(..., device='meta', ...)"
    x_t, x_j = torch.randn(2, 3, 8, 8, device="meta"), jtorch.randn(2, 3, 8, 8, device="meta")
    _same(j(x_j), t(x_t))
    j.eval(), t.eval()
    with torch.no_grad(), jtorch.no_grad():
        _same(j(x_j), t(x_t))


@pytest.mark.parametrize("make", [
    lambda T: T.empty(2, 3, device="meta"),
    lambda T: T.zeros(4, dtype=T.int64, device="meta"),
    lambda T: T.ones((2, 0), device="meta"),
    lambda T: T.full((3,), 2.5, device="meta", requires_grad=True),
    lambda T: T.rand(5, device="meta"),
    lambda T: T.randn(2, 2, dtype=T.float64, device="meta"),
    lambda T: T.randint(0, 5, (3,), device="meta"),
    lambda T: T.zeros_like(T.ones(2, 3), device="meta"),
    lambda T: T.empty_like(T.ones(2, 3, device="meta")),
    lambda T: T.arange(6, device="meta"),
    lambda T: T.tensor([1.0, 2.0], device="meta"),
    lambda T: T.ones(2, 3).to("meta"),
    lambda T: T.ones(2, 3, device="meta").new_zeros(4),
])
def test_factories(make):
    _same(make(jtorch), make(torch))


@pytest.mark.parametrize("op", [
    lambda T, x: (x @ x.t()).relu().sum(1),
    lambda T, x: x.max(1),
    lambda T, x: T.cat([x, x * 2], 0).view(2, 3, 4).permute(2, 0, 1),
    lambda T, x: (x > 0).sum(),
    lambda T, x: x + T.tensor(1.0),          # a 0-d CPU tensor joins a meta one
    lambda T, x: T.nn.functional.cross_entropy(x, T.zeros(3, dtype=T.long, device="meta")),
    lambda T, x: x.to(T.float64).softmax(-1),
])
def test_ops_give_shapes_dtypes_and_grad_fns(op):
    xt = torch.randn(3, 4, device="meta", requires_grad=True)
    xj = jtorch.randn(3, 4, device="meta", requires_grad=True)
    _same(op(jtorch, xj), op(torch, xt))


def test_inplace_ops_and_fills_change_nothing_and_draw_nothing():
    for T in (torch, jtorch):
        T.manual_seed(0)
        x = T.empty(3, 4, device="meta")
        v = x._version
        assert x.uniform_() is x and x.normal_(0, 2) is x and x.add_(1) is x
        assert x.copy_(T.ones(3, 4)) is x and x.zero_() is x
        assert x.is_meta and x._version > v
        T.nn.init.kaiming_uniform_(x)
        after = T.rand(3)   # the CPU generator did not move
        T.manual_seed(0)
        assert T.equal(after, T.rand(3))
    for T in (torch, jtorch):   # (PyTorch's meta kernels word this error their own way)
        with pytest.raises(RuntimeError, match="4"):
            T.empty(3, device="meta").add_(T.empty(4, device="meta"))


def test_reading_values_raises_pytorchs_errors():
    def cases(T):
        with T.device("meta"):
            m = T.nn.Linear(3, 2)
        return [lambda: m.weight.numpy(), lambda: m.weight.detach().tolist(),
                lambda: T.ones(1, device="meta").to("cpu"), lambda: m.to("cpu"),
                lambda: T.ones(2, 3, device="meta").item(),
                lambda: T.ones(2, device="meta") + T.ones(2),
                lambda: T.ones(2) + T.ones(2, device="meta")]

    for jt_case, t_case in zip(cases(jtorch), cases(torch)):
        raises_like(t_case, jt_case)


def test_to_empty_then_initialise_gives_a_working_model():
    with jtorch.device("meta"):
        j = _net(jtorch)
    j.to_empty(device="cpu")
    for mod in j.modules():
        if hasattr(mod, "reset_parameters"):
            mod.reset_parameters()
    assert not any(p.is_meta for p in j.state_dict().values())
    # the same weights in PyTorch's model give the same output and gradients
    t = _net(torch)
    t.load_state_dict({k: torch.tensor(v.numpy()) for k, v in j.state_dict().items()})
    x = np.random.default_rng(0).standard_normal((2, 3, 8, 8)).astype(np.float32)
    out_j, out_t = j(jtorch.tensor(x)), t(torch.tensor(x))
    np.testing.assert_allclose(out_j.detach().numpy(), out_t.detach().numpy(), rtol=1e-5,
                               atol=1e-5)
    out_j.sum().backward(), out_t.sum().backward()
    np.testing.assert_allclose(j[0].weight.grad.numpy(), t[0].weight.grad.numpy(), rtol=1e-4,
                               atol=1e-5)


def test_load_state_dict_into_meta_warns_and_assign_makes_real_parameters():
    sd = torch.nn.Linear(3, 2).state_dict()
    results = {}
    for T, state in ((torch, sd), (jtorch, {k: jtorch.tensor(v.numpy()) for k, v in sd.items()})):
        with T.device("meta"):
            m = T.nn.Linear(3, 2)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            m.load_state_dict(state)
        assert m.weight.is_meta
        m.load_state_dict(state, assign=True)
        assert not m.weight.is_meta and m.weight.requires_grad
        assert type(m.weight).__name__ == "Parameter"
        results[T.__name__] = ([str(x.message) for x in w], m.weight.detach().numpy())
    assert results["jtorch"][0] == results["torch"][0]
    np.testing.assert_array_equal(results["jtorch"][1], results["torch"][1])


def test_backward_gives_meta_gradients():
    def grads(T):
        x = T.randn(3, 4, device="meta", requires_grad=True)
        w = T.randn(5, 4, device="meta", requires_grad=True)
        (x @ w.t()).relu().sum().backward()
        (x @ w.t()).sum().backward()            # accumulates into the meta .grad
        values, _ = x.max(1)                    # an output whose gradient never comes
        values.sum().backward()
        (gx,) = T.autograd.grad((x * 2).sum(), x)
        with T.device("meta"):
            m = T.nn.Linear(4, 2)
        m(x).sum().backward()
        return [x.grad, w.grad, gx, m.weight.grad, m.bias.grad]

    for j, t in zip(grads(jtorch), grads(torch)):
        _same(j, t)


def test_fully_shard_of_a_meta_model_says_what_to_do():
    """Not implemented yet: FSDP2 shards a meta model before to_empty(); jtorch asks for
    to_empty() and the initialisation first (also valid in PyTorch)."""
    from jtorch.distributed.fsdp import fully_shard

    with jtorch.device("meta"):
        m = jtorch.nn.Linear(4, 8)
    with pytest.raises(NotImplementedError, match="to_empty"):
        fully_shard(m)
    m.to_empty(device="cpu")
    m.reset_parameters()
    fully_shard(m)
    assert m(jtorch.randn(8, 4)).shape == (8, 8)
