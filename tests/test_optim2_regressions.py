"""Regressions found by running pytorch-minimize (torchmin), Cooper, TorchJD and muP unchanged
under jtorch (scripts/real_drivers/optim2_libs.py, docs/real-programs.md): each test is a small
stand-in for what the library did, in plain torch-API code, run in jtorch and in real PyTorch."""

import numpy as np
import pytest
import torch

import jtorch


def _np(t):
    return np.asarray(t.detach().tolist())


def test_nn_init_private_no_grad_helpers():
    # mup.init does `from torch.nn.init import _no_grad_fill_, _no_grad_normal_,
    # _no_grad_uniform_` (ImportError at import mup)
    for name in ("_no_grad_fill_", "_no_grad_zero_", "_no_grad_uniform_", "_no_grad_normal_",
                 "_no_grad_trunc_normal_", "_calculate_correct_fan",
                 "_calculate_fan_in_and_fan_out"):
        assert callable(getattr(jtorch.nn.init, name)), name
    for T in (jtorch, torch):
        w = T.ones(2, 3, requires_grad=True)
        out = T.nn.init._no_grad_fill_(w, 0.5)
        assert out is w and w.requires_grad and w.grad_fn is None
        assert _np(w).tolist() == [[0.5] * 3] * 2
        assert T.nn.init._no_grad_zero_(w) is w and _np(w).sum() == 0
        u = T.nn.init._no_grad_uniform_(w, -0.25, 0.25)
        assert u is w and float(w.abs().max()) <= 0.25 and w.grad_fn is None
        assert T.nn.init._no_grad_normal_(w, 0.0, 1e-3) is w
        assert T.nn.init._no_grad_trunc_normal_(w, 0.0, 1.0, -0.1, 0.1) is w
        assert float(w.abs().max()) <= 0.1


def test_vmap_internals_legacy_vmap_of_autograd_grad():
    # torchmin builds Hessians with torch._vmap_internals._vmap over autograd.grad with the rows
    # of an identity (ModuleNotFoundError: torch._vmap_internals)
    from torch._vmap_internals import _vmap as pt_vmap

    from jtorch._vmap_internals import _vmap as jt_vmap

    got = []
    for T, vm in ((jtorch, jt_vmap), (torch, pt_vmap)):
        x = T.tensor([1.0, -2.0, 0.5], dtype=T.float64, requires_grad=True)
        y = T.tensor([3.0], dtype=T.float64, requires_grad=True)
        f = (x ** 3).sum() + x[0] * x[1] + (x[2] * 2).sin()
        g, = T.autograd.grad(f, x, create_graph=True)
        eye = T.eye(3, dtype=T.float64)
        def vjp(v, T=T, g=g, x=x):
            return T.autograd.grad(g, x, v, retain_graph=True)[0]

        def vjps(v, T=T, g=g, x=x, y=y):
            return T.autograd.grad(g, (x, y), v, retain_graph=True, allow_unused=True)

        hess = vm(vjp)(eye)
        both = vm(vjps, allow_none_pass_through=True)(eye)
        assert both[1] is None
        scaled = vm(lambda a, b: a * b, in_dims=(0, None), out_dims=1)(eye, x.detach())
        with pytest.raises(ValueError, match="must only return Tensors"):
            vm(vjps)(eye)
        got.append([_np(hess), _np(both[0]), _np(scaled)])
    for a, b in zip(*got):
        np.testing.assert_allclose(a, b, rtol=1e-14, atol=0)


def test_autograd_functional_private_helpers():
    # torchmin's ScipyMinimizer imports _construct_standard_basis_for, _grad_postprocess,
    # _tuple_postprocess and _as_tuple from torch.autograd.functional (ImportError)
    outs = []
    for T in (jtorch, torch):
        F = T.autograd.functional
        a, b = T.zeros(1, dtype=T.float64), T.zeros(2, 1)
        basis = F._construct_standard_basis_for((a, b, T.zeros(1)), (1, 2, 1))
        assert [t.dtype for t in basis] == [T.float64, T.float32, T.float32]
        assert F._as_tuple([a, b])[1] is b and F._as_tuple(a)[0] is a
        assert F._as_tuple(a, "inputs", "fn") == (False, (a,))
        w = T.ones(2, requires_grad=True) * 2
        post = F._grad_postprocess(((w,), (w, w)), create_graph=False)
        assert not post[0][0].requires_grad and not post[1][1].requires_grad
        assert F._grad_postprocess((w,), create_graph=True)[0] is w
        assert F._tuple_postprocess(((a,),), (False, False)) is a
        assert F._tuple_postprocess((a,), False) is a
        outs.append([_np(t) for t in basis])
    for x, y in zip(*outs):
        np.testing.assert_array_equal(x, y)


