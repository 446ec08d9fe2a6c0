"""Transforms (forward, inverse, log_abs_det_jacobian, shapes, domain/codomain, repr, equality),
constraints (check on values inside and outside), and constraint_registry's biject_to /
transform_to, against torch.distributions."""

import numpy as np
import pytest
import torch
from helpers import assert_close, parity

import jtorch
import jtorch.distributions as jd

_RNG = np.random.default_rng(7)


def _x(*shape, lo=-1.5, hi=1.5):
    return _RNG.uniform(lo, hi, shape)


TRANSFORMS = {
    "Exp": (lambda T: T.ExpTransform(), _x(2, 3)),
    "Affine": (lambda T: T.AffineTransform(0.5, -2.0), _x(2, 3)),
    "Affine_event": (lambda T: T.AffineTransform(0.5, 3.0, event_dim=1), _x(2, 3)),
    "Sigmoid": (lambda T: T.SigmoidTransform(), _x(2, 3)),
    "Tanh": (lambda T: T.TanhTransform(), _x(2, 3)),
    "Softplus": (lambda T: T.SoftplusTransform(), _x(2, 3)),
    "Power": (lambda T: T.PowerTransform(2.5), _x(2, 3, lo=0.2, hi=2)),
    "Abs": (lambda T: T.AbsTransform(), _x(2, 3)),
    "Softmax": (lambda T: T.SoftmaxTransform(), _x(2, 3)),
    "StickBreaking": (lambda T: T.StickBreakingTransform(), _x(2, 3)),
    "LowerCholesky": (lambda T: T.LowerCholeskyTransform(), _x(2, 3, 3)),
    "PositiveDefinite": (lambda T: T.PositiveDefiniteTransform(), _x(2, 3, 3)),
    "CorrCholesky": (lambda T: T.CorrCholeskyTransform(), _x(2, 3)),
    "Compose": (lambda T: T.ComposeTransform([T.AffineTransform(1.0, 2.0), T.ExpTransform()]),
                _x(2, 3)),
    "Reshape": (lambda T: T.ReshapeTransform((2, 3), (3, 2)), _x(4, 2, 3)),
    "Independent": (lambda T: T.IndependentTransform(T.ExpTransform(), 1), _x(2, 3)),
    "Cat": (lambda T: T.CatTransform([T.ExpTransform(), T.AffineTransform(0.0, 3.0)], 0,
                                     [1, 2]), _x(3, 2)),
    "Stack": (lambda T: T.StackTransform([T.ExpTransform(), T.SigmoidTransform()], 1),
              _x(3, 2)),
}
# PyTorch implements no log_abs_det_jacobian for these
NO_LADJ = {"Softmax", "Abs", "LowerCholesky", "PositiveDefinite"}
# these also run under jax.jit (the others are elementwise or shape code on the same paths;
# every jit compilation costs time)
JIT = {"Compose", "StickBreaking", "CorrCholesky", "Cat"}


@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_transform_forward_inverse_and_jacobian(name):
    make, x = TRANSFORMS[name]

    def fn(lib, x):
        t = make(lib.distributions.transforms)
        y = t(x)
        out = [y, t.inv(y)]
        if name not in NO_LADJ:
            out.append(t.log_abs_det_jacobian(x, y))
        return out

    tol = 1e-7 if name == "Power" else None  # pow's gradient: a few ulp apart from torch's
    parity(fn, x, rtol=tol, atol=tol, jit=name in JIT)
    tt, jt = make(torch.distributions.transforms), make(jd.transforms)
    assert repr(jt) == repr(tt)
    assert repr(jt.domain) == repr(tt.domain) and repr(jt.codomain) == repr(tt.codomain)
    assert (jt.bijective, jt.sign if name in ("Exp", "Sigmoid", "Tanh") else 0) == \
        (tt.bijective, tt.sign if name in ("Exp", "Sigmoid", "Tanh") else 0)
    shape = x.shape
    assert tuple(jt.forward_shape(shape)) == tuple(tt.forward_shape(shape))
    y_shape = tt.forward_shape(shape)
    assert tuple(jt.inverse_shape(y_shape)) == tuple(tt.inverse_shape(y_shape))


def test_transform_inverse_object_cache_and_equality():
    t = jd.transforms.ExpTransform()
    assert t.inv.inv is t
    assert t == jd.transforms.ExpTransform()
    assert jd.transforms.AffineTransform(1.0, 2.0) == jd.transforms.AffineTransform(1.0, 2.0)
    c = jd.transforms.ExpTransform(cache_size=1)
    x = jtorch.tensor([0.5])
    y = c(x)
    assert c.inv(y) is x  # cached: the inverse returns the very input
    assert jd.transforms.identity_transform(x) is x
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        jd.transforms.ExpTransform(cache_size=2)


