"""torch.geqrf, linalg.householder_product (orgqr) and ormqr against PyTorch: values,
gradients, geqrf's missing derivative and errors."""

import numpy as np
import pytest
import torch
from helpers import parity, raises_like

import jtorch

RNG = np.random.default_rng(5)


@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 3), (5, 2)], ids=str)
def test_geqrf_values(shape):
    parity(lambda T, a: tuple(T.geqrf(a)), RNG.standard_normal(shape), grad=False)


def test_geqrf_has_no_derivative():
    for T in (torch, jtorch):
        a = T.tensor(RNG.standard_normal((3, 3)), requires_grad=True)
        with pytest.raises(NotImplementedError, match="the derivative for 'geqrf'"):
            T.geqrf(a)[0].sum().backward()


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_householder_product_values_and_gradients(dtype):
    a = RNG.standard_normal((2, 5, 3))
    tau = RNG.uniform(0.5, 1.5, (2, 2))
    if dtype == np.complex128:
        a, tau = a + 1j * RNG.standard_normal(a.shape), tau + 0.3j
    parity(lambda T, a, t: T.linalg.householder_product(a, t), a.astype(dtype),
           tau.astype(dtype), grad=dtype == np.float64)
    parity(lambda T, a, t: T.orgqr(a, t), a.astype(dtype), tau.astype(dtype), grad=False)


def test_q_from_geqrf_is_qr():
    a = RNG.standard_normal((5, 3))
    for T in (torch, jtorch):
        h, tau = T.geqrf(T.tensor(a))
        q = T.linalg.householder_product(h, tau)
        np.testing.assert_allclose(q.numpy(), torch.linalg.qr(torch.tensor(a)).Q.numpy(),
                                   atol=1e-12)


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("transpose", [False, True])
def test_ormqr_values_and_gradients(left, transpose):
    a, tau = RNG.standard_normal((4, 3)), RNG.uniform(0.5, 1.5, 3)
    c = RNG.standard_normal((4, 2) if left else (2, 4))
    parity(lambda T, a, t, c: T.ormqr(a, t, c, left=left, transpose=transpose), a, tau, c)


@pytest.mark.parametrize("make", [
    lambda T: T.geqrf(T.ones(3)),
    lambda T: T.geqrf(T.ones(3, 3, dtype=T.int64)),
    lambda T: T.linalg.householder_product(T.ones(3, 3), T.ones(4)),
    lambda T: T.linalg.householder_product(T.ones(2, 3), T.ones(2)),
    lambda T: T.linalg.householder_product(T.ones(3), T.ones(1)),
    lambda T: T.ormqr(T.ones(4, 3), T.ones(3), T.ones(3, 2)),
    lambda T: T.ormqr(T.ones(4, 3), T.ones(3), T.ones(2, 3), left=False),
    lambda T: T.ormqr(T.ones(4, 3), T.ones(5), T.ones(4, 2)),
    lambda T: T.ormqr(T.ones(4, 3), T.ones(2), T.ones(2, 4), left=False),
], ids=["geqrf_vector", "geqrf_long", "tau_long", "wide", "hp_vector", "rows", "cols",
        "tau_left", "tau_right"])
def test_errors(make):
    raises_like(lambda: make(torch), lambda: make(jtorch))
