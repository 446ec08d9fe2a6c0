"""Dropout family (statistics, structure, same-mask gradients, eval identity, errors), Flatten/
Unflatten, distances and F.normalize, F.pad and the padding modules."""

# the loop lambdas below are called within their iteration
# ruff: noqa: B023

import warnings

import jax
import numpy as np
import pytest
import torch
from helpers import NonContig, parity, raises_like, rand
from nn_helpers import module_parity

import jtorch

F, JF = torch.nn.functional, jtorch.nn.functional


# ------------------------------------------------------------------ dropout
def test_dropout_statistics_and_same_mask():
    for dt in (jtorch.float32, jtorch.float64):
        x = jtorch.ones(200, 250, dtype=dt, requires_grad=True)
        y = JF.dropout(x, 0.3)
        assert y.dtype == dt and type(y.grad_fn).__name__ == "MulBackward0"
        a = y.detach().numpy()
        zero = a == 0
        np.testing.assert_allclose(zero.mean(), 0.3, atol=0.015)
        np.testing.assert_allclose(a[~zero], 1 / 0.7, rtol=1e-6)
        y.backward(jtorch.full((200, 250), 2.0, dtype=dt))
        np.testing.assert_allclose(x.grad.numpy(), 2 * a, rtol=1e-6)   # the same mask


def test_dropout_fresh_mask_each_call_and_seeded():
    x = jtorch.ones(1000)
    a, b = JF.dropout(x).numpy(), JF.dropout(x).numpy()
    assert not np.array_equal(a, b)
    jtorch.manual_seed(5)
    c = JF.dropout(x).numpy()
    jtorch.manual_seed(5)
    np.testing.assert_array_equal(c, JF.dropout(x).numpy())


def test_dropout_inactive_returns_input():
    x = jtorch.randn(4, 3, requires_grad=True)
    for fn in ("dropout", "dropout1d", "alpha_dropout", "feature_alpha_dropout"):
        assert getattr(JF, fn)(x, 0.5, training=False) is x
    with pytest.warns(UserWarning, match="dropout2d: Received a 2-D input"):  # as PyTorch
        assert JF.dropout2d(x, 0.5, training=False) is x
    assert JF.dropout(x, 0.0) is x
    e = jtorch.randn(0, 3)
    assert JF.dropout(e, 0.5) is e
    y = JF.dropout(x, 1.0)
    assert type(y.grad_fn).__name__ == "MulBackward0" and not y.detach().numpy().any()


@pytest.mark.parametrize("fn,shape,lead", [("dropout1d", (6, 50, 7), 2), ("dropout1d", (50, 7), 1),
                                           ("dropout2d", (6, 50, 3, 3), 2),
                                           ("dropout2d", (6, 50, 7), 2),
                                           ("dropout3d", (4, 50, 2, 2, 2), 2),
                                           ("dropout3d", (50, 2, 2, 2), 1),
                                           ("feature_alpha_dropout", (6, 50, 3), 2)])
