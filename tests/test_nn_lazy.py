"""Lazy modules (``torch.nn.LazyLinear``, ``LazyConv*``, ``LazyConvTranspose*``,
``LazyBatchNorm*``, ``LazyInstanceNorm*``) against PyTorch: repr and state_dict before the
first call, the first call's output and the class it becomes, shapes, initialisation bounds,
training parity afterwards, loading a state_dict into a lazy module, and the errors."""

import copy
import math

import numpy as np
import pytest
import torch
from helpers import assert_close, raises_like, rand
from nn_helpers import module_parity

import jtorch
from jtorch.nn.parameter import is_lazy

# (class name, constructor arguments, input shape)
CASES = [
    ("LazyLinear", (4,), (2, 7)),
    ("LazyConv1d", (4, 3), (2, 3, 9)),
    ("LazyConv2d", (4, 3), (2, 3, 8, 8)),
    ("LazyConv2d", (6, (3, 2)), (3, 7, 6)),                   # unbatched input
    ("LazyConv3d", (2, 2), (1, 2, 4, 5, 4)),
    ("LazyConvTranspose1d", (4, 3), (2, 3, 6)),
    ("LazyConvTranspose2d", (4, 3), (2, 2, 5, 5)),
    ("LazyConvTranspose3d", (2, 2), (1, 3, 3, 3, 3)),
    ("LazyBatchNorm1d", (), (4, 3)),
    ("LazyBatchNorm2d", (), (4, 3, 5, 5)),
    ("LazyBatchNorm3d", (), (2, 3, 2, 3, 3)),
    ("LazyInstanceNorm1d", (), (2, 3, 6)),
    ("LazyInstanceNorm2d", (), (2, 3, 4, 4)),
    ("LazyInstanceNorm3d", (), (2, 2, 3, 3, 3)),
]
IDS = [f"{name}-{len(shape)}d" for name, _, shape in CASES]
KWARGS = {"LazyConv2d": {"stride": 2, "padding": 1, "bias": False},
          "LazyConvTranspose2d": {"stride": 2, "output_padding": 1, "groups": 2},
          "LazyBatchNorm1d": {"momentum": None}, "LazyInstanceNorm2d": {"affine": False}}


def _build(lib, name, args):
    return getattr(lib.nn, name)(*args, **KWARGS.get(name, {}))


@pytest.mark.parametrize("name,args,shape", CASES, ids=IDS)
def test_lazy_module_matches_torch(name, args, shape):
    tm, jm = _build(torch, name, args), _build(jtorch, name, args)
    assert repr(jm) == repr(tm)
    assert jm.has_uninitialized_params() and tm.has_uninitialized_params()
    t_sd, j_sd = tm.state_dict(), jm.state_dict()
    assert list(j_sd) == list(t_sd)
    for key in t_sd:
        assert type(j_sd[key]).__name__ == type(t_sd[key]).__name__, key
    x = rand(*shape)
    # the call that materializes: its output is the eager layer's on the new parameters
    j_out = jm(jtorch.tensor(x))
    t_out = tm(torch.tensor(x))
    assert type(jm).__name__ == type(tm).__name__ == name[len("Lazy"):]
    assert repr(jm) == repr(tm)
    assert not any(is_lazy(t) for t in [*jm.parameters(), *jm.buffers()])
    assert not jm._forward_pre_hooks and "_initialize_hook" not in jm.__dict__
    j_state, t_state = jm.state_dict(), tm.state_dict()
    assert list(j_state) == list(t_state)
    for key in t_state:
        assert tuple(j_state[key].shape) == tuple(t_state[key].shape), key
        assert str(j_state[key].dtype) == str(t_state[key].dtype), key
    # the first call's output is PyTorch's layer's with jtorch's initial parameters (the random
    # initialisation itself is compared by its bounds below); the buffers it updated are
    # PyTorch's (deterministic: zeros and ones before the call)
    tm2 = _build(torch, name, args)
    tm2.initialize_parameters(torch.tensor(x))
    j_params = dict(jm.named_parameters())
    with torch.no_grad():
        for key, value in tm2.named_parameters():
            value.copy_(torch.from_numpy(np.array(j_params[key].detach().numpy())))
    assert_close(j_out, tm2(torch.tensor(x)), msg="first call")
    j_buffers = dict(jm.named_buffers())
    for key, value in tm.named_buffers():
        assert_close(j_buffers[key], value, msg=key)
    assert tuple(j_out.shape) == tuple(t_out.shape)


@pytest.mark.parametrize("name,args,shape", CASES, ids=IDS)
def test_lazy_module_trains_like_torch(name, args, shape):
    x = rand(*shape)

    def make(T):
        m = _build(T, name, args)
        with T.no_grad():
            m(T.tensor(x))
        return m

    module_parity(make, rand(*shape, seed=1))


def test_first_call_output_matches_eager_layer():
    """The output of the call that materializes equals PyTorch's layer with the same
    weights: the pre-hook runs before forward sees the parameters."""
    x = rand(2, 3, 8, 8)
    jm = jtorch.nn.LazyConv2d(5, 3, padding=1)
    j_out = jm(jtorch.tensor(x))
    tm = torch.nn.Conv2d(3, 5, 3, padding=1)
    with torch.no_grad():
        tm.weight.copy_(torch.from_numpy(np.array(jm.weight.detach().numpy())))
        tm.bias.copy_(torch.from_numpy(np.array(jm.bias.detach().numpy())))
    assert_close(j_out, tm(torch.tensor(x)))
    bn_j, bn_t = jtorch.nn.LazyBatchNorm2d(), torch.nn.LazyBatchNorm2d()
    x = rand(4, 3, 5, 5)
    assert_close(bn_j(jtorch.tensor(x)), bn_t(torch.tensor(x)))
    assert_close(bn_j.running_var, bn_t.running_var)
    assert bn_j.num_batches_tracked.item() == bn_t.num_batches_tracked.item() == 1


