"""Randomness: generators, seeding and state, every random op's shapes/dtypes/errors against
PyTorch, reproducibility, statistics with fixed seeds, in-place initialisers on views, and
random ops under jax.jit (traced and concrete keys).

The numbers themselves differ from PyTorch's by design (jtorch draws from JAX's threefry)."""

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import torch
from helpers import raises_like

import jtorch

# Shape, dtype, requires_grad and grad_fn name must match PyTorch's for every overload.
SIGNATURES = [
    "T.rand(2, 3)", "T.rand((2, 3), dtype=T.float64)", "T.rand(2, dtype=T.complex64)",
    "T.rand(2, dtype=T.float16)", "T.rand(2, dtype=T.bfloat16)", "T.rand(size=(2, 3))",
    "T.rand(2, generator=T.Generator())", "T.rand(2, requires_grad=True)", "T.rand(0)",
    "T.rand(())", "T.rand([2, 1])", "T.rand(T.Size([3]))",
    "T.randn(2, 3)", "T.randn(2, dtype=T.complex128)", "T.randn(4, dtype=T.float64)",
    "T.randn(size=(1, 2), requires_grad=True)",
    "T.randint(5, (3,))", "T.randint(2, 5, (3,))", "T.randint(5, (3,), dtype=T.float32)",
    "T.randint(high=5, size=(3,))", "T.randint(low=2, high=5, size=(3,))",
    "T.randint(2, high=5, size=(3,))", "T.randint(2, 5, size=(3,))", "T.randint(0, 5, (0,))",
    "T.randint(2, (2,), dtype=T.bool)", "T.randint(-3, 3, (2, 2), dtype=T.int8)",
    "T.randint(255, (4,), dtype=T.uint8)",
    "T.randint(5, (2,), dtype=T.float32, requires_grad=True)",
    "T.randperm(5)", "T.randperm(5, dtype=T.float32)", "T.randperm(0)", "T.randperm(1)",
    "T.randperm(6, dtype=T.int32)",
    "T.normal(T.zeros(2, 3), T.ones(2, 3))", "T.normal(T.zeros(2, 3), T.ones(3))",
    "T.normal(0., T.ones(2, 3))", "T.normal(T.zeros(2, 3))", "T.normal(T.zeros(2, 3), 2.)",
    "T.normal(0., 1., (2, 3))", "T.normal(0., 1., size=(2, 3))", "T.normal(0, 1, (2, 3))",
    "T.normal(0., 1., (2, 3), dtype=T.float64)", "T.normal(T.zeros(2, 3, dtype=T.float64), 1.)",
    "T.normal(T.zeros(2, 3, dtype=T.float64), T.ones(3))",
    "T.normal(T.zeros(3), T.ones(3, dtype=T.float64))",
    "T.normal(T.zeros(3, dtype=T.float16), T.ones(3))",
    "T.normal(T.tensor(0.), T.ones(3, dtype=T.float64))",
    "T.normal(0., T.ones(3, dtype=T.float64))", "T.normal(T.zeros(3), T.ones(3, dtype=T.long))",
    "T.normal(T.zeros(3, requires_grad=True), 1.)",
    "T.normal(T.zeros(3, requires_grad=True), T.ones(3, requires_grad=True))",
    "T.normal(0., T.ones(3, requires_grad=True))", "T.normal(0., 1., (2,), requires_grad=True)",
    "T.normal(T.zeros(2, dtype=T.complex64), 1.)",
    "T.bernoulli(T.full((2, 3), 0.5))", "T.bernoulli(T.full((2, 3), 0.5, dtype=T.float64))",
    "T.bernoulli(T.ones(2, 3), 0.3)", "T.bernoulli(T.ones(2, 3), p=0.3)",
    "T.bernoulli(T.ones(2, dtype=T.long), 0.5)",
    "T.bernoulli(T.full((2,), 0.5, requires_grad=True))",
    "T.full((2,), 0.5).bernoulli()", "T.ones(3).bernoulli(0.2)",
    "T.multinomial(T.ones(5), 3)", "T.multinomial(T.ones(2, 5), 3)", "T.ones(2, 5).multinomial(3)",
    "T.multinomial(T.ones(5), 6, replacement=True)", "T.multinomial(T.ones(2, 5), 7, True)",
    "T.multinomial(T.ones(5, dtype=T.float64), 3)",
    "T.multinomial(T.ones(5, requires_grad=True), 3)",
    "T.poisson(T.ones(3))",
    "T.poisson(T.ones(3, requires_grad=True))",
    "T.rand_like(T.ones(2, 3))", "T.rand_like(T.ones(2, dtype=T.long), dtype=T.float64)",
    "T.rand_like(T.ones(2), generator=T.Generator())",
    "T.randn_like(T.ones(2, 3), requires_grad=True)",
    "T.randn_like(T.ones(2, dtype=T.complex64))",
    "T.randint_like(T.ones(2, dtype=T.int32), 5)", "T.randint_like(T.ones(2), 5)",
    "T.randint_like(T.ones(2), 3, 5)", "T.randint_like(T.ones(2, dtype=T.bool), 2)",
    "T.ones(3).uniform_()", "T.ones(3).uniform_(1, 1)", "T.ones(3).uniform_(-1, 1)",
    "T.ones(3).uniform_(**{'from': -1, 'to': 1})", "T.ones(3, dtype=T.complex64).uniform_()",
    "T.ones(3, dtype=T.float16).uniform_()", "T.ones(3).normal_(2, 3)",
    "T.ones(3).normal_(mean=2, std=3)", "T.ones(3, dtype=T.complex64).normal_()",
    "T.ones(3).exponential_(2)", "T.ones(3).geometric_(0.3)",
    "T.ones(3, dtype=T.long).geometric_(0.5)", "T.ones(3).cauchy_()", "T.ones(3).log_normal_()",
    "T.ones(3).random_(5)", "T.ones(3).random_()", "T.ones(3).random_(2, 9)",
    "T.ones(3).random_(to=9)", "T.ones(3, dtype=T.bool).random_()",
    "T.ones(3, dtype=T.long).random_()", "T.ones(3, dtype=T.uint8).random_()",
    "T.ones(3, dtype=T.long).bernoulli_(0.5)", "T.ones(3, dtype=T.bool).bernoulli_(0.5)",
    "T.ones(3).bernoulli_(T.full((3,), 0.5))", "T.ones(2, 3).bernoulli_(T.full((3,), 0.5))",
    "(T.ones(3, requires_grad=True) * 2).uniform_()",
    "(T.ones(3, requires_grad=True) * 2).normal_()",
    "(T.ones(3, requires_grad=True) * 2).bernoulli_()",
    "(T.ones(3, requires_grad=True) * 2).bernoulli_(T.full((3,), 0.5))",
    "(T.ones(3, requires_grad=True) * 2).exponential_()",
    "(T.ones(3, requires_grad=True) * 2).cauchy_()",
    "(T.ones(3, requires_grad=True) * 2).log_normal_()",
    "(T.ones(3, requires_grad=True) * 2).geometric_(0.5)",
    "(T.ones(3, requires_grad=True) * 2).random_(0, 5)",
]