def test_feature_dropout_structure(fn, shape, lead):
    x = jtorch.ones(shape, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = getattr(JF, fn)(x, 0.4, True)
    a = y.detach().numpy()
    chans = a.reshape(shape[:lead] + (-1,))
    # every channel is all dropped or all kept
    assert np.all(chans.min(-1) == chans.max(-1))
    if fn == "feature_alpha_dropout":
        kept = chans[..., 0] > 0
    else:
        kept = chans[..., 0] != 0
        np.testing.assert_allclose(chans[kept], 1 / 0.6, rtol=1e-6)
    assert 0.2 < kept.mean() < 0.9
    y.sum().backward()
    g = x.grad.numpy().reshape(shape[:lead] + (-1,))
    assert np.all((g[..., 0] != 0) == kept) or fn == "feature_alpha_dropout"


def test_alpha_dropout_keeps_mean_and_std():
    x = jtorch.randn(200000)
    y = JF.alpha_dropout(x, 0.2, True).numpy()
    np.testing.assert_allclose(y.mean(), 0.0, atol=0.01)
    np.testing.assert_allclose(y.std(), 1.0, atol=0.01)
    # dropped elements all take one value: a * (-alpha') + b
    vals, counts = np.unique(y, return_counts=True)
    np.testing.assert_allclose(counts.max() / y.size, 0.2, atol=0.01)


def test_dropout_inplace():
    base = jtorch.ones(10, 100)
    y = JF.dropout(base[:5], 0.5, inplace=True)
    a = base.numpy()
    assert set(np.unique(a[:5])) <= {0.0, 2.0} and np.all(a[5:] == 1)
    np.testing.assert_array_equal(y.numpy(), a[:5])
    z = jtorch.ones(100)
    assert jtorch.dropout_(z, 0.5, True) is z and set(np.unique(z.numpy())) == {0.0, 2.0}
    assert tuple(jtorch.feature_dropout(jtorch.ones(3, 4, 5), 0.5, True).shape) == (3, 4, 5)


def test_dropout_under_jit_uses_key():
    def f(a):
        x = jtorch.Tensor._make(a)
        return JF.dropout(x, 0.5)._value

    out = jax.jit(f)(np.ones(1000, np.float32))
    assert set(np.unique(np.asarray(out))) == {0.0, 2.0}


def test_dropout_errors():
    for fn in ("dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout",
               "feature_alpha_dropout"):
        for p in (1.5, -0.1):
            raises_like(lambda: getattr(F, fn)(torch.randn(2, 3, 4), p),
                        lambda: getattr(JF, fn)(jtorch.randn(2, 3, 4), p))
    raises_like(lambda: torch.nn.Dropout(2), lambda: jtorch.nn.Dropout(2))
    raises_like(lambda: F.dropout1d(torch.randn(2, 3, 4, 5)),
                lambda: JF.dropout1d(jtorch.randn(2, 3, 4, 5)))
    raises_like(lambda: F.dropout(torch.tensor([1, 2]), 0.5),
                lambda: JF.dropout(jtorch.tensor([1, 2]), 0.5))
    raises_like(lambda: F.feature_alpha_dropout(torch.randn(3), 0.5, True),
                lambda: JF.feature_alpha_dropout(jtorch.randn(3), 0.5, True))
    for fn, shape in (("dropout2d", (2, 3)), ("dropout2d", (2, 3, 4)), ("dropout3d", (2, 3))):
        with pytest.warns(UserWarning, match=fn):
            getattr(JF, fn)(jtorch.randn(*shape))


@pytest.mark.parametrize("cls", ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d",
                                 "AlphaDropout", "FeatureAlphaDropout"])
def test_dropout_modules(cls):
    for args in ((), (0.2,), (0.3, True)):
        assert repr(getattr(jtorch.nn, cls)(*args)) == repr(getattr(torch.nn, cls)(*args))
    shape = {"Dropout1d": (2, 3, 4), "Dropout3d": (2, 3, 2, 2, 2)}.get(cls, (2, 3, 4, 4))
    module_parity(lambda T: getattr(T.nn, cls)(0.5), rand(*shape), train=False)
    m = getattr(jtorch.nn, cls)(0.5)
    x = jtorch.ones(shape)
    assert not np.array_equal(m(x).numpy(), x.numpy())
    m.eval()
    assert m(x) is x


# ------------------------------------------------------------------ flatten
def test_flatten_unflatten():
    for make, shape in ((lambda T: T.nn.Flatten(), (2, 3, 4)),
                        (lambda T: T.nn.Flatten(0, 1), (2, 3, 4)),
                        (lambda T: T.nn.Flatten(-2), (2, 3, 4, 5)),
                        (lambda T: T.nn.Unflatten(1, (2, 2)), (3, 4, 5)),
                        (lambda T: T.nn.Unflatten(-1, [5, 1]), (3, 5)),
                        (lambda T: T.nn.Unflatten(0, (-1, 2)), (4, 3))):
        assert repr(make(jtorch)) == repr(make(torch))
        module_parity(make, rand(*shape))
    raises_like(lambda: torch.nn.Unflatten(1, (2, 2.0)), lambda: jtorch.nn.Unflatten(1, (2, 2.0)))
    raises_like(lambda: torch.nn.Unflatten(1, 4), lambda: jtorch.nn.Unflatten(1, 4))