@pytest.mark.parametrize("name,args,shape,fan_in", [
    ("LazyLinear", (64,), (2, 50), 50),
    ("LazyConv2d", (32, 3), (1, 8, 6, 6), 8 * 9),
    ("LazyConvTranspose1d", (6, 4), (1, 10, 5), 6 * 4),
])
def test_lazy_initialisation_is_the_eager_layers(name, args, shape, fan_in):
    """kaiming_uniform(a=sqrt(5)): weights and bias uniform within 1/sqrt(fan_in)."""
    m = getattr(jtorch.nn, name)(*args)
    m(jtorch.zeros(*shape))
    bound = 1 / math.sqrt(fan_in)
    w, b = m.weight.detach().numpy(), m.bias.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
    assert np.abs(w).max() > 0.8 * bound
    assert m.weight.requires_grad and m.weight.is_leaf and type(m.weight) is jtorch.nn.Parameter


def test_lazy_norm_defaults_and_options():
    for T in (torch, jtorch):
        # the lazy InstanceNorms default to affine and running stats, as PyTorch's do
        m = T.nn.LazyInstanceNorm2d()
        assert m.affine and m.track_running_stats
        m = T.nn.LazyBatchNorm1d(affine=False, track_running_stats=False)
        assert m.weight is None and m.running_mean is None and m.num_batches_tracked is None
        assert not m.has_uninitialized_params()
    module_parity(lambda T: T.nn.LazyBatchNorm1d(affine=False, track_running_stats=False),
                  rand(4, 3))
    bn = jtorch.nn.LazyBatchNorm2d(bias=False)
    bn(jtorch.tensor(rand(2, 3, 2, 2)))
    assert bn.bias is None and tuple(bn.weight.shape) == (3,)
    assert repr(bn) == repr(torch.nn.BatchNorm2d(3, bias=False))


def test_load_state_dict_into_lazy_module():
    src_t = torch.nn.Linear(7, 4)
    sd = src_t.state_dict()
    for T, state in ((torch, sd), (jtorch, {k: jtorch.tensor(v.numpy()) for k, v in sd.items()})):
        m = T.nn.LazyLinear(4)
        m.load_state_dict(state)
        assert not m.has_uninitialized_params()
        assert tuple(m.weight.shape) == (4, 7)
        # PyTorch keeps in_features at 0 and the class lazy until the first call
        assert m.in_features == 0 and type(m).__name__ == "LazyLinear"
        out = m(T.ones(2, 7))
        assert type(m).__name__ == "Linear"
        if T is torch:
            t_out = out
        else:
            assert_close(out, t_out)
    conv = jtorch.nn.LazyConv2d(4, 3)
    conv.load_state_dict(jtorch.nn.Conv2d(2, 4, 3).state_dict())
    assert tuple(conv.weight.shape) == (4, 2, 3, 3)


def test_lazy_module_copy_save_and_optimizer():
    m = jtorch.nn.Sequential(jtorch.nn.LazyLinear(8), jtorch.nn.ReLU(), jtorch.nn.LazyLinear(2))
    clone = copy.deepcopy(m)
    assert clone[0].has_uninitialized_params() and clone[0] is not m[0]
    m(jtorch.randn(3, 5))
    assert tuple(m[2].weight.shape) == (2, 8)
    assert clone[0].has_uninitialized_params()
    opt = jtorch.optim.SGD(m.parameters(), lr=0.1)
    before = m[0].weight.detach().clone()
    m(jtorch.randn(3, 5)).sum().backward()
    opt.step()
    assert not jtorch.equal(before, m[0].weight.detach())


def test_lazy_errors_match_torch():
    raises_like(lambda: torch.nn.LazyConv2d(4, 3)(torch.zeros(2, 3, 4, 4, 4)),
                lambda: jtorch.nn.LazyConv2d(4, 3)(jtorch.zeros(2, 3, 4, 4, 4)))
    raises_like(lambda: torch.nn.LazyConv1d(4, 3, groups=2)(torch.zeros(2, 3, 9)),
                lambda: jtorch.nn.LazyConv1d(4, 3, groups=2)(jtorch.zeros(2, 3, 9)))
    raises_like(lambda: torch.nn.LazyLinear(3).weight.shape,
                lambda: jtorch.nn.LazyLinear(3).weight.shape)
    raises_like(lambda: torch.nn.LazyBatchNorm2d()(torch.zeros(2, 3)),
                lambda: jtorch.nn.LazyBatchNorm2d()(jtorch.zeros(2, 3)))
    raises_like(lambda: torch.nn.LazyConvTranspose2d(4, 3, padding_mode="reflect"),
                lambda: jtorch.nn.LazyConvTranspose2d(4, 3, padding_mode="reflect"))


def test_lazy_module_mixin_is_public():
    from jtorch.nn.modules.lazy import LazyModuleMixin

    assert isinstance(jtorch.nn.LazyConv2d(2, 1), LazyModuleMixin)
    raises_like(lambda: _custom_call(torch), lambda: _custom_call(jtorch))


def _custom_call(T):
    from importlib import import_module

    mixin = import_module(T.__name__ + ".nn.modules.lazy").LazyModuleMixin

    class Custom(mixin, T.nn.Module):
        def forward(self, x):
            return x

    return Custom()(T.zeros(1))