def _sig(r):
    return (str(r.dtype), tuple(r.shape), r.requires_grad,
            None if r.grad_fn is None else type(r.grad_fn).__name__)


@pytest.mark.parametrize("expr", SIGNATURES)
def test_signature_parity(expr):
    t = eval(expr.replace("T.", "torch."))
    j = eval(expr.replace("T.", "jtorch."))
    assert _sig(j) == _sig(t)


ERRORS = [
    "T.rand(2, dtype=T.int64)", "T.rand(2, dtype=T.bool)", "T.randn(2, dtype=T.int32)",
    "T.rand(-1)", "T.randn(2, -1)", "T.rand(2.5)", "T.rand(2, dtype=T.int64, requires_grad=True)",
    "T.randint(5, 3)", "T.randint(5, 2, (3,))", "T.randint(5, (2,), dtype=T.bool)",
    "T.randint(300, (2,), dtype=T.uint8)", "T.randint(-1, 5, (2,), dtype=T.uint8)",
    "T.randint(200, (2,), dtype=T.int8)", "T.randint(5.5, (3,))", "T.randint(3, (-1,))",
    "T.randint(5, (2,), requires_grad=True)", "T.randperm(-1)",
    "T.normal(T.zeros(2, 3), T.ones(4))", "T.normal(T.zeros(6), T.ones(2, 3))",
    "T.normal(T.zeros(2, 3), -1.)", "T.normal(T.zeros(2, dtype=T.long), 1.)",
    "T.normal(0., -1., (2,))", "T.normal(2, 3, size=(2,), dtype=T.int64)",
    "T.bernoulli(T.ones(2, dtype=T.long))", "T.ones(3).bernoulli_(1.5)",
    "T.ones(3).bernoulli_(-0.1)", "T.ones(3).bernoulli_(T.full((2,), 0.5))",
    "T.ones(3, dtype=T.complex64).bernoulli_(0.5)",
    "T.multinomial(T.ones(5), 6)", "T.multinomial(T.ones(5), 0)", "T.multinomial(T.ones(5), -1)",
    "T.multinomial(T.ones(2, 2, 5), 1)", "T.multinomial(T.tensor([1, 2]), 1)",
    "T.multinomial(T.ones(0), 1)", "T.poisson(T.ones(3, dtype=T.long))",
    "T.rand_like(T.ones(2, dtype=T.long))", "T.randn_like(T.ones(2, dtype=T.long))",
    "T.randint_like(T.ones(2), 5, 3)", "T.randint_like(T.ones(2, dtype=T.bool), 5)",
    "T.ones(3).uniform_(2, 1)", "T.ones(3, dtype=T.long).uniform_()",
    "T.ones(3).normal_(0, -1)", "T.ones(3, dtype=T.long).normal_()",
    "T.ones(3).exponential_(0)", "T.ones(3).exponential_(-1)",
    "T.ones(3, dtype=T.long).exponential_()", "T.ones(3, dtype=T.complex64).exponential_()",
    "T.ones(3).geometric_(0)", "T.ones(3).geometric_(1)", "T.ones(3).geometric_(1.5)",
    "T.ones(3).geometric_()", "T.ones(3, dtype=T.bool).geometric_(0.5)",
    "T.ones(3).cauchy_(0, -1)", "T.ones(3, dtype=T.long).cauchy_()",
    "T.ones(3, dtype=T.complex64).cauchy_()", "T.ones(3).log_normal_(0, -1)",
    "T.ones(3).log_normal_(0, 0)", "T.ones(3, dtype=T.long).log_normal_()",
    "T.ones(3).random_(5, 2)", "T.ones(3, dtype=T.int8).random_(300)",
    "T.ones(3, dtype=T.uint8).random_(-1, 5)", "T.ones(3, dtype=T.complex64).random_()",
    "T.ones(3, requires_grad=True).uniform_()", "T.ones(3, requires_grad=True)[1:].normal_()",
    "T.ones(3, requires_grad=True).bernoulli_()", "T.ones(3, requires_grad=True).random_(3)",
    "T.manual_seed(2**64)", "T.manual_seed(-2**63 - 1)", "T.set_rng_state(T.zeros(3))",
    "T.Generator().set_state([1, 2])", "T.set_rng_state([1])",
]


