"""torch._foreach_* against PyTorch 2.13: every op's values (out of place and in place), each
overload of the second operand, gradients, the returned objects, the errors, and compile."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from helpers import raises_like

import jtorch
from jtorch._ops.foreach import UNARY

SHAPES = [(3,), (2, 4), ()]


def _lists(seed=0, low=0.2, high=2.0, dtype=np.float32, shapes=SHAPES):
    """Three tensor lists of arrays (positive: every unary op is defined on them)."""
    rng = np.random.default_rng(seed)
    return [[rng.uniform(low, high, s).astype(dtype) for s in shapes] for _ in range(3)]


def _make(lib, arrays, requires_grad=False):
    return [lib.tensor(a, requires_grad=requires_grad) for a in arrays]


def _np(ts):
    return [t.detach().numpy() for t in ts]


@pytest.mark.parametrize("name", UNARY)
def test_unary_ops_match_torch_out_of_place_and_in_place(name):
    arrays = _lists(1, 0.2, 0.9)
    for suffix in ("", "_"):
        got = {}
        for lib in (torch, jtorch):
            ts = _make(lib, arrays[0])
            out = getattr(lib, f"_foreach_{name}{suffix}")(ts)
            if suffix:
                assert out is ts
            else:
                assert isinstance(out, tuple) and len(out) == len(ts)
            got[lib] = _np(out)
        for a, b in zip(got[jtorch], got[torch]):
            np.testing.assert_allclose(a, b, rtol=2e-6, atol=1e-7)


BINARY_CASES = [
    # (op, second operand as a function of (lib, tensor list b), extra kwargs)
    ("add", lambda lib, b: 1.5, {}),
    ("add", lambda lib, b: [1, 2.5, -3], {}),
    ("add", lambda lib, b: b, {"alpha": -2}),
    ("add", lambda lib, b: lib.tensor(0.25), {"alpha": 3}),
    ("sub", lambda lib, b: 2, {}),
    ("sub", lambda lib, b: b, {"alpha": 0.5}),
    ("sub", lambda lib, b: [0.5, 1, 2], {}),
    ("sub", lambda lib, b: lib.tensor(1.0), {}),
    ("mul", lambda lib, b: 0.3, {}),
    ("mul", lambda lib, b: b, {}),
    ("mul", lambda lib, b: lib.tensor(-2.0), {}),
    ("div", lambda lib, b: [3, 0.5, 7], {}),
    ("div", lambda lib, b: b, {}),
    ("clamp_max", lambda lib, b: 1.0, {}),
    ("clamp_max", lambda lib, b: b, {}),
    ("clamp_min", lambda lib, b: [0.5, 1.0, 1.5], {}),
    ("maximum", lambda lib, b: b, {}),
    ("maximum", lambda lib, b: 1.1, {}),
    ("minimum", lambda lib, b: [0.5, 1.0, 1.5], {}),
    ("minimum", lambda lib, b: b, {}),
    ("pow", lambda lib, b: 2.5, {}),
    ("pow", lambda lib, b: b, {}),
    ("pow", lambda lib, b: [1, 2, 3], {}),
]


@pytest.mark.parametrize("name,operand,kwargs", BINARY_CASES)
def test_binary_ops_match_torch_in_values_gradients_and_in_place(name, operand, kwargs):
    a_arr, b_arr, _ = _lists(2)
    got = {}
    for lib in (torch, jtorch):
        a = _make(lib, a_arr, requires_grad=True)
        b = _make(lib, b_arr, requires_grad=True)
        out = getattr(lib, f"_foreach_{name}")(a, operand(lib, b), **kwargs)
        assert isinstance(out, tuple)
        sum((o * (i + 1)).sum() for i, o in enumerate(out)).backward()
        grads = [t.grad for t in a + b]
        # in place, on copies that need no grad
        c = [t.detach().clone() for t in a]
        assert getattr(lib, f"_foreach_{name}_")(c, operand(lib, [t.detach() for t in b]),
                                                  **kwargs) is c
        got[lib] = (_np(out), [None if g is None else g.numpy() for g in grads], _np(c))
    for part in range(3):
        for x, y in zip(got[jtorch][part], got[torch][part]):
            if y is None:
                assert x is None
                continue
            assert x.dtype == y.dtype
            np.testing.assert_allclose(x, y, rtol=2e-6, atol=1e-7)


def test_keyword_forms_and_nan_handling_match_torch():
    nan = math.nan
    vals = [np.array([1.0, nan, -2.0], np.float32), np.array([nan, 0.5], np.float32)]
    others = [np.array([nan, 1.0, 3.0], np.float32), np.array([0.0, nan], np.float32)]
    got = {}
    for lib in (torch, jtorch):
        a, b = _make(lib, vals), _make(lib, others)
        got[lib] = [
            *lib._foreach_maximum(a, other=b), *lib._foreach_minimum(a, b),
            *lib._foreach_maximum(a, nan), *lib._foreach_clamp_min(a, scalar=0.0),
            *lib._foreach_mul(a, scalars=[2, 3]), *lib._foreach_add(a, other=b, alpha=2),
            *lib._foreach_lerp(a, b, weights=[lib.tensor([0.5, 0.25, 1.0]), lib.tensor(0.1)]),
            *lib._foreach_lerp(a, b, 0.3), *lib._foreach_lerp(a, b, [0.2, 0.9]),
        ]
    for x, y in zip(got[jtorch], got[torch]):
        np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=1e-6)


@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
@pytest.mark.parametrize("form", ["default", "value", "scalars", "tensor"])
def test_addcmul_addcdiv_match_torch(name, form):
    """Values against PyTorch's foreach op; gradients against its single-tensor op, which its
    CPU foreach kernels run (PyTorch 2.13's own foreach backward fails here: "select(): index
    2 out of range" for addcdiv, and no derivative for the tensor-of-scalars form)."""
    arrays = _lists(3)
    got = {}
    for lib in (torch, jtorch):
        a, b, c = (_make(lib, x, requires_grad=True) for x in arrays)
        args = args_of(form, lib)
        with lib.no_grad():
            out = getattr(lib, f"_foreach_{name}")(a, b, c, *args)
        d = [t.detach().clone() for t in a]
        assert getattr(lib, f"_foreach_{name}_")(
            d, [t.detach() for t in b], [t.detach() for t in c], *args) is d
        got[lib] = [*_np(out), *_np(d)]
    values = {"default": [1] * 3, "value": [0.5] * 3, "scalars": [2, -1, 0.5],
              "tensor": [2.0, -1.0, 0.5]}[form]
    grads = {}
    for lib in (torch, jtorch):
        a, b, c = (_make(lib, x, requires_grad=True) for x in arrays)
        if lib is torch:
            out = [getattr(torch, name)(x, y, z, value=v) for x, y, z, v in zip(a, b, c, values)]
        else:
            out = getattr(jtorch, f"_foreach_{name}")(a, b, c, *args_of(form, jtorch))
        sum(o.sum() for o in out).backward()
        grads[lib] = [t.grad.numpy() for t in a + b + c]
    for x, y in zip(got[jtorch] + grads[jtorch], got[torch] + grads[torch]):
        np.testing.assert_allclose(x, y, rtol=2e-6, atol=1e-7)


def args_of(form, lib):
    return {"default": (), "value": (0.5,), "scalars": ([2, -1, 0.5],),
            "tensor": (lib.tensor([2.0, -1.0, 0.5]),)}[form]


@pytest.mark.parametrize("ord", [2, 1, 3, math.inf, 0])
def test_norm_and_powsum_match_torch(ord):
    arrays = _lists(4, -2.0, 2.0)
    got = {}
    for lib in (torch, jtorch):
        a = _make(lib, arrays[0], requires_grad=True)
        norms = lib._foreach_norm(a, ord)
        powsums = lib._foreach_powsum(a, ord)
        sum(n for n in norms).backward()
        # (ord 0: PyTorch leaves .grad None, as for linalg.vector_norm; jtorch gives zeros)
        got[lib] = [*_np(norms), *_np(powsums), *(t.grad.numpy() for t in a if ord != 0),
                    *_np(lib._foreach_norm(a, ord, dtype=lib.float64))]
    for x, y in zip(got[jtorch], got[torch]):
        assert x.dtype == y.dtype
        np.testing.assert_allclose(x, y, rtol=2e-6)


def test_max_mm_clone_copy_zero_and_scalar_pow_match_torch():
    rng = np.random.default_rng(5)
    mats = [rng.standard_normal(s).astype(np.float32) for s in ((2, 3), (4, 4))]
    rights = [rng.standard_normal(s).astype(np.float32) for s in ((3, 5), (4, 1))]
    got = {}
    for lib in (torch, jtorch):
        m, r = _make(lib, mats), _make(lib, rights)
        out = [*lib._foreach_max(m), *lib._foreach_mm(m, r), *lib._foreach_pow(2.0, r)]
        clones = lib._foreach_clone(m)
        assert all(c is not t for c, t in zip(clones, m))
        copied = [lib.zeros_like(t) for t in m]
        assert lib._foreach_copy_(copied, m) is copied
        zeroed = [t.clone() for t in r]
        assert lib._foreach_zero_(zeroed) is zeroed
        got[lib] = [*_np(out), *_np(clones), *_np(copied), *_np(zeroed)]
    for x, y in zip(got[jtorch], got[torch]):
        np.testing.assert_allclose(x, y, rtol=1e-6)


def test_dtypes_promote_and_refuse_as_torch():
    for lib in (torch, jtorch):
        ints = [lib.tensor([1, 2]), lib.tensor([3])]
        assert [t.dtype for t in lib._foreach_add(ints, 1.5)] == [lib.float32] * 2
        mixed = lib._foreach_add([lib.ones(2), lib.ones(3, dtype=lib.float64)],
                                 [lib.ones(2, dtype=lib.float64), lib.ones(3, dtype=lib.int64)])
        assert [str(t.dtype) for t in mixed] == ["torch.float64", "torch.float64"]
    raises_like(lambda: torch._foreach_add_([torch.tensor([1, 2])], 1.5),
                lambda: jtorch._foreach_add_([jtorch.tensor([1, 2])], 1.5))
    raises_like(lambda: torch._foreach_powsum([torch.tensor([1, 2])]),
                lambda: jtorch._foreach_powsum([jtorch.tensor([1, 2])]))
    raises_like(lambda: torch._foreach_norm([torch.tensor([1, 2])]),
                lambda: jtorch._foreach_norm([jtorch.tensor([1, 2])]))


ERROR_CASES = [
    lambda lib, a: lib._foreach_add([], 1),
    lambda lib, a: lib._foreach_exp(()),
    lambda lib, a: lib._foreach_add(a, [lib.ones(2)]),
    lambda lib, a: lib._foreach_add(a, [1.0]),
    lambda lib, a: lib._foreach_mul(a, "x"),
    lambda lib, a: lib._foreach_add(a, scalar=[1, 2]),
    lambda lib, a: lib._foreach_add(a, 1, alpha=2),
    lambda lib, a: lib._foreach_div(a, a, alpha=2),
    lambda lib, a: lib._foreach_add(lib.ones(2), 1),
    lambda lib, a: lib._foreach_add(a, [1, lib.ones(2)]),
    lambda lib, a: lib._foreach_exp([lib.ones(2), 3]),
    lambda lib, a: lib._foreach_mul(a, lib.tensor([1.0, 2.0])),
    lambda lib, a: lib._foreach_add(a, [lib.ones(2), lib.ones(2)]),
    lambda lib, a: lib._foreach_lerp(a, a, [0.5]),
    lambda lib, a: lib._foreach_addcmul(a, a, a, lib.tensor([2.0, 3.0, 4.0])),
    lambda lib, a: lib._foreach_addcmul(a, a, a, [2, 3, 4]),
    lambda lib, a: lib._foreach_max([lib.ones(0)]),
    lambda lib, a: lib._foreach_mm(a, a),
]


@pytest.mark.parametrize("case", range(len(ERROR_CASES)))
def test_errors_match_torch(case):
    fn = ERROR_CASES[case]
    raises_like(lambda: fn(torch, [torch.ones(2), torch.arange(3.0)]),
                lambda: fn(jtorch, [jtorch.ones(2), jtorch.arange(3.0)]))


def test_model_ema_update_compiles_to_the_eager_values():
    """timm's ModelEmaV3 step (``_foreach_lerp_`` of the EMA weights towards the model's), and
    a foreach SGD-with-momentum step, compiled equal eager."""
    arrays = _lists(6)

    def step(ema, weights, bufs, grads):
        jtorch._foreach_lerp_(ema, weights, 0.1)
        jtorch._foreach_mul_(bufs, 0.9)
        jtorch._foreach_add_(bufs, grads)
        jtorch._foreach_add_(weights, bufs, alpha=-0.01)

    results = []
    for run in (step, jtorch.compile(step)):
        ema, weights, bufs = (_make(jtorch, a) for a in arrays)
        grads = [jtorch.ones_like(t) for t in weights]
        for _ in range(3):
            run(ema, weights, bufs, grads)
        results.append(_np(ema) + _np(weights) + _np(bufs))
    for x, y in zip(*results):   # (one program may fuse a multiply-add: rounding apart)
        np.testing.assert_allclose(x, y, rtol=1e-6)
