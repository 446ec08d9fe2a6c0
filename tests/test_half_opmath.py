"""float16 and bfloat16 ops compute as PyTorch's kernels do: in float32, rounded once to the
half type ("opmath"), with a Python number operand of mul/div at float32 precision and
reductions accumulated in float32. Each case runs in jtorch and in real PyTorch 2.13 and the
results must be equal bit for bit (before, a quarter to half of the elements of these ops were
a step off, and a bfloat16 sum of 19200 values was 6 off)."""

import numpy as np
import pytest
import torch

import jtorch

_A = np.random.default_rng(0).standard_normal((16, 64)).astype(np.float32)
_B = np.random.default_rng(1).standard_normal((16, 64)).astype(np.float32)


def _bits(t):
    return np.asarray(t.detach().double().tolist())


FORWARD = {
    "mul_scalar": lambda T, x, y: x * 0.7,
    "rmul_scalar": lambda T, x, y: 0.7 * x,
    "div_scalar": lambda T, x, y: x / 3.3,
    "rdiv_scalar": lambda T, x, y: 3.3 / x,
    "mul_0d_tensor": lambda T, x, y: x * T.tensor(0.7),
    "add_scalar": lambda T, x, y: x + 0.1,    # PyTorch rounds this scalar to the half type
    "add_alpha": lambda T, x, y: T.add(x, y, alpha=0.3),
    "sub_alpha": lambda T, x, y: T.sub(x, y, alpha=0.3),
    "addcmul": lambda T, x, y: x.addcmul(y, x, value=0.3),
    "addcdiv": lambda T, x, y: x.addcdiv(y, x.abs() + 1, value=0.3),
    "sigmoid": lambda T, x, y: x.sigmoid(),
    "tanh": lambda T, x, y: x.tanh(),
    "sqrt": lambda T, x, y: x.abs().sqrt(),
    "log1p": lambda T, x, y: x.abs().log1p(),
    "expm1": lambda T, x, y: x.expm1(),
    "asinh": lambda T, x, y: x.asinh(),
    "hypot": lambda T, x, y: T.hypot(x, y),
    "softplus": lambda T, x, y: T.nn.functional.softplus(x),
    "mish": lambda T, x, y: T.nn.functional.mish(x),
    "hardswish": lambda T, x, y: T.nn.functional.hardswish(x),
    "logsigmoid": lambda T, x, y: T.nn.functional.logsigmoid(x),
    "leaky_relu": lambda T, x, y: T.nn.functional.leaky_relu(x, 0.013),
    "elu": lambda T, x, y: T.nn.functional.elu(x),
    "sum": lambda T, x, y: x.sum(),
    "sum_dim": lambda T, x, y: x.sum(1),
    "var": lambda T, x, y: x.var(1),
    "std": lambda T, x, y: x.std(1),
    "norm": lambda T, x, y: x.norm(dim=1),
    "cumsum": lambda T, x, y: x.cumsum(1),
    "softmax": lambda T, x, y: x.softmax(1),
    # along the last dim PyTorch's kernel rounds the sum of exponentials and its log first
    "log_softmax_last": lambda T, x, y: x.log_softmax(1),
    "log_softmax_first": lambda T, x, y: x.log_softmax(0),
    "log_softmax_middle": lambda T, x, y: x.view(4, 4, 64).log_softmax(1),
    "cross_entropy_logp": lambda T, x, y: T.nn.functional.cross_entropy(
        x, T.arange(16), reduction="none"),
    "normalize": lambda T, x, y: T.nn.functional.normalize(x, dim=1),
    "cosine_similarity": lambda T, x, y: T.nn.functional.cosine_similarity(x, y),
    # PyTorch's float32 epsilon for half inputs, the weight applied before the one rounding
    "rms_norm": lambda T, x, y: T.nn.functional.rms_norm(x, (64,)),
    "rms_norm_weight": lambda T, x, y: T.nn.functional.rms_norm(x, (64,), y[0]),
    # gemm: float32 accumulation, beta * input + alpha * product rounded once
    "addmm": lambda T, x, y: T.addmm(x[:, :16], x, y.t()),
    "addmm_alpha_beta": lambda T, x, y: T.addmm(x[:, :16], x, y.t(), beta=0.5, alpha=0.3),
    "addmv": lambda T, x, y: T.addmv(x[:, 0], x, y[0]),   # (alpha != 1: gemv's own order)
    "baddbmm": lambda T, x, y: T.baddbmm(x.view(4, 4, 64)[:, :, :4], x.view(4, 4, 64),
                                         y.view(4, 4, 64).transpose(1, 2), beta=0.5, alpha=0.25),
    "avg_pool2d": lambda T, x, y: T.nn.functional.avg_pool2d(x.view(2, 2, 16, 16), 3, 2, 1),
    "adaptive_avg_pool2d": lambda T, x, y: T.nn.functional.adaptive_avg_pool2d(
        x.view(2, 2, 16, 16), (5, 3)),
}