@pytest.mark.parametrize("expr", ERRORS)
def test_random_errors(expr):
    raises_like(lambda: eval(expr.replace("T.", "torch.")),
                lambda: eval(expr.replace("T.", "jtorch.")))


def test_state_size_error_is_jtorch_format():
    with pytest.raises(RuntimeError, match="Expected a jtorch generator state of size 16"):
        jtorch.set_rng_state(jtorch.zeros(3, dtype=jtorch.uint8))
    assert jtorch.get_rng_state().dtype is jtorch.uint8
    assert tuple(jtorch.get_rng_state().shape) == (16,)


# every random op: a callable of (generator) drawing from it
DRAWS = {
    "rand": lambda g: jtorch.rand(50, generator=g),
    "randn": lambda g: jtorch.randn(50, generator=g),
    "randint": lambda g: jtorch.randint(0, 1000, (50,), generator=g),
    "randperm": lambda g: jtorch.randperm(50, generator=g),
    "normal_tt": lambda g: jtorch.normal(jtorch.zeros(50), jtorch.ones(50), generator=g),
    "normal_tf": lambda g: jtorch.normal(jtorch.zeros(50), 1.0, generator=g),
    "normal_ft": lambda g: jtorch.normal(0.0, jtorch.ones(50), generator=g),
    "normal_ff": lambda g: jtorch.normal(0.0, 1.0, (50,), generator=g),
    "bernoulli": lambda g: jtorch.bernoulli(jtorch.full((50,), 0.5), generator=g),
    "bernoulli_p": lambda g: jtorch.bernoulli(jtorch.ones(50), 0.5, generator=g),
    "multinomial": lambda g: jtorch.multinomial(jtorch.ones(50), 10, generator=g),
    "multinomial_r": lambda g: jtorch.multinomial(jtorch.ones(50), 10, True, generator=g),
    "poisson": lambda g: jtorch.poisson(jtorch.full((3,), 5.0), generator=g),
    "rand_like": lambda g: jtorch.rand_like(jtorch.ones(50), generator=g),
    "randn_like": lambda g: jtorch.randn_like(jtorch.ones(50), generator=g),
    "randint_like": lambda g: jtorch.randint_like(jtorch.ones(50), 1000, generator=g),
    "uniform_": lambda g: jtorch.empty(50).uniform_(generator=g),
    "normal_": lambda g: jtorch.empty(50).normal_(generator=g),
    "bernoulli_": lambda g: jtorch.empty(50).bernoulli_(generator=g),
    "bernoulli_t": lambda g: jtorch.empty(50).bernoulli_(jtorch.full((50,), .5), generator=g),
    "exponential_": lambda g: jtorch.empty(50).exponential_(generator=g),
    "geometric_": lambda g: jtorch.empty(50).geometric_(0.3, generator=g),
    "cauchy_": lambda g: jtorch.empty(50).cauchy_(generator=g),
    "log_normal_": lambda g: jtorch.empty(50).log_normal_(generator=g),
    "random_": lambda g: jtorch.empty(50).random_(0, 1000, generator=g),
}


