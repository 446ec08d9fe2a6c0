"""linalg.lu_factor(_ex), linalg.lu, linalg.lu_solve, torch.lu/lu_unpack/lu_solve and the _ex
forms of inv, solve and cholesky against PyTorch: values, pivots, info and gradients."""

import numpy as np
import pytest
import torch
from helpers import parity, raises_like

import jtorch
from jtorch._core import warn_once

RNG = np.random.default_rng(0)


def _m(*shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


def _spd(*shape):
    a = _m(*shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


SHAPES = [(3, 3), (2, 4, 4), (3, 5), (5, 3)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_lu_factor_values_pivots_and_gradients(shape):
    parity(lambda T, a: tuple(T.linalg.lu_factor(a)), _m(*shape))
    parity(lambda T, a: tuple(T.linalg.lu_factor_ex(a)), _m(*shape, dtype=np.float32),
           atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_lu_values_and_gradients(shape):
    parity(lambda T, a: tuple(T.linalg.lu(a)), _m(*shape))


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
def test_lu_solve(left, adjoint):
    a = _m(2, 4, 4)
    b = _m(4, 3) if left else _m(3, 4)

    def fn(T, a, b):
        LU, piv = T.linalg.lu_factor(a)
        return T.linalg.lu_solve(LU, piv, b, left=left, adjoint=adjoint)

    parity(fn, a, b)


def test_legacy_lu_unpack_and_lu_solve():
    a, b = _m(2, 3, 3), _m(2, 3, 2)

    def fn(T, a, b):
        LU, piv = T.linalg.lu_factor(a)
        P, L, U = T.lu_unpack(LU, piv)
        return P, L, U, T.lu_solve(b, LU, piv), b.lu_solve(LU, piv)

    parity(fn, a, b)
    for T in (torch, jtorch):
        LU, piv = T.linalg.lu_factor(T.tensor(a))
        P, L, U = T.lu_unpack(LU, piv, unpack_data=False)
        assert tuple(L.shape) == tuple(U.shape) == (0,) and tuple(P.shape) == (2, 3, 3)


def test_torch_lu_warns_once_and_gives_infos():
    a = _m(3, 3)
    warn_once.forget("torch.lu")   # shown once per process: another test may have seen it
    with pytest.warns(UserWarning, match="torch.lu is deprecated"):
        j = jtorch.lu(jtorch.tensor(a), get_infos=True)
    t = torch.lu(torch.tensor(a), get_infos=True)
    assert len(j) == len(t) == 3
    for x, y in zip(j, t):
        np.testing.assert_allclose(x.numpy(), y.numpy(), atol=1e-12)
    LU, piv = jtorch.tensor(a).lu()   # (warned once already)
    np.testing.assert_array_equal(piv.numpy(), t[1].numpy())


def test_ex_forms_values_and_gradients():
    parity(lambda T, a: tuple(T.linalg.inv_ex(a)), _m(2, 3, 3))
    parity(lambda T, a, b: tuple(T.linalg.solve_ex(a, b)), _m(3, 3), _m(3))
    parity(lambda T, a, b: tuple(T.linalg.solve_ex(a, b, left=False)), _m(3, 3), _m(2, 3))
    parity(lambda T, a: tuple(T.linalg.cholesky_ex(a)), _spd(2, 3, 3))
    parity(lambda T, a: tuple(T.linalg.cholesky_ex(a, upper=True)), _spd(3, 3))


@pytest.mark.parametrize("matrix", [
    [[0., 1], [1, 1]], [[1., 2], [2, 4]], [[1., 1, 2], [1, 2, 3], [2, 3, 5]],
    [[2., 0, 0], [0, 0, 0], [0, 0, 3]]], ids=["first", "second", "rank2", "middle"])
def test_info_of_singular_matrices(matrix):
    for fn in (lambda T, a: T.linalg.inv_ex(a).info, lambda T, a: T.linalg.lu_factor_ex(a).info,
               lambda T, a: T.linalg.solve_ex(a, T.ones(a.shape[-1], dtype=a.dtype)).info):
        assert fn(jtorch, jtorch.tensor(matrix)).item() == fn(torch, torch.tensor(matrix)).item()


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_info(upper):
    mats = np.stack([_spd(4, 4), -np.eye(4), np.diag([1., 2, -1, 3]),
                     np.array([[4., 2, 0, 0], [2, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]),
                     np.triu(_spd(4, 4)) - 10 * np.eye(4) * np.array([0, 0, 0, 1])])
    j = jtorch.linalg.cholesky_ex(jtorch.tensor(mats), upper=upper).info
    t = torch.linalg.cholesky_ex(torch.tensor(mats), upper=upper).info
    np.testing.assert_array_equal(j.numpy(), t.numpy())
    assert str(j.dtype) == str(t.dtype)


@pytest.mark.parametrize("make", [
    lambda T: T.linalg.lu_factor(T.ones(3, 3, dtype=T.int64)),
    lambda T: T.linalg.lu_factor(T.ones(3)),
    lambda T: T.linalg.lu_factor(T.eye(3), pivot=False),
    lambda T: T.linalg.lu(T.eye(3), pivot=False),
    lambda T: T.linalg.lu_solve(*T.linalg.lu_factor(T.eye(3)), T.ones(3)),
], ids=["long", "vector", "no_pivot", "lu_no_pivot", "vector_B"])
def test_errors(make):
    raises_like(lambda: make(torch), lambda: make(jtorch))
