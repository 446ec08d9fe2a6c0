"""Activations: functional parity (values, dtypes, gradients AT the kinks, jit), in-place forms,
modules (repr, PReLU parameters), errors."""

# the loop lambdas below are called within their iteration
# ruff: noqa: B023

import numpy as np
import pytest
import torch
from helpers import NonContig, parity, raises_like, rand
from nn_helpers import module_parity

import jtorch

# values around and AT every kink of the piecewise activations
KINKS = np.array([-6.0, -3.5, -3.0, -2.0, -1.0, -0.5, -0.25, 0.0, 0.25, 0.5, 1.0, 2.0, 3.0,
                  3.5, 6.0, 7.0, 25.0, -25.0])


def _kinks(dt):
    return np.tile(KINKS, (2, 1)).astype(dt)


# (name, extra args/kwargs); each is run on random inputs and on the kink grid
FUNCS = [
    ("relu", (), {}), ("relu6", (), {}), ("elu", (), {}), ("elu", (2.0,), {}),
    ("selu", (), {}), ("celu", (), {}), ("celu", (0.5,), {}), ("leaky_relu", (), {}),
    ("leaky_relu", (0.2,), {}), ("hardtanh", (), {}), ("hardtanh", (-3.0, 2.0), {}),
    ("hardswish", (), {}), ("hardsigmoid", (), {}), ("silu", (), {}), ("mish", (), {}),
    ("gelu", (), {}), ("gelu", (), {"approximate": "tanh"}), ("logsigmoid", (), {}),
    ("softplus", (), {}), ("softplus", (2.0, 6.0), {}), ("softplus", (), {"beta": 0.5}),
    ("softsign", (), {}), ("softshrink", (), {}), ("softshrink", (2.0,), {}),
    ("hardshrink", (), {}), ("hardshrink", (1.0,), {}), ("tanhshrink", (), {}),
    ("tanh", (), {}), ("sigmoid", (), {}), ("threshold", (0.5, -2.0), {}),
    ("threshold", (-3.0, 7.0), {}), ("rrelu", (), {}), ("rrelu", (0.1, 0.3), {}),
    ("glu", (), {}), ("glu", (0,), {}), ("softmax", (1,), {}), ("log_softmax", (-1,), {}),
    ("softmin", (0,), {}),
]


@pytest.mark.parametrize("name,args,kw", FUNCS, ids=lambda v: str(v))
def test_functional_parity(name, args, kw):
    f = lambda T, x: getattr(T.nn.functional, name)(x, *args, **kw)  # noqa: E731
    grid = np.concatenate([_kinks(np.float64), rand(2, 18, dtype=np.float64, low=-4, high=4)])
    parity(f, grid)   # float64: the kinks and random values
    parity(f, NonContig(np.concatenate([_kinks(np.float32).T,
                                        rand(18, 2, low=-4, high=4)], 1)))


@pytest.mark.parametrize("name", ["selu", "celu", "threshold", "rrelu", "prelu", "hardshrink",
                                  "relu"])
def test_torch_namespace_forms(name):
    extra = {"threshold": (0.5, 1.0), "prelu": (np.array([0.3], np.float32),)}.get(name, ())
    parity(lambda T, x, *a: getattr(T, name)(x, *a), rand(3, 4), *extra)


def test_tensor_methods():
    parity(lambda T, x: x.hardshrink(0.3), rand(3, 4))
    parity(lambda T, x, w: x.prelu(w), rand(2, 3, 4), rand(3))


@pytest.mark.parametrize("name,args", [("relu", ()), ("relu6", ()), ("elu", (1.5,)),
                                       ("selu", ()), ("celu", (0.7,)), ("leaky_relu", (0.1,)),
                                       ("hardtanh", (-0.5, 0.5)), ("hardswish", ()),
                                       ("hardsigmoid", ()), ("silu", ()), ("mish", ()),
                                       ("threshold", (0.0, 3.0)), ("rrelu", ())])
def test_inplace_forms(name, args):
    def kwarg(T, x):
        y = x * 1
        out = getattr(T.nn.functional, name)(y, *args, inplace=True)
        assert out is y
        return y

    def underscore(T, x):
        y = x * 1
        out = getattr(T.nn.functional, name + "_")(y, *args) if hasattr(
            T.nn.functional, name + "_") else getattr(T.nn.functional, name)(y, *args,
                                                                            inplace=True)
        assert out is y
        return y

    parity(kwarg, _kinks(np.float32))
    parity(underscore, rand(3, 4))
    # PyTorch's in-place node names (EluBackward1, LeakyReluBackward1, ...)
    t, j = torch.randn(3, requires_grad=True) * 1, jtorch.randn(3, requires_grad=True) * 1
    getattr(torch.nn.functional, name)(t, *args, inplace=True)
    getattr(jtorch.nn.functional, name)(j, *args, inplace=True)
    assert type(j.grad_fn).__name__ == t.grad_fn.name()
    # the inplace flag given positionally (rrelu's comes after ``training``)
    if name != "rrelu":
        t, j = torch.tensor(KINKS), jtorch.tensor(KINKS)
        getattr(torch.nn.functional, name)(t, *args, True)
        getattr(jtorch.nn.functional, name)(j, *args, True)
        np.testing.assert_allclose(j.numpy(), t.numpy(), rtol=1e-6)