@pytest.mark.parametrize("name", sorted(DRAWS))
def test_reproducible_and_advancing(name):
    draw = DRAWS[name]
    jtorch.manual_seed(123)
    a, b = draw(None).tolist(), draw(None).tolist()
    assert a != b, "two calls must give different numbers"
    jtorch.manual_seed(123)
    assert draw(None).tolist() == a, "same seed, same numbers"
    # generator=: its own stream, independent of (and not advancing) the default generator
    g1, g2 = jtorch.Generator().manual_seed(7), jtorch.Generator().manual_seed(7)
    state = jtorch.get_rng_state()
    x1 = draw(g1).tolist()
    assert jtorch.get_rng_state().tolist() == state.tolist()
    assert draw(g2).tolist() == x1
    assert draw(g1).tolist() != x1


def test_seeding_api():
    g = jtorch.manual_seed(5)
    assert g is jtorch.default_generator and jtorch.initial_seed() == 5
    assert jtorch.random.default_generator is jtorch.default_generator
    assert jtorch.manual_seed(-1).initial_seed() == torch.manual_seed(-1).initial_seed()
    assert jtorch.manual_seed(2**64 - 1).initial_seed() == 2**64 - 1
    assert jtorch.manual_seed(1.5).initial_seed() == torch.manual_seed(1.5).initial_seed()
    assert jtorch.manual_seed("3").initial_seed() == 3
    assert jtorch.Generator().initial_seed() == torch.Generator().initial_seed()
    assert jtorch.Generator().device == jtorch.device("cpu")
    assert jtorch.Generator("cpu:1").device == jtorch.device("cpu")
    s = jtorch.seed()
    assert isinstance(s, int) and jtorch.initial_seed() == s
    g = jtorch.Generator()
    s2 = g.seed()
    assert g.initial_seed() == s2
    assert g.manual_seed(3) is g
    # different seeds, different streams; 0 and 2**32 are different seeds
    outs = {tuple(jtorch.rand(4, generator=jtorch.Generator().manual_seed(k)).tolist())
            for k in (0, 1, 2**32, -1)}
    assert len(outs) == 4
    if not jax.devices()[0].platform == "gpu":
        raises_like(lambda: torch.Generator(device="cuda"),
                    lambda: jtorch.Generator(device="cuda"))


