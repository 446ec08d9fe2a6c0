"""Regressions found by running torchdiffeq unchanged under jtorch
(scripts/real_drivers/torchdiffeq_odes.py, docs/real-programs.md): each test is a small stand-in
for what the library did, in plain torch-API code, run in jtorch and in real PyTorch."""

import numpy as np
import pytest
import torch
from helpers import assert_close

import jtorch

W = np.array([1.0 + 0.5j, -0.3 + 2.0j])
C = np.array([0.3 - 2.0j, 1.5 + 0.25j])

LOSSES = {
    "abs": lambda T, w, c: (w * c).abs().sum(),
    "real": lambda T, w, c: w.real.sum(),
    "imag": lambda T, w, c: (w * c).imag.sum(),
    "square": lambda T, w, c: (w ** 2).imag.sum(),
    "exp": lambda T, w, c: T.exp(w).real.sum(),
    "div": lambda T, w, c: (c / w).abs().sum(),
    "conj": lambda T, w, c: (w.conj() * c).real.sum(),
    "angle": lambda T, w, c: (w + 1j).angle().sum(),
    "matmul": lambda T, w, c: (T.outer(w, c) @ w).abs().sum(),
    "view_as_real": lambda T, w, c: (T.view_as_real(w * c) ** 2).sum(),
}


@pytest.mark.parametrize("loss", sorted(LOSSES))
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_gradient_of_a_complex_leaf_is_pytorchs(loss, dtype):
    # torchdiffeq integrates complex states; a complex parameter's gradient (odeint and
    # odeint_adjoint alike) came back as the conjugate of PyTorch's: jtorch handed JAX's
    # cotangent convention (dL/dz) out where PyTorch's is dL/dz*
    grads, values = [], []
    for T in (torch, jtorch):
        w = T.tensor(W.astype(dtype), requires_grad=True)
        out = LOSSES[loss](T, w, T.tensor(C.astype(dtype)))
        out.backward()
        values.append(out)
        grads.append(w.grad)
    tol = 1e-5 if dtype == np.complex64 else 1e-12
    assert_close(values[1], values[0], atol=tol, rtol=tol)
    assert_close(grads[1], grads[0], atol=tol, rtol=tol)


def test_complex_ode_gradients_and_hooks():
    # an RK4 step of dy/dt = -w*y + 0.1j*y**2 (complex state and parameter), its gradient
    # with respect to w and the initial state, and what a hook and retain_grad on a complex
    # intermediate see
    def run(T):
        w = T.tensor(W, requires_grad=True)
        y = T.tensor(np.array([1.0 + 0j, 0.5 - 0.5j]), requires_grad=True)
        f = lambda y: -w * y + 0.1j * y ** 2  # noqa: E731
        seen = []
        h = 0.1
        y1 = y
        for _ in range(3):
            k1 = f(y1)
            k2 = f(y1 + h / 2 * k1)
            k3 = f(y1 + h / 2 * k2)
            k4 = f(y1 + h * k3)
            y1 = y1 + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        y1.retain_grad()
        y1.register_hook(lambda g: seen.append(g.clone()))
        (y1.abs() ** 2).sum().backward()
        return y1, w.grad, y.grad, y1.grad, seen[0]

    got, want = run(jtorch), run(torch)
    for g, e in zip(got, want):
        assert_close(g, e, atol=1e-12, rtol=1e-12)


@pytest.mark.parametrize("path", ["compile", "checkpoint", "cond"])
def test_complex_gradient_convention_in_compile_checkpoint_and_cond(path):
    # the other ways a backward is taken (a compiled step, activation checkpointing, torch.cond)
    # give a complex leaf PyTorch's gradient (dL/dz*), as eager autograd does
    grads = []
    for T in (torch, jtorch):
        w = T.tensor(np.array([1 + 2j, 3 - 1j, -0.5 + 0.25j], dtype=np.complex64),
                     requires_grad=True)
        x = T.tensor(np.array([0.5 - 1j, 2 + 0.5j, 1 + 1j], dtype=np.complex64))

        def f(w, x=x):
            y = w * x
            return (y * y.conj()).real.sum() + (y * 2).imag.sum() + w.exp().real.sum()

        if path == "compile" and T is jtorch:
            T.compile(lambda w=w: f(w).backward())()
        elif path == "checkpoint":
            T.utils.checkpoint.checkpoint(f, w, use_reentrant=False).backward()
        elif path == "cond":
            out = T.cond(T.tensor(True), lambda w, x=x: (w * x).exp(), lambda w: w * 2, (w,))
            (out.real.sum() + 3 * out.imag.sum()).backward()
        else:
            f(w).backward()
        grads.append(w.grad)
    assert_close(grads[1], grads[0])