def _run(T, dtype, f, grad=False):
    dt = getattr(T, dtype)
    x = T.tensor(_A).to(dt).requires_grad_(grad)
    y = T.tensor(_B).to(dt).requires_grad_(grad)
    out = f(T, x, y)
    if not grad:
        return _bits(out), None
    g = T.tensor(np.random.default_rng(2).standard_normal(tuple(out.shape)).astype(np.float32))
    out.backward(g.to(dt))
    return _bits(out), [None if v.grad is None else _bits(v.grad) for v in (x, y)]


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("name", sorted(FORWARD))
def test_half_values_equal_pytorchs(name, dtype):
    ours, _ = _run(jtorch, dtype, FORWARD[name])
    theirs, _ = _run(torch, dtype, FORWARD[name])
    if name.startswith("addmm"):
        # PyTorch's half addmm sums the float32 products in its CPU's BLAS order: equal bits
        # on the Xeon of 2026-11-30, one element of 256 a half-step apart on another
        # (2026-12-01): at most one step of the result's type
        step = np.spacing(np.abs(theirs).astype(getattr(np, dtype, np.float32)))
        assert np.all(np.abs(ours - theirs) <= step.astype(np.float64) * (1 + 1e-6))
        assert np.mean(ours != theirs) <= 0.01
        return
    np.testing.assert_array_equal(ours, theirs)


# ops whose PyTorch backward is a kernel of its own computing in float32 (or a single op): the
# gradients are equal bit for bit too
# (tanh's, sqrt's, sigmoid's and (log_)softmax's from the rounded output; float16 sigmoid's in
# float16 steps; float16 softmax's is 11 of 19200 values off)
GRADIENTS = [(name, dtype) for name in ("mul_scalar", "div_scalar", "softplus", "leaky_relu",
                                        "cumsum", "tanh", "sqrt", "rms_norm", "rms_norm_weight",
                                        "log_softmax_last", "log_softmax_first")
             for dtype in ("bfloat16", "float16")] + [("sigmoid", "bfloat16"),
                                                      ("sigmoid", "float16"),
                                                      ("softmax", "bfloat16")]


@pytest.mark.parametrize("name,dtype", GRADIENTS)
def test_half_gradients_equal_pytorchs(name, dtype):
    ours, ours_grads = _run(jtorch, dtype, FORWARD[name], grad=True)
    theirs, their_grads = _run(torch, dtype, FORWARD[name], grad=True)
    np.testing.assert_array_equal(ours, theirs)
    for a, b in zip(ours_grads, their_grads):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_array_equal(a, b)


def test_half_sum_with_float32_dtype_keeps_float32():
    # opmath rounds outputs to the dtype the op gives the half input: here float32
    for T in (jtorch, torch):
        x = T.tensor(_A).to(T.bfloat16)
        assert x.sum(dtype=T.float32).dtype == T.float32
    ours = jtorch.tensor(_A).bfloat16().sum(dtype=jtorch.float32)
    theirs = torch.tensor(_A).bfloat16().sum(dtype=torch.float32)
    np.testing.assert_allclose(float(ours), float(theirs), rtol=1e-6)


def test_half_mixed_with_float32_promotes_as_pytorch():
    # a float32 tensor of one or more dims promotes: no half computation at all
    for dtype in ("bfloat16", "float16"):
        ours = jtorch.tensor(_A).to(getattr(jtorch, dtype)) * jtorch.tensor(_B)
        theirs = torch.tensor(_A).to(getattr(torch, dtype)) * torch.tensor(_B)
        assert str(ours.dtype) == str(theirs.dtype) == "torch.float32"
        np.testing.assert_array_equal(_bits(ours), _bits(theirs))


def test_rms_norm_returns_the_inputs_dtype():
    for T in (jtorch, torch):
        x = T.tensor(_A).to(T.bfloat16)
        assert T.nn.functional.rms_norm(x, (64,), T.ones(64)).dtype == T.bfloat16