def test_state_round_trip_and_module():
    jtorch.manual_seed(11)
    jtorch.rand(3)
    state = jtorch.get_rng_state()
    a = jtorch.randn(5)
    jtorch.set_rng_state(state)
    assert jtorch.randn(5).tolist() == a.tolist()
    assert jtorch.initial_seed() == 11
    g = jtorch.Generator().manual_seed(99)
    st = g.get_state()
    st_copy = st.clone()
    x = jtorch.rand(4, generator=g)
    assert g.set_state(st_copy) is g
    assert jtorch.rand(4, generator=g).tolist() == x.tolist()
    assert g.initial_seed() == 99
    # a state moves between generators
    h = jtorch.Generator().set_state(st_copy)
    assert jtorch.rand(4, generator=h).tolist() == x.tolist() and h.initial_seed() == 99
    c = g.clone_state()
    assert jtorch.rand(2, generator=c).tolist() == jtorch.rand(2, generator=g).tolist()
    # the jtorch.random module mirrors torch.random
    import jtorch.random as jr

    assert jr is jtorch.random
    for name in ("manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state",
                 "fork_rng", "Generator", "default_generator"):
        assert hasattr(torch.random, name) and hasattr(jr, name), name
    jr.manual_seed(4)
    s = jr.get_rng_state()
    u = jtorch.rand(2)
    jr.set_rng_state(s)
    assert jtorch.rand(2).tolist() == u.tolist()


def test_fork_rng():
    jtorch.manual_seed(0)
    before = jtorch.get_rng_state().tolist()
    with jtorch.random.fork_rng():
        jtorch.rand(10)
        jtorch.manual_seed(42)
        jtorch.randn(3)
    assert jtorch.get_rng_state().tolist() == before
    with jtorch.random.fork_rng(devices=[], enabled=False):
        jtorch.rand(1)
    assert jtorch.get_rng_state().tolist() != before
    state = jtorch.get_rng_state().tolist()
    with pytest.raises(ValueError), jtorch.random.fork_rng(devices=[0]):
        jtorch.rand(2)
        raise ValueError
    assert jtorch.get_rng_state().tolist() == state


def _np(t):
    return np.asarray(t.numpy(), dtype=np.float64)