def _rosen(x):
    return (100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_lbfgs_strong_wolfe_on_tensors(dtype):
    # torchmin's line search calls torch.optim.lbfgs._strong_wolfe (and _cubic_interpolate) with
    # Tensors (ValueError: __jax_array__ during abstractification)
    from torch.optim.lbfgs import _cubic_interpolate as pt_cubic, _strong_wolfe as pt_wolfe

    from jtorch.optim.lbfgs import _cubic_interpolate as jt_cubic, _strong_wolfe as jt_wolfe

    got = []
    for T, wolfe, cubic in ((jtorch, jt_wolfe, jt_cubic), (torch, pt_wolfe, pt_cubic)):
        dt = getattr(T, dtype)
        x = T.tensor([-1.2, 1.0, 0.5, -0.4], dtype=dt)

        def obj(x, t, d, T=T):
            z = (x + d.mul(t)).detach().requires_grad_(True)
            with T.enable_grad():
                f = _rosen(z)
            return float(f), T.autograd.grad(f, z)[0]

        f, g = obj(x, 0.0, T.zeros_like(x))
        d = -g
        gtd = g.mul(d).sum()
        f1, g1, t1, n1 = wolfe(obj, x, 1e-3, d, f, g, gtd)
        cub = cubic(0.0, f, gtd, 1e-3, f + 1.0, gtd * -0.5)
        assert isinstance(g1, T.Tensor) and isinstance(cub, T.Tensor)
        got.append([f1, _np(g1), float(t1), n1, float(cub)])
    (f1, g1, t1, n1, c1), (f2, g2, t2, n2, c2) = got
    tol = 1e-5 if dtype == "float32" else 1e-12
    assert n1 == n2
    np.testing.assert_allclose([f1, t1, c1], [f2, t2, c2], rtol=tol)
    np.testing.assert_allclose(g1, g2, rtol=tol, atol=tol)


def _function_with_vmap_rule(T, calls):
    """A Function whose own vmap staticmethod (as TorchJD's ComputeModuleJacobians) maps its
    batched input with an inner vmap and returns a Jacobian that leaves the vmap unbatched."""
    class Rows(T.autograd.Function):
        @staticmethod
        def forward(fn, ys, gs):
            return fn(ys, gs).unsqueeze(0)

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def vmap(info, in_dims, fn, ys, gs):
            calls.append((info.batch_size, info.randomness, in_dims))
            jac = T.vmap(fn, in_dims=in_dims[1:])(ys, gs)
            return jac.reshape(info.batch_size, -1), None

    return Rows


@pytest.mark.parametrize("T", [jtorch, torch], ids=["jtorch", "torch"])
def test_function_vmap_staticmethod_and_autograd_grad_of_unmapped_input(T):
    # TorchJD's autogram Engine(batch_dim=None) maps autograd.grad over the rows of an identity;
    # a backward hook applies a Function with its own vmap staticmethod, which maps
    # autograd.grad of the module's output (passed unmapped) and keeps the unbatched Jacobian
    # (jtorch batched the forward instead: UnexpectedTracerError when the kept value was used,
    # and autograd.grad of an unmapped input raised "does not require grad")
    lin = T.nn.Linear(3, 2).double()
    with T.no_grad():
        lin.weight.copy_(T.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]))
        lin.bias.copy_(T.tensor([0.1, -0.2]))
    x = T.arange(12.0, dtype=T.float64).reshape(4, 3) / 7
    y = lin(x)
    params = list(lin.parameters())
    calls, kept = [], []

    def jac_fn(ys, gs):
        grads = T.autograd.grad(ys, params, gs, retain_graph=True)
        return T.cat([g.reshape(-1) for g in grads])

    Rows = _function_with_vmap_rule(T, calls)

    def hook(g):
        kept.append(Rows.apply(jac_fn, (y,), (g,)))
        return g

    z = y.clone()
    z.register_hook(hook)
    out = (z ** 2).sum(1)
    eye = T.eye(4, dtype=T.float64)
    T.vmap(lambda g: T.autograd.grad(out, params, g, retain_graph=True))(eye)
    assert calls == [(4, "error", (None, (None,), (0,)))]
    jac = kept[0]
    assert tuple(jac.shape) == (4, 8)
    # row n: the layer's parameter gradients for the cotangent 2 y[n] on output row n, by hand
    gy, xs = 2 * _np(y), _np(x)
    expect = np.concatenate([gy[:, :, None] * xs[:, None, :], gy[:, :, None]], 2)
    expect = np.concatenate([expect[:, :, :3].reshape(4, 6), expect[:, :, 3]], 1)
    np.testing.assert_allclose(_np(jac), expect, rtol=1e-12)
    # with no transform around the vmap, an unmapped input keeps its autograd history
    with T.no_grad():
        rows = T.vmap(jac_fn, in_dims=(None, 0))((y,), (T.eye(2, dtype=T.float64).expand(4, 2, 2)
                                                         .permute(1, 0, 2),))
    assert tuple(rows.shape) == (2, 8)
