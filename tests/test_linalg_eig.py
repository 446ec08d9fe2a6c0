"""linalg.eig and linalg.eigvals against PyTorch: eigenvalues and eigenvectors (LAPACK's geev in
both: same order and norm; the phase of each vector may differ), gradients of the eigenvalues
and of phase-invariant functions of the eigenvectors, and errors."""

import numpy as np
import pytest
import torch
from helpers import parity, raises_like

RNG = np.random.default_rng(3)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128])
def test_eig_values_vectors_and_gradients(dtype):
    a = RNG.standard_normal((2, 4, 4))
    if dtype == np.complex128:
        a = a + 1j * RNG.standard_normal((2, 4, 4))
    a = a.astype(dtype)
    tol = 1e-4 if dtype == np.float32 else 1e-10

    def fn(T, a):
        w, v = T.linalg.eig(a)
        # each eigenvector is unique up to its phase, which LAPACK builds may choose
        # differently: compared with the phase of its first entry divided out
        first = v[..., :1, :]
        return w, v * (first.conj() / first.abs()), v.abs() ** 2

    parity(fn, a, atol=tol, rtol=tol, grad=dtype != np.complex128)
    parity(lambda T, a: T.linalg.eigvals(a), a, atol=tol, rtol=tol,
           grad=dtype != np.complex128)


def test_eig_gradient_of_phase_invariant_functions():
    a = RNG.standard_normal((5, 5))

    def fn(T, a):
        w, v = T.linalg.eig(a)
        return (w.real * w.imag).sum() + (v.abs() ** 2 * T.arange(5.)).sum()

    parity(fn, a, atol=1e-9, rtol=1e-9)


@pytest.mark.parametrize("make", [
    lambda T: T.linalg.eig(T.ones(3, 3, dtype=T.int64)),
    lambda T: T.linalg.eig(T.ones(3, 4)),
    lambda T: T.linalg.eig(T.ones(3)),
    lambda T: T.linalg.eigvals(T.ones(2, 2, dtype=T.bfloat16)),
], ids=["long", "not_square", "vector", "bf16"])
def test_errors(make):
    import jtorch
    raises_like(lambda: make(torch), lambda: make(jtorch))