# ------------------------------------------------------------------ distances
def test_cosine_similarity():
    cs = lambda T, a, b, *r, **k: T.nn.functional.cosine_similarity(a, b, *r, **k)  # noqa
    parity(cs, rand(3, 5), rand(3, 5))
    parity(lambda T, a, b: cs(T, a, b, dim=-1, eps=1e-3), rand(2, 3, 4, dtype=np.float64),
           rand(3, 1, dtype=np.float64))
    z = np.zeros((2, 3), np.float32)
    parity(cs, z, rand(2, 3))          # zero vector: the clamp without grad
    parity(lambda T, a, b: T.cosine_similarity(a, b, 0), rand(4), rand(4))
    parity(cs, rand(3, 5, dtype=np.int64), rand(3, 5))
    parity(cs, NonContig(rand(4, 3)), rand(4, 3))
    # float64 with float32: the float32 input is normalised in float32 (PyTorch's order)
    parity(cs, rand(3, 5, dtype=np.float64), rand(3, 5), atol=1e-6, rtol=1e-6)
    for a, b, kw in ((torch.randn(2, 3), torch.randn(4, 3), {}),
                     (torch.tensor([1, 2]), torch.tensor([1, 2]), {}),
                     (torch.randn(3), torch.randn(3), {})):
        raises_like(lambda: F.cosine_similarity(a, b, **kw),
                    lambda: JF.cosine_similarity(jtorch.tensor(a.numpy()),
                                                 jtorch.tensor(b.numpy()), **kw))


def test_pairwise_distance():
    pd = lambda T, a, b, *r, **k: T.nn.functional.pairwise_distance(a, b, *r, **k)  # noqa
    for p in (1.0, 3.0, float("inf"), 0.0):
        parity(lambda T, a, b: pd(T, a, b, p=p), rand(4, 5, dtype=np.float64),
               rand(4, 5, dtype=np.float64))
    parity(lambda T, a, b: pd(T, a, b, keepdim=True), rand(4, 5), rand(5))
    parity(pd, rand(5), rand(5))
    parity(pd, rand(), rand())
    x = rand(3, 2)
    parity(lambda T, a, b: pd(T, a, b, eps=0.0), x, x.copy())   # zero distance: grad 0
    parity(lambda T, a, b: T.pairwise_distance(a, b), rand(3, 4), rand(3, 4))
    parity(pd, rand(3, 4, dtype=np.int64, low=-3, high=3), rand(3, 4, dtype=np.int64))
    raises_like(lambda: F.pairwise_distance(torch.randn(2, 3), torch.randn(4, 3)),
                lambda: JF.pairwise_distance(jtorch.randn(2, 3), jtorch.randn(4, 3)))


def test_pdist():
    for p in (1.0, 3.0, float("inf")):
        parity(lambda T, a: T.nn.functional.pdist(a, p), rand(5, 3, dtype=np.float64))
    parity(lambda T, a: T.pdist(a), rand(4, 3))
    parity(lambda T, a: T.pdist(a), rand(1, 3))
    x = rand(3, 2)
    x[1] = x[0]
    parity(lambda T, a: T.pdist(a), x)    # a zero distance: grad 0
    for a, kw in ((torch.randn(2, 3, 4), {}), (torch.randn(3, 2), {"p": -1}),
                  (torch.tensor([[1, 2], [3, 4]]), {})):
        raises_like(lambda: F.pdist(a, **kw), lambda: JF.pdist(jtorch.tensor(a.numpy()), **kw))


def test_normalize():
    nz = lambda T, a, *r, **k: T.nn.functional.normalize(a, *r, **k)  # noqa: E731
    parity(nz, rand(3, 4))
    parity(lambda T, a: nz(T, a, p=1.0, dim=0), rand(3, 4, dtype=np.float64))
    parity(lambda T, a: nz(T, a, p=float("inf"), dim=-1), rand(2, 3, 4, dtype=np.float64))
    parity(lambda T, a: nz(T, a, 3.0, 1, 1e-3), NonContig(rand(3, 4)))
    z = rand(3, 4)
    z[1] = 0
    parity(nz, z)
    parity(lambda T, a: nz(T, a, dim=0), rand(5))
    parity(lambda T, a: nz(T, a, dim=0), rand(0, 3))
    raises_like(lambda: F.normalize(torch.randn(3)), lambda: JF.normalize(jtorch.randn(3)))


def test_distance_modules():
    for make in (lambda T: T.nn.CosineSimilarity(), lambda T: T.nn.CosineSimilarity(0, 1e-3),
                 lambda T: T.nn.PairwiseDistance(), lambda T: T.nn.PairwiseDistance(1.0, 0.1,
                                                                                   True)):
        assert repr(make(jtorch)) == repr(make(torch))
        module_parity(make, rand(3, 4), rand(3, 4))