def test_inplace_on_view_writes_base():
    for lib in (torch, jtorch):
        base = lib.tensor([[-1.0, 2.0], [-3.0, 4.0]])
        lib.nn.functional.leaky_relu(base[:, 0], 0.5, inplace=True)
        np.testing.assert_allclose(base.numpy(), [[-0.5, 2.0], [-1.5, 4.0]])


def test_integer_inputs():
    x = rand(3, 4, dtype=np.int64, low=-5, high=5)
    for name, args in (("relu", ()), ("relu6", ()), ("hardtanh", (-1.5, 2.5)),
                       ("threshold", (1.5, 7.0)), ("tanhshrink", ()), ("softsign", ())):
        parity(lambda T, a: getattr(T.nn.functional, name)(a, *args), x)
    for name in ("elu", "selu", "celu", "leaky_relu", "gelu", "logsigmoid", "hardshrink",
                 "softplus", "softshrink", "hardsigmoid", "hardswish", "silu", "mish", "rrelu"):
        raises_like(lambda: getattr(torch.nn.functional, name)(torch.tensor(x)),
                    lambda: getattr(jtorch.nn.functional, name)(jtorch.tensor(x)))
    raises_like(lambda: torch.nn.functional.relu6(torch.tensor([True])),
                lambda: jtorch.nn.functional.relu6(jtorch.tensor([True])))


def test_errors():
    F, JF = torch.nn.functional, jtorch.nn.functional
    for args, kw in (((-1.0,), {}),):
        raises_like(lambda: F.softshrink(torch.randn(3), *args, **kw),
                    lambda: JF.softshrink(jtorch.randn(3), *args, **kw))
    raises_like(lambda: F.softshrink(torch.randn(3).double(), -1.5),
                lambda: JF.softshrink(jtorch.randn(3).double(), -1.5))
    raises_like(lambda: F.gelu(torch.randn(3), approximate="x"),
                lambda: JF.gelu(jtorch.randn(3), approximate="x"))
    raises_like(lambda: F.glu(torch.tensor(1.0)), lambda: JF.glu(jtorch.tensor(1.0)))
    raises_like(lambda: F.glu(torch.randn(4, 3), 1), lambda: JF.glu(jtorch.randn(4, 3), 1))
    raises_like(lambda: F.glu(torch.randn(4, 3), 2), lambda: JF.glu(jtorch.randn(4, 3), 2))
    raises_like(lambda: F.hardtanh(torch.randn(3), 2.0, 1.0),
                lambda: JF.hardtanh(jtorch.randn(3), 2.0, 1.0))
    raises_like(lambda: F.rrelu(torch.randn(3), 0.5, 0.2),
                lambda: JF.rrelu(jtorch.randn(3), 0.5, 0.2))
    r, j = torch.randn, jtorch.randn
    for a, w in (((2, 3), (2,)), ((2, 3), (3, 1)), ((), (3,)), ((3,), (3,))):
        raises_like(lambda: F.prelu(r(a), r(w)), lambda: JF.prelu(j(a), j(w)))
    raises_like(lambda: F.prelu(r(2, 3).double(), r(1)),
                lambda: JF.prelu(j(2, 3).double(), j(1)))


@pytest.mark.parametrize("shape,wshape", [((2, 3, 4), (3,)), ((2, 3), (1,)), ((5,), (1,)),
                                          ((2, 3, 2, 2), ()), ((2, 3, 2, 2), (3,))])
def test_prelu_functional(shape, wshape):
    for dt in (np.float32, np.float64):
        x = rand(*shape, dtype=dt)
        x.flat[0] = 0.0
        parity(lambda T, a, w: T.nn.functional.prelu(a, w), x,
               rand(*wshape, dtype=dt, low=0.1, high=0.5))


def test_rrelu_training_statistics_and_mask():
    x = jtorch.full((20000,), -1.0, requires_grad=True)
    y = jtorch.nn.functional.rrelu(x, 0.1, 0.3, training=True)
    slopes = -y.detach().numpy()
    assert 0.1 <= slopes.min() and slopes.max() <= 0.3
    np.testing.assert_allclose(slopes.mean(), 0.2, atol=0.005)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), slopes, rtol=1e-6)   # same noise in backward
    pos = jtorch.nn.functional.rrelu(jtorch.ones(5), training=True)
    np.testing.assert_array_equal(pos.numpy(), np.ones(5))
    g = jtorch.Generator().manual_seed(1)
    a = jtorch.rrelu(-jtorch.ones(5), training=True, generator=g)
    g.manual_seed(1)
    b = jtorch.rrelu(-jtorch.ones(5), training=True, generator=g)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    m = jtorch.nn.RReLU()
    m.eval()
    np.testing.assert_allclose(m(-jtorch.ones(3)).numpy(), -np.full(3, (1 / 8 + 1 / 3) / 2))


