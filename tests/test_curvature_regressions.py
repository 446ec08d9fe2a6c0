"""Regressions found by running BackPACK and laplace-torch unchanged under jtorch
(scripts/real_drivers/curvature_libs.py, docs/real-programs.md): each test is a small stand-in
for what the library did, in plain torch-API code, run in jtorch and in real PyTorch."""

import numpy as np
import pytest
import torch

import jtorch


def test_precision_to_scale_tril():
    # laplace.utils imports torch.distributions.multivariate_normal._precision_to_scale_tril
    # (ImportError at import laplace) and turns posterior precisions into scale_trils with it
    from torch.distributions.multivariate_normal import _precision_to_scale_tril as want

    from jtorch.distributions.multivariate_normal import _precision_to_scale_tril as got
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 4, 4))
    p = a @ a.transpose(0, 2, 1) + 4 * np.eye(4)
    res = []
    for T, f in ((jtorch, got), (torch, want)):
        x = T.tensor(p, requires_grad=True)
        lower = f(x)
        (lower * T.arange(16.0, dtype=T.float64).reshape(4, 4)).sum().backward()
        res.append((lower.detach().numpy(), x.grad.numpy()))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-10, atol=1e-12)
    assert np.allclose(np.triu(res[0][0], 1), 0)


def test_cuda_nvtx():
    # asdl (imported by laplace.curvature) does `from torch.cuda import nvtx` (ImportError)
    from jtorch.cuda import nvtx
    assert set(nvtx.__all__) == set(torch.cuda.nvtx.__all__)
    if jtorch.cuda.is_available():
        assert nvtx.range_push("a") == 0 and nvtx.range_push("b") == 1
        assert nvtx.range_pop() == 1 and nvtx.range_pop() == 0
        with nvtx.range("step {}", 3):
            nvtx.mark("m")
        return
    for fn in ((lambda n: n.range_push("a")), (lambda n: n.mark("m")),
               (lambda n: n.range("r").__enter__())):
        for n in (nvtx, torch.cuda.nvtx):
            with pytest.raises(RuntimeError, match="NVTX functions not installed"):
                fn(n)


class _Identity:
    @staticmethod
    def forward(ctx, *args):
        return args

    @staticmethod
    def backward(ctx, *grads):
        return tuple(2 * g for g in grads)


def _function(T):
    return type("Identity", (T.autograd.Function,), dict(vars(_Identity)))


@pytest.mark.parametrize("view", [False, True])
def test_function_output_of_input_shares_storage(view):
    # BackPACK keys what it backpropagates by data_ptr(): a Flatten's output (a view) and the
    # next module's input after full backward hooks wrap both (a custom Function returning its
    # inputs) must have the same data_ptr, as in PyTorch, where such outputs are views
    res = []
    for T in (jtorch, torch):
        x = T.arange(12.0, dtype=T.float64).reshape(2, 2, 3).requires_grad_()
        h = x * 1.5
        inp = h.flatten(1) if view else h
        (out,) = _function(T).apply(inp)
        assert out is not inp
        assert out.data_ptr() == inp.data_ptr() == h.data_ptr()
        assert out._base is (h if view else inp), T.__name__
        (out * T.arange(out.numel(), dtype=T.float64).reshape(out.shape)).sum().backward()
        res.append((out.detach().numpy(), x.grad.numpy()))
    np.testing.assert_array_equal(res[0][0], res[1][0])
    np.testing.assert_array_equal(res[0][1], res[1][1])


def test_full_backward_hooks_keep_data_ptr_across_modules():
    # the Flatten -> Linear hand-over BackPACK's second-order extensions rely on
    res = []
    for T in (jtorch, torch):
        m = T.nn.Sequential(T.nn.Conv2d(1, 2, 3), T.nn.Flatten(), T.nn.Linear(8, 1)).double()
        with T.no_grad():
            for p in m.parameters():
                p.copy_(T.linspace(-0.5, 0.7, p.numel(), dtype=T.float64).reshape(p.shape))
        io, grads = {}, {}
        for mod in m:
            mod.register_forward_hook(
                lambda mod, i, o, io=io: io.__setitem__(type(mod).__name__, (i[0], o)))
            mod.register_full_backward_hook(
                lambda mod, gi, go, grads=grads: grads.__setitem__(type(mod).__name__, go[0]))
        x = T.tensor(np.linspace(-1, 1, 32).reshape(2, 1, 4, 4), requires_grad=True)
        m(x).sum().backward()
        conv, flat, lin = io["Conv2d"], io["Flatten"], io["Linear"]
        assert conv[1].data_ptr() == flat[0].data_ptr() == flat[1].data_ptr() \
            == lin[0].data_ptr(), T.__name__
        res.append([grads[k].numpy() for k in ("Conv2d", "Flatten", "Linear")]
                   + [m[0].weight.grad.numpy()])
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