# ------------------------------------------------------------------ padding
PADS = [
    ((2, 3), (1, 2), "constant", 3.5), ((2, 3), (-1, -2), "constant", None),
    ((2, 3, 4), (1, -1, 2, 0), "constant", None), ((2, 3), (1, 1, 1, 1), "constant", -1.0),
    ((2, 3), (1, 2), "reflect", None), ((2, 3, 4), (2, 1), "reflect", None),
    ((1, 4), (-2, 2), "reflect", None), ((2, 3, 4), (1, 2, 2, 1), "reflect", None),
    ((1, 2, 3, 4), (1, 1, 2, 2), "reflect", None),
    ((1, 2, 3, 4, 4), (1, 1, 2, 2, 2, 0), "reflect", None),
    ((2, 3, 3, 4), (3, 3, 2, 2, 1, 1), "reflect", None),
    ((2, 3), (3, 4), "replicate", None), ((2, 3, 4), (-1, 2, 1, 2), "replicate", None),
    ((1, 2, 3, 4), (2, 0, 1, 3), "replicate", None),
    ((1, 2, 3, 2, 2), (1, 1, 2, 2, 1, 1), "replicate", None),
    ((2, 4), (2, 3), "circular", None), ((1, 4), (2, -1), "circular", None),
    ((1, 4), (-1, 2), "circular", None), ((2, 3, 4), (1, 2, 3, 1), "circular", None),
    ((1, 2, 3, 3, 4), (1, 1, 2, 0, 3, 3), "circular", None), ((2, 4), (4, 4), "circular", None),
    ((0, 2, 3), (1, 1), "reflect", None),
]


@pytest.mark.parametrize("shape,pad,mode,value", PADS, ids=str)
def test_pad_parity(shape, pad, mode, value):
    f = lambda T, x: T.nn.functional.pad(x, pad, mode, value)  # noqa: E731
    parity(f, rand(*shape, dtype=np.float64))
    if len(shape) >= 2:
        parity(f, NonContig(rand(*shape)))


def test_pad_dtypes_and_torch_form():
    parity(lambda T, x: T.nn.functional.pad(x, (1, 1), value=2.5), rand(3, dtype=np.int64))
    parity(lambda T, x: T.nn.functional.pad(x, (1, 1), value=1), rand(2, 2, dtype=np.bool_))
    parity(lambda T, x: T.nn.functional.pad(x, [1, 1], "reflect"), rand(1, 2, dtype=np.int64))
    parity(lambda T, x: T.constant_pad_nd(x, (1, 2, 0, 1), 0.5), rand(2, 3))
    x = jtorch.randn(2, 3, requires_grad=True)
    assert type(JF.pad(x, (1, 1)).grad_fn).__name__ == "ConstantPadNdBackward0"
    assert type(JF.pad(x, (1, 1), "reflect").grad_fn).__name__ == "ReflectionPad1DBackward0"


PAD_ERRORS = [((2, 3), (1,), "constant", None), ((2, 3), (1, 1, 1, 1, 1, 1), "constant", None),
              ((2, 3), (-2, -2), "constant", None), ((2, 3), (3, 1), "reflect", None),
              ((3,), (1, 1), "reflect", None), ((2, 3, 4), (1, 1, 1, 1, 1, 1), "reflect", None),
              ((1, 2, 3, 4), (1, 1, 5, 1), "reflect", None), ((2, 0), (1, 1), "replicate", None),
              ((2, 3), (4, 1), "circular", None), ((2, 3), (1, 1), "foo", None),
              ((2, 3), (1, 1), "reflect", 2.0), ((1, 4), (-3, -2), "reflect", None),
              ((1, 4), (-3, -1), "replicate", None), ((1, 4), (-3, -2), "circular", None),
              ((1, 3, 3, 4), (-1, -3, -2, -1), "reflect", None),
              ((1, 3, 3, 4), (-1, -3, -2, -1), "replicate", None),
              ((2, 3), (1, 1, 1, 1), "replicate", None),
              ((2, 0, 3, 3), (1, 1, 1, 1), "reflect", None),
              ((), (1, 1), "constant", None), ((2, 3), (1.5, 1), "constant", None)]


