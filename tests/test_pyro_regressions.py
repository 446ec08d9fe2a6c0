"""Regressions found by running Pyro unchanged under jtorch (scripts/real_drivers/pyro_models.py,
docs/real-programs.md): each test is a small stand-in for what the library did, in plain
torch-API code, run in jtorch and in real PyTorch."""

import typing

import numpy as np
import pytest
import torch

import jtorch


def test_serialization_type_aliases():
    # pyro's param store imports torch.serialization.MAP_LOCATION (ImportError at import pyro)
    for T in (jtorch, torch):
        for name in ("MAP_LOCATION", "FileLike"):
            alias = getattr(T.serialization, name)
            assert str in typing.get_args(alias), (T.__name__, name)
        assert type(None) in typing.get_args(T.serialization.MAP_LOCATION)


def test_register_kl_accepts_any_class():
    # pyro registers KL rules against its own Distribution base class, which does not derive
    # from torch's (TypeError at import pyro); PyTorch accepts any class, rejects non-classes
    for T in (jtorch, torch):
        class Base:
            pass

        @T.distributions.register_kl(T.distributions.Normal, Base)
        def kl_normal_base(p, q):
            return p.loc * 0 + 7.0

        p, q = T.distributions.Normal(0.0, 1.0), Base()
        assert float(T.distributions.kl_divergence(p, q)) == 7.0, T.__name__
        with pytest.raises(TypeError):
            T.distributions.register_kl(3, Base)


@pytest.mark.parametrize("name, make, value", [
    ("Poisson", lambda T, r: T.distributions.Poisson(r), [0.0, 1.0, 3.0]),
    ("Normal", lambda T, r: T.distributions.Normal(r, r), [0.5, -1.0, 2.0]),
    ("Gamma", lambda T, r: T.distributions.Gamma(r, r), [0.5, 1.0, 2.0]),
])
def test_expand_of_scalar_distribution_to_empty_batch(name, make, value):
    # pyro's ZeroInflatedPoisson expands its 0-dim Poisson to batch shape () (TypeError:
    # expand() missing 1 required positional arguments: "size")
    results = []
    for T in (jtorch, torch):
        rate = T.tensor(2.5, requires_grad=True)
        d = make(T, rate).expand(())
        e = make(T, rate).expand([3])
        lp = d.log_prob(T.tensor(value)).sum() + e.log_prob(T.tensor(value)).sum()
        lp.backward()
        assert tuple(d.batch_shape) == () and tuple(e.batch_shape) == (3,)
        results.append((float(lp), float(rate.grad)))
    np.testing.assert_allclose(results[0], results[1], rtol=1e-5)  # float32 digamma


def test_get_tracing_state_is_none_in_eager():
    # pyro's scale_and_mask asks torch._C._get_tracing_state() before reading values (
    # AttributeError)
    assert jtorch._C._get_tracing_state() is None
    assert torch._C._get_tracing_state() is None


def _flow(T):
    class Shift(T.distributions.Transform, T.nn.Module):
        """A learnable shift, a transform and a module at once (pyro's TransformModule)."""
        domain = codomain = T.distributions.constraints.real_vector
        bijective = True

        def __init__(self):
            super().__init__(cache_size=1)
            self.shift = T.nn.Parameter(T.tensor([0.5, -0.25]))

        def __hash__(self):  # (Transform's __eq__ unsets it; a Module must hash)
            return id(self)

        def _call(self, x):
            return x + self.shift

        def _inverse(self, y):
            return y - self.shift

        def log_abs_det_jacobian(self, x, y):
            return x.new_zeros(x.shape[:-1])

    return Shift()


def test_transform_that_is_a_module():
    # pyro's AffineAutoregressive(TransformModule) assigns a submodule after
    # Transform.__init__ ("cannot assign module before Module.__init__() call"): PyTorch's
    # Transform.__init__ calls super().__init__(), which initialises the Module half
    results = []
    for T in (jtorch, torch):
        flow = _flow(T)
        assert [n for n, _ in flow.named_parameters()] == ["shift"]
        base = T.distributions.Independent(T.distributions.Normal(T.zeros(2), T.ones(2)), 1)
        td = T.distributions.TransformedDistribution(base, [flow])
        value = T.tensor([[0.3, -0.5], [1.2, 0.4]])
        lp = td.log_prob(value).sum()
        lp.backward()
        if T is jtorch:  # (PyTorch's with_cache raises NotImplementedError for it)
            uncached = flow.with_cache(0)  # a copy: its Module half is not reinitialised
            assert uncached._cache_size == 0 and flow._cache_size == 1
            assert [n for n, _ in uncached.named_parameters()] == ["shift"]
        y = flow(value)
        assert flow.inv(y) is value  # the cache gives the pair back
        results.append(np.concatenate([[float(lp)], flow.shift.grad.numpy()]))
    np.testing.assert_allclose(results[0], results[1], rtol=1e-6)


def test_cdata_identifies_the_tensor_object():
    # pyro.module compares a module parameter's _cdata with the param store's (AttributeError)
    for T in (jtorch, torch):
        p = T.nn.Parameter(T.ones(2))
        weight, bias = T.nn.Linear(2, 2).parameters()
        assert p._cdata == p._cdata and isinstance(p._cdata, int)
        assert p.detach()._cdata != p._cdata
        assert p.data._cdata != p._cdata
        assert weight._cdata != bias._cdata
