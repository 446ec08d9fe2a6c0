"""torch.autograd.forward_ad against PyTorch: tangents of elementwise ops, reductions, matmuls,
views, multi-output ops, in-place ops, a module's forward (and with dual parameters through
functional_call), random ops, the level's lifetime, the errors, and backward through a dual."""

import numpy as np
import pytest
import torch
from helpers import assert_close, raises_like, rand

import jtorch


def _both(fn, *arrays):
    """``fn(T, *tensors)`` in a dual level in both frameworks; each returns a list of
    (primal, tangent) pairs (tangent None where there is none)."""
    res = []
    for T in (torch, jtorch):
        fw = T.autograd.forward_ad
        with fw.dual_level():
            outs = fn(T, fw, *[T.tensor(a) for a in arrays])
            res.append([tuple(fw.unpack_dual(o)) for o in outs])
    for (tp, tt), (jp, jt) in zip(*res):
        assert_close(jp, tp, msg="primal")
        if tt is None:
            assert jt is None
        else:
            assert jt is not None, "jtorch has no tangent"
            assert_close(jt, tt, msg="tangent")
    return res


def test_elementwise_and_reductions():
    def fn(T, fw, x, t, y):
        d = fw.make_dual(x, t)
        return [d.sin() * d, (d * y).exp().sum(), d.norm(), T.where(d > 0, d, y * d),
                d.pow(3).mean(dim=0), T.softmax(d, dim=-1), d.argmax(), y + 1]

    _both(fn, rand(3, 4), rand(3, 4, seed=1), rand(3, 4, seed=2))


def test_matmul_views_and_multi_output_ops():
    def fn(T, fw, a, ta, b):
        d = fw.make_dual(a, ta)
        values, indices = d.max(dim=1)
        return [d @ b, d[1:, ::2], d.t().reshape(-1), d.unsqueeze(0).expand(2, 3, 4).sum(0),
                values, indices, T.cat([d, b.t()[:3]], dim=0), T.stack([d, d * 2]).var(0)]

    _both(fn, rand(3, 4), rand(3, 4, seed=1), rand(4, 5, seed=2))


def test_in_place_ops_on_a_dual():
    def fn(T, fw, x, t):
        d = fw.make_dual(x, t)
        y = d * 1.5
        y.mul_(d).add_(2.0).relu_()
        z = d.clone()
        z.copy_(x)     # a value without a tangent: the tangent becomes zero
        return [y, z]

    _both(fn, rand(5), rand(5, seed=1))


def test_module_forward_and_dual_parameters():
    x = rand(6, 4)
    torch.manual_seed(0)
    state = {k: v.detach().numpy() for k, v in _mlp(torch).state_dict().items()}

    def fn(T, fw, inp, tin):
        model = _mlp(T)
        model.load_state_dict({k: T.tensor(v) for k, v in state.items()})
        model.eval()
        params = {k: v.detach() for k, v in model.named_parameters()}
        weight = params["0.weight"]
        dual_params = dict(params, **{"0.weight": fw.make_dual(weight, T.ones_like(weight))})
        out_x = model(fw.make_dual(inp, tin))
        out_w = T.func.functional_call(model, dual_params, (inp,))
        return [out_x, out_w]

    _both(fn, x, rand(6, 4, seed=5))


def _mlp(T):
    return T.nn.Sequential(T.nn.Linear(4, 8), T.nn.LayerNorm(8), T.nn.ReLU(inplace=True),
                           T.nn.Dropout(0.3), T.nn.Linear(8, 3))


def test_tangent_through_the_same_random_numbers():
    """A random op draws once: the tangent uses the mask the primal used."""
    for T in (torch, jtorch):
        fw = T.autograd.forward_ad
        with fw.dual_level():
            T.manual_seed(0)
            x = T.ones(1000)
            y = T.nn.functional.dropout(fw.make_dual(x, T.full((1000,), 2.0)), 0.5)
            primal, tangent = fw.unpack_dual(y)
            assert T.equal(tangent, primal * 2)


def test_level_lifetime_and_unpack_outside():
    for T in (torch, jtorch):
        fw = T.autograd.forward_ad
        x = T.tensor([1.0, 2.0])
        assert fw.unpack_dual(x).tangent is None
        with fw.dual_level() as level:
            assert level == 0
            d = fw.make_dual(x, T.tensor([1.0, 0.0]))
            y = d * 3
            assert fw.unpack_dual(y).tangent is not None
            primal = fw.unpack_dual(y).primal
            assert fw.unpack_dual(primal).tangent is None
        assert fw.unpack_dual(y).tangent is None
        assert type(fw.unpack_dual(y)).__name__ == "UnpackedDualTensor"
        level = fw.enter_dual_level()
        d = fw.make_dual(x, T.ones(2))
        fw.exit_dual_level(level=level)
        assert fw.unpack_dual(d).tangent is None


def test_backward_through_a_dual_primal():
    grads = []
    for T in (torch, jtorch):
        fw = T.autograd.forward_ad
        x = T.tensor([0.5, -1.0, 2.0], requires_grad=True)
        with fw.dual_level():
            d = fw.make_dual(x, T.tensor([1.0, 1.0, 1.0]))
            y = (d.exp() * d).sum()
            tangent = fw.unpack_dual(y).tangent
        y.backward()
        grads.append((x.grad.numpy().copy(), float(tangent)))
    np.testing.assert_allclose(grads[1][0], grads[0][0], rtol=1e-6)
    np.testing.assert_allclose(grads[1][1], grads[0][1], rtol=1e-6)


def _errors(T):
    fw = T.autograd.forward_ad
    x = T.ones(3)

    def in_level(f):
        with fw.dual_level():
            f()

    return [lambda: fw.make_dual(x, T.ones(3)),
            lambda: in_level(lambda: fw.make_dual(x, T.ones(4))),
            lambda: in_level(lambda: fw.make_dual(T.arange(3), T.ones(3))),
            lambda: in_level(lambda: fw.make_dual(x, T.arange(3))),
            lambda: in_level(fw.enter_dual_level),
            lambda: fw.exit_dual_level()]


@pytest.mark.parametrize("i", range(6))
def test_errors_match_torch(i):
    raises_like(_errors(torch)[i], _errors(jtorch)[i])


def test_writes_through_views_are_reported():
    fw = jtorch.autograd.forward_ad
    with fw.dual_level():
        d = fw.make_dual(jtorch.ones(4), jtorch.ones(4))
        view = d[:2]
        with pytest.raises(NotImplementedError, match="forward_ad"):
            view.mul_(2)
        # an op whose kernel has only a reverse rule says so (PyTorch's wording)
        with pytest.raises(NotImplementedError, match="Trying to use forward AD with"):
            jtorch.zeros(4).index_put_((jtorch.tensor([1, 2]),), d[:2])