@pytest.mark.parametrize("shape,pad,mode,value", PAD_ERRORS, ids=str)
def test_pad_errors(shape, pad, mode, value):
    raises_like(lambda: F.pad(torch.randn(shape), pad, mode, value),
                lambda: JF.pad(jtorch.randn(shape), pad, mode, value))


PAD_MODULES = [(lambda T: T.nn.ZeroPad1d(2), (2, 3)), (lambda T: T.nn.ZeroPad2d((1, 0, 2, -1)),
                                                      (1, 2, 3, 3)),
               (lambda T: T.nn.ZeroPad3d(1), (1, 2, 2, 2)),
               (lambda T: T.nn.ConstantPad1d((1, 2), 3.5), (2, 3)),
               (lambda T: T.nn.ConstantPad2d(1, -1.0), (2, 3, 3)),
               (lambda T: T.nn.ConstantPad3d((1, 0, 0, 1, 1, 1), 2.0), (1, 1, 2, 2, 2)),
               (lambda T: T.nn.ReflectionPad1d(2), (2, 3, 4)),
               (lambda T: T.nn.ReflectionPad2d((1, 2, 0, 1)), (1, 2, 3, 3)),
               (lambda T: T.nn.ReflectionPad3d(1), (1, 1, 2, 3, 3)),
               (lambda T: T.nn.ReplicationPad1d((3, 1)), (2, 3)),
               (lambda T: T.nn.ReplicationPad2d(2), (2, 2, 3)),
               (lambda T: T.nn.ReplicationPad3d((1, 1, 2, 0, 0, 1)), (1, 1, 2, 2, 2)),
               (lambda T: T.nn.CircularPad1d(2), (2, 3, 4)),
               (lambda T: T.nn.CircularPad2d((1, 0, 2, 1)), (2, 3, 3)),
               (lambda T: T.nn.CircularPad3d(1), (1, 1, 2, 2, 2))]


@pytest.mark.parametrize("make,shape", PAD_MODULES, ids=lambda v: repr(v(torch)) if callable(v)
                         else str(v))
def test_pad_modules(make, shape):
    assert repr(make(jtorch)) == repr(make(torch))
    module_parity(make, rand(*shape))


def test_circular_module_dim_error():
    raises_like(lambda: torch.nn.CircularPad2d(1)(torch.randn(3, 3)),
                lambda: jtorch.nn.CircularPad2d(1)(jtorch.randn(3, 3)))


# ------------------------------------------------------------------ nn.modules.utils, _assert
def test_module_utils_and_assert_as_pytorch():
    import torch.nn.modules.utils as tu

    import jtorch.nn.modules.utils as ju

    for name in ("_single", "_pair", "_triple", "_quadruple"):
        for arg in (3, (1, 2), [4, 5, 6], range(2)):
            assert getattr(ju, name)(arg) == getattr(tu, name)(arg), (name, arg)
        assert getattr(ju, name).__name__ == getattr(tu, name).__name__
    assert ju._reverse_repeat_tuple((1, 2, 3), 2) == tu._reverse_repeat_tuple((1, 2, 3), 2)
    assert ju._list_with_default([None, 4], [8, 9, 10]) == \
        tu._list_with_default([None, 4], [8, 9, 10])
    assert ju._list_with_default(5, [1, 2]) == tu._list_with_default(5, [1, 2])
    raises_like(lambda: tu._list_with_default([1, 2], [3, 4]),
                lambda: ju._list_with_default([1, 2], [3, 4]))
    assert ju.__all__ == tu.__all__
    for T, mod in ((torch, tu), (jtorch, ju)):
        model = T.nn.Sequential(T.nn.Linear(2, 3), T.nn.BatchNorm1d(3))
        sd = T.nn.DataParallel(model).state_dict() if T is torch else \
            {f"module.{k}": v for k, v in model.state_dict().items()}
        if T is jtorch:
            sd = type(model.state_dict())(sd)
            sd._metadata = {"module": {}, "module.0": {"version": 1}, "other": {}}
        mod.consume_prefix_in_state_dict_if_present(sd, "module.")
        assert list(sd) == list(model.state_dict())
        model.load_state_dict(sd)
        if T is jtorch:
            assert sd._metadata == {"": {}, "0": {"version": 1}, "other": {}}
    for T in (torch, jtorch):
        T._assert(True, "never")
        T._assert(T.tensor(1.0) > 0, "never")
        with pytest.raises(AssertionError, match="^boxes are not right$"):
            T._assert(False, "boxes are not right")