# ------------------------------------------------------------------ constraints
C = "constraints"
CONSTRAINTS = {
    "real": (lambda c: c.real, [0.5, -np.inf, np.nan]),
    "positive": (lambda c: c.positive, [0.5, 0.0, -1.0]),
    "nonnegative": (lambda c: c.nonnegative, [0.5, 0.0, -1.0]),
    "unit_interval": (lambda c: c.unit_interval, [0.0, 1.0, 1.5]),
    "interval": (lambda c: c.interval(-1.0, 2.0), [-1.0, 2.0, 2.5]),
    "half_open_interval": (lambda c: c.half_open_interval(-1.0, 2.0), [-1.0, 2.0, 0.5]),
    "greater_than": (lambda c: c.greater_than(1.0), [1.0, 1.5, 0.0]),
    "greater_than_eq": (lambda c: c.greater_than_eq(1.0), [1.0, 1.5, 0.0]),
    "less_than": (lambda c: c.less_than(1.0), [1.0, 0.5, 2.0]),
    "boolean": (lambda c: c.boolean, [0.0, 1.0, 0.5]),
    "nonnegative_integer": (lambda c: c.nonnegative_integer, [0.0, 3.0, 1.5]),
    "positive_integer": (lambda c: c.positive_integer, [0.0, 3.0, -1.0]),
    "integer_interval": (lambda c: c.integer_interval(0, 3), [0.0, 3.0, 4.0]),
    "real_vector": (lambda c: c.real_vector, [[0.5, 1.0], [np.nan, 0.0]]),
    "simplex": (lambda c: c.simplex, [[0.3, 0.7], [0.5, 0.6]]),
    "one_hot": (lambda c: c.one_hot, [[0.0, 1.0], [1.0, 1.0]]),
    "multinomial": (lambda c: c.multinomial(3), [[1.0, 2.0], [2.0, 2.0]]),
    "independent": (lambda c: c.independent(c.positive, 1), [[1.0, 2.0], [0.0, 1.0]]),
    "lower_triangular": (lambda c: c.lower_triangular, [[[1.0, 0.0], [2.0, 1.0]],
                                                         [[1.0, 1.0], [0.0, 1.0]]]),
    "lower_cholesky": (lambda c: c.lower_cholesky, [[[1.0, 0.0], [2.0, 1.0]],
                                                     [[-1.0, 0.0], [0.0, 1.0]]]),
    "corr_cholesky": (lambda c: c.corr_cholesky, [[[1.0, 0.0], [0.6, 0.8]],
                                                   [[1.0, 0.0], [0.6, 0.9]]]),
    "square": (lambda c: c.square, [[[1.0, 0.0], [2.0, 1.0]]]),
    "symmetric": (lambda c: c.symmetric, [[[1.0, 2.0], [2.0, 1.0]], [[1.0, 2.0], [0.0, 1.0]]]),
    "positive_definite": (lambda c: c.positive_definite, [[[2.0, 1.0], [1.0, 2.0]],
                                                          [[1.0, 2.0], [2.0, 1.0]]]),
    "positive_semidefinite": (lambda c: c.positive_semidefinite, [[[1.0, 1.0], [1.0, 1.0]],
                                                                  [[1.0, 2.0], [2.0, 1.0]]]),
    "cat": (lambda c: c.cat([c.positive, c.real], 0, [1, 2]), [1.0, -1.0, -2.0]),
    "stack": (lambda c: c.stack([c.positive, c.real], 0), [-1.0, -1.0]),
}


@pytest.mark.parametrize("name", list(CONSTRAINTS))
def test_constraint_check(name):
    make, values = CONSTRAINTS[name]
    v = np.array(values)
    tc, jc = make(torch.distributions.constraints), make(jd.constraints)
    assert_close(jc.check(jtorch.tensor(v)), tc.check(torch.tensor(v)))
    assert repr(jc) == repr(tc)
    assert (jc.is_discrete, jc.event_dim) == (tc.is_discrete, tc.event_dim)


def test_dependent_constraints():
    c = jd.constraints
    assert c.is_dependent(c.dependent) and not c.is_dependent(c.real)
    assert c.is_dependent(jd.Uniform.support)
    with pytest.raises(ValueError, match="Cannot determine validity of dependent constraint"):
        c.dependent.check(jtorch.zeros(1))


# ------------------------------------------------------------------ biject_to / transform_to
REGISTRY = ["real", "positive", "nonnegative", "unit_interval", "interval", "greater_than",
            "less_than", "real_vector", "simplex", "independent", "lower_cholesky",
            "positive_definite", "positive_semidefinite", "corr_cholesky", "cat", "stack"]


@pytest.mark.parametrize("which", ["biject_to", "transform_to"])
@pytest.mark.parametrize("name", REGISTRY)
def test_constraint_registry(which, name):
    make = CONSTRAINTS[name][0]
    tc = make(torch.distributions.constraints)
    try:
        tt = getattr(torch.distributions, which)(tc)
    except NotImplementedError:
        with pytest.raises(NotImplementedError):
            getattr(jd, which)(make(jd.constraints))
        return
    jt = getattr(jd, which)(make(jd.constraints))
    assert repr(jt) == repr(tt)
    # unconstrained inputs: matrices for the matrix constraints, 3 numbers for a 3x3
    # correlation Cholesky factor, the cat/stack constraints' sizes
    shape = {"lower_cholesky": (2, 3, 3), "positive_definite": (2, 3, 3),
             "positive_semidefinite": (2, 3, 3), "corr_cholesky": (2, 3), "cat": (3,),
             "stack": (2, 2)}.get(name, (2, 4))

    def fn(lib, x):
        t = getattr(lib.distributions, which)(make(lib.distributions.constraints))
        y = t(x)
        return y

    parity(fn, _x(*shape), jit=False)  # the transforms' jit runs are in the test above