MODULES = [
    lambda T: T.nn.ReLU(), lambda T: T.nn.ReLU(inplace=True), lambda T: T.nn.ReLU6(),
    lambda T: T.nn.ReLU6(True), lambda T: T.nn.LeakyReLU(), lambda T: T.nn.LeakyReLU(0.2, True),
    lambda T: T.nn.PReLU(), lambda T: T.nn.PReLU(4, 0.1), lambda T: T.nn.RReLU(),
    lambda T: T.nn.RReLU(0.1, 0.2, True), lambda T: T.nn.ELU(), lambda T: T.nn.ELU(0.5, True),
    lambda T: T.nn.SELU(), lambda T: T.nn.SELU(True), lambda T: T.nn.CELU(2.0),
    lambda T: T.nn.GELU(), lambda T: T.nn.GELU("tanh"), lambda T: T.nn.SiLU(),
    lambda T: T.nn.SiLU(True), lambda T: T.nn.Mish(), lambda T: T.nn.Softplus(),
    lambda T: T.nn.Softplus(2, 10), lambda T: T.nn.Softsign(), lambda T: T.nn.Softshrink(),
    lambda T: T.nn.Softshrink(1.5), lambda T: T.nn.Hardshrink(0.3), lambda T: T.nn.Tanhshrink(),
    lambda T: T.nn.Tanh(), lambda T: T.nn.Sigmoid(), lambda T: T.nn.Hardtanh(),
    lambda T: T.nn.Hardtanh(-2, 3, True), lambda T: T.nn.Hardswish(),
    lambda T: T.nn.Hardswish(True), lambda T: T.nn.Hardsigmoid(), lambda T: T.nn.LogSigmoid(),
    lambda T: T.nn.Softmax(), lambda T: T.nn.Softmax(dim=1), lambda T: T.nn.Softmax2d(),
    lambda T: T.nn.LogSoftmax(0), lambda T: T.nn.Softmin(-1), lambda T: T.nn.Threshold(0.1, 20),
    lambda T: T.nn.Threshold(0.1, 20, True), lambda T: T.nn.GLU(), lambda T: T.nn.GLU(1),
]


@pytest.mark.parametrize("make", MODULES, ids=lambda m: repr(m(torch)))
def test_modules(make):
    assert repr(make(jtorch)) == repr(make(torch))
    name = type(make(torch)).__name__
    x = rand(2, 4, 2, 2, low=-4, high=4)
    inplace = getattr(make(torch), "inplace", False)
    if name == "Softmax2d" or make(torch).__dict__.get("dim", 0) is None:
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            module_parity(make, x.astype(np.float64), double=True)
        return
    if inplace:
        # in-place on a leaf that requires grad is an error in both: compare values only
        module_parity(make, x, grad=False, train=name != "RReLU")
        return
    if name != "RReLU":   # RReLU trains with random slopes: see the statistics test
        module_parity(make, x)
    module_parity(make, x.astype(np.float64), double=True, train=False)


def test_softmax_legacy_dim_warns():
    m = jtorch.nn.Softmax()
    for shape, dim in (((2, 3, 4), 0),):
        x = jtorch.randn(*shape)
        with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
            y = m(x)
        np.testing.assert_allclose(y.numpy(), jtorch.softmax(x, dim).numpy())


def test_softmax2d_error():
    raises_like(lambda: torch.nn.Softmax2d()(torch.randn(2, 3)),
                lambda: jtorch.nn.Softmax2d()(jtorch.randn(2, 3)))


def test_prelu_init_and_grad():
    m = jtorch.nn.PReLU(4, init=0.3)
    assert tuple(m.weight.shape) == (4,) and np.allclose(m.weight.detach().numpy(), 0.3)
    assert [n for n, _ in m.named_parameters()] == ["weight"]
    x = rand(3, 4, 5)
    x.flat[:3] = 0.0
    module_parity(lambda T: T.nn.PReLU(4, 0.2), x)
    module_parity(lambda T: T.nn.PReLU(), x.astype(np.float64), double=True)
    m = jtorch.nn.PReLU(dtype=jtorch.float64)
    assert m.weight.dtype == jtorch.float64


def test_gumbel_softmax():
    p = np.array([0.1, 0.2, 0.7])
    logits = jtorch.tensor(np.tile(np.log(p), (4000, 1)), requires_grad=True)
    y = jtorch.nn.functional.gumbel_softmax(logits, tau=0.5, hard=True)
    a = y.detach().numpy()
    np.testing.assert_array_equal(a.sum(1), np.ones(4000))
    assert set(np.unique(a)) == {0.0, 1.0}
    np.testing.assert_allclose(a.mean(0), p, atol=0.03)
    soft = jtorch.nn.functional.gumbel_softmax(logits, dim=0)
    np.testing.assert_allclose(soft.detach().numpy().sum(0), np.ones(3), rtol=1e-5)
    soft.sum().backward()   # straight-through and soft forms are differentiable
    assert logits.grad is not None