def test_statistics():
    jtorch.manual_seed(2024)
    n = 100_000
    x = _np(jtorch.randn(n))
    assert abs(x.mean()) < 0.02 and abs(x.std() - 1) < 0.02
    x = _np(jtorch.normal(3.0, 2.0, (n,), dtype=jtorch.float64))
    assert abs(x.mean() - 3) < 0.05 and abs(x.std() - 2) < 0.05
    m = jtorch.linspace(-5, 5, n)
    x = _np(jtorch.normal(m, jtorch.full((n,), 0.5))) - _np(m)
    assert abs(x.mean()) < 0.02 and abs(x.std() - 0.5) < 0.02
    x = _np(jtorch.normal(1.0, jtorch.full((n,), 2.0)))
    assert abs(x.mean() - 1) < 0.05 and abs(x.std() - 2) < 0.05
    u = _np(jtorch.rand(n))
    assert u.min() >= 0 and u.max() < 1 and abs(u.mean() - 0.5) < 0.01
    u = _np(jtorch.empty(n).uniform_(-3, 5))
    assert u.min() >= -3 and u.max() < 5 and abs(u.mean() - 1) < 0.05
    u = _np(jtorch.rand(n, dtype=jtorch.float16))
    assert u.min() >= 0 and u.max() <= 1
    z = jtorch.randn(n, dtype=jtorch.complex64).numpy()
    assert abs(z.real.var() - 0.5) < 0.02 and abs(z.imag.var() - 0.5) < 0.02
    c = jtorch.rand(n, dtype=jtorch.complex64).numpy()
    assert 0 <= c.real.min() and c.real.max() < 1 and 0 <= c.imag.min() and c.imag.max() < 1
    b = _np(jtorch.bernoulli(jtorch.full((n,), 0.3)))
    assert set(np.unique(b)) <= {0.0, 1.0} and abs(b.mean() - 0.3) < 0.01
    b = _np(jtorch.empty(n).bernoulli_(0.8))
    assert abs(b.mean() - 0.8) < 0.01
    p = jtorch.linspace(0, 1, n)
    b = _np(jtorch.empty(n).bernoulli_(p))
    assert abs(b.mean() - 0.5) < 0.01 and b[: n // 10].mean() < 0.1 and b[-n // 10:].mean() > 0.9
    e = _np(jtorch.empty(n).exponential_(2.0))
    assert e.min() >= 0 and abs(e.mean() - 0.5) < 0.01
    g = _np(jtorch.empty(n).geometric_(0.25))
    assert g.min() >= 1 and np.all(g == np.round(g)) and abs(g.mean() - 4) < 0.1
    cy = _np(jtorch.empty(n).cauchy_(1.0, 2.0))
    assert abs(np.median(cy) - 1) < 0.05 and abs(np.percentile(cy, 75) - 3) < 0.1
    ln = np.log(_np(jtorch.empty(n, dtype=jtorch.float64).log_normal_(0.5, 0.25)))
    assert abs(ln.mean() - 0.5) < 0.01 and abs(ln.std() - 0.25) < 0.01
    po = _np(jtorch.poisson(jtorch.full((n,), 4.0)))
    assert np.all(po == np.round(po)) and abs(po.mean() - 4) < 0.05 and abs(po.var() - 4) < 0.15
    r = jtorch.randint(-3, 7, (n,)).numpy()
    assert r.min() == -3 and r.max() == 6 and len(np.unique(r)) == 10
    r = jtorch.empty(n).random_(5).numpy()
    assert r.min() == 0 and r.max() == 4 and np.all(r == np.round(r))
    r = jtorch.empty(n, dtype=jtorch.uint8).random_().numpy()
    assert r.min() == 0 and r.max() == 255
    r = jtorch.empty(1000, dtype=jtorch.bool).random_().numpy()
    assert 300 < r.sum() < 700
    r = jtorch.empty(n, dtype=jtorch.int8).random_(-5, 5).numpy()
    assert r.min() == -5 and r.max() == 4
    r = jtorch.randint_like(jtorch.empty(n, dtype=jtorch.int32), 2, 4).numpy()
    assert set(np.unique(r)) == {2, 3}


def test_randperm_and_multinomial():
    jtorch.manual_seed(3)
    for n in (0, 1, 7, 1000):
        assert sorted(jtorch.randperm(n).tolist()) == list(range(n))
    p = jtorch.tensor([[0.1, 0.2, 0.0, 0.3, 0.4], [1.0, 1.0, 1.0, 1.0, 1.0]])
    for _ in range(5):
        s = jtorch.multinomial(p, 4).numpy()
        assert all(len(set(row)) == 4 for row in s)
        assert 2 not in s[0]  # a zero-probability category is never drawn while others remain
    full = jtorch.multinomial(jtorch.ones(6), 6).numpy()
    assert sorted(full.tolist()) == list(range(6))
    probs = np.array([0.1, 0.2, 0.3, 0.4])
    s = jtorch.multinomial(jtorch.tensor(probs * 10), 50_000, replacement=True).numpy()
    np.testing.assert_allclose(np.bincount(s, minlength=4) / 50_000, probs, atol=0.01)
    s = jtorch.multinomial(jtorch.tensor([[0.0, 1.0], [1.0, 0.0]]), 5, True).numpy()
    assert s.tolist() == [[1] * 5, [0] * 5]
    first = np.array([jtorch.multinomial(jtorch.tensor(probs), 2).tolist()[0]
                      for _ in range(400)])
    assert np.bincount(first, minlength=4)[3] > np.bincount(first, minlength=4)[0]


def test_inplace_on_views_changes_base():
    jtorch.manual_seed(0)
    for method, args in (("uniform_", (5, 6)), ("normal_", (10, 0.1)), ("bernoulli_", (1.0,)),
                         ("exponential_", (1.0,)), ("cauchy_", ()), ("log_normal_", ()),
                         ("geometric_", (0.5,)), ("random_", (1, 4)), ("fill_", (3,)),
                         ("zero_", ())):
        base = jtorch.full((3, 4), -100.0)
        view = base.transpose(0, 1)[1]  # the column base[:, 1]
        out = getattr(view, method)(*args)
        assert out is view
        b = base.numpy()
        assert np.all(b[:, [0, 2, 3]] == -100), method
        assert np.all(b[:, 1] != -100) and np.all(b[:, 1] == view.numpy()), method
        assert base._version > 0
    base = jtorch.zeros(4, 4)
    base[1:3, 1:3].uniform_(1, 2)
    b = base.numpy()
    assert np.all(b[1:3, 1:3] >= 1) and b.sum() == b[1:3, 1:3].sum()
    w = jtorch.empty(2, 3, requires_grad=True)
    with jtorch.no_grad():  # initialising parameters: allowed under no_grad
        w.normal_(0, 0.02)
        w[0].uniform_(-1, 1)
    assert w.is_leaf and w.requires_grad and w.grad_fn is None


def test_inplace_on_nonleaf_gives_zero_grad():
    for method in ("uniform_", "normal_", "exponential_", "cauchy_", "log_normal_"):
        a = jtorch.ones(3, requires_grad=True)
        y = a * 2
        getattr(y, method)()
        (y * a).sum().backward()
        np.testing.assert_array_equal(a.grad.numpy(), y.detach().numpy())
    m = jtorch.zeros(3, requires_grad=True)
    s = jtorch.ones(3, requires_grad=True)
    jtorch.normal(m, s).sum().backward()
    assert m.grad.tolist() == [0, 0, 0] and s.grad.tolist() == [0, 0, 0]
    p = jtorch.full((3,), 0.5, requires_grad=True)
    jtorch.bernoulli(p).sum().backward()
    assert p.grad.tolist() == [0, 0, 0]
    r = jtorch.rand(3, requires_grad=True)
    (r * 3).sum().backward()
    assert r.is_leaf and r.grad.tolist() == [3, 3, 3]


def test_devices():
    jtorch.manual_seed(0)
    for make in (lambda d: jtorch.rand(3, device=d), lambda d: jtorch.randperm(3, device=d),
                 lambda d: jtorch.randint(5, (3,), device=d),
                 lambda d: jtorch.randn_like(jtorch.ones(2), device=d),
                 lambda d: jtorch.bernoulli(jtorch.full((3,), .5, device=d)),
                 lambda d: jtorch.normal(jtorch.zeros(2, device=d), 1.0),
                 lambda d: jtorch.multinomial(jtorch.ones(4, device=d), 2),
                 lambda d: jtorch.zeros(3, device=d)[1:].normal_()):
        for d in ("cpu", "cpu:1"):
            t = make(d)
            assert t.device == jtorch.device(d)
            assert next(iter(t._value.devices())).id == (jtorch.device(d).index or 0)
        if not jax.devices()[0].platform == "gpu":
            with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
                make("cuda")


def _with_key(key, fn):
    """Run ``fn`` with the default generator's key replaced by ``key`` (what jtorch.compile
    does when it lifts the generator into a traced step); return (result, new key)."""
    g = jtorch.default_generator
    saved = g._key._array
    g._key._array = key
    try:
        out = fn()
        return out, g._key._array
    finally:
        g._key._array = saved


def test_traced_key_compile_ready():
    def step(key):
        def body():
            x = jtorch.rand(4)
            y = jtorch.normal(jtorch.zeros(4), 1.0)
            z = jtorch.zeros(4)
            z.uniform_(-1, 1)
            p = jtorch.randperm(4)
            return [x._value, y._value, z._value, p._value]

        return _with_key(key, body)

    jtorch.manual_seed(9)
    key0 = jtorch.default_generator._key._value
    eager, eager_key = step(key0)
    traced, traced_key = jax.jit(step)(key0)
    for e, t in zip(eager, traced):
        np.testing.assert_array_equal(np.asarray(e), np.asarray(t))
    np.testing.assert_array_equal(np.asarray(eager_key), np.asarray(traced_key))
    again, _ = jax.jit(step)(traced_key)  # the next compiled step draws new numbers
    assert not np.array_equal(np.asarray(again[0]), np.asarray(traced[0]))
    state_t, _ = jax.jit(lambda k: _with_key(k, lambda: jtorch.get_rng_state()._value))(key0)
    np.testing.assert_array_equal(np.asarray(state_t)[:8], np.asarray(key0).view(np.uint8))


def test_concrete_key_under_foreign_jit_leaks_nothing():
    jtorch.manual_seed(1)
    before = jtorch.get_rng_state().tolist()

    @jax.jit
    def f(x):
        t = jtorch.Tensor._make(x)
        s = jtorch.get_rng_state()
        with jtorch.random.fork_rng():
            jtorch.rand(2)
        jtorch.set_rng_state(s)
        return (t + jtorch.rand(3) + jtorch.randn_like(t))._value

    out1 = f(jnp.zeros(3, jnp.float32))
    key = jtorch.default_generator._key._value
    assert not isinstance(key, jax.core.Tracer)
    after = jtorch.get_rng_state().tolist()
    assert after != before  # the generator advanced once, at trace time
    out2 = f(jnp.zeros(3, jnp.float32))  # cached: the same numbers, generator untouched
    np.testing.assert_array_equal(np.asarray(out1), np.asarray(out2))
    assert jtorch.get_rng_state().tolist() == after
    jtorch.rand(2)  # and eager use still works
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        jtorch.manual_seed(1)
