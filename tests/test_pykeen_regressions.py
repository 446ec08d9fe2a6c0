"""Regressions found by running PyKEEN unchanged under jtorch (scripts/real_drivers/pykeen_kge.py,
docs/real-programs.md): each test is a small stand-in for what the library did, in plain
torch-API code, run in jtorch and in real PyTorch."""

import numpy as np
import pytest
import torch

import jtorch


def _np(t):
    return np.asarray(t.detach().double().tolist())


def test_complex_and_polar_parts_by_keyword():
    # pykeen.nn.init.init_phases calls torch.complex(real=..., imag=...) (RotatE's relation
    # initializer): jtorch's argument check took the parts by position only (TypeError). And
    # polar's abs gradient is real(conj(grad) * sgn(result)): 0 at abs == 0, negated below 0
    re, im = np.array([0.5, -1.0, 2.0, 0.0]), np.array([1.5, 0.25, -3.0, 0.7])
    for T in (torch, jtorch):
        a, b = T.tensor(re, requires_grad=True), T.tensor(im, requires_grad=True)
        outs = [T.complex(real=a, imag=b), T.complex(a, imag=b), T.polar(abs=a, angle=b)]
        got = [np.asarray(T.view_as_real(o).detach().tolist()) for o in outs]
        grads = T.autograd.grad(sum(T.view_as_real(o).sum() for o in outs), (a, b))
        if T is torch:
            want, want_grads = got, [_np(g) for g in grads]
        else:
            for g, w in zip(got, want):
                np.testing.assert_allclose(g, w, rtol=1e-12)
            for g, w in zip(grads, want_grads):
                np.testing.assert_allclose(_np(g), w, rtol=1e-12)
    with pytest.raises(TypeError, match="imag"):
        jtorch.complex(real=jtorch.ones(2), imag=1.0)


@pytest.mark.parametrize("in_dt,tgt_dt", [("float64", "float32"), ("float32", "float64"),
                                          ("float64", "float64")])
@pytest.mark.parametrize("extra", ["none", "weight", "pos_weight"])
def test_bce_with_logits_takes_the_targets_dtype(in_dt, tgt_dt, extra):
    # pykeen's LCWA loop passes float64 scores with one_hot(...).float() labels: PyTorch's loss
    # ((1 - target).mul_(input).sub_(...)) is float32, rounded at each step; jtorch cast the
    # target up and returned a float64 loss (3e-8 off PyTorch's float64 run of ConvE)
    rng = np.random.default_rng(0)
    x, t = rng.standard_normal((6, 5)) * 3, rng.random((6, 5))
    w, pw = rng.random(5), rng.random(5) * 3
    res = []
    for T in (torch, jtorch):
        xi = T.tensor(x, dtype=getattr(T, in_dt), requires_grad=True)
        kw = {}
        if extra == "weight":
            kw["weight"] = T.tensor(w, dtype=T.float32)
        elif extra == "pos_weight":  # (a float32 one with float64 input: its gradient is
            # PyTorch's pos_weight * target in float64, the loss rounds pos_weight - 1 to float32)
            kw["pos_weight"] = T.tensor(pw, dtype=getattr(T, in_dt))
        ti = T.tensor(t, dtype=getattr(T, tgt_dt))
        per = T.nn.functional.binary_cross_entropy_with_logits(xi, ti, reduction="none", **kw)
        mean = T.nn.functional.binary_cross_entropy_with_logits(xi, ti, **kw)
        g, = T.autograd.grad(mean, xi)
        res.append((str(per.dtype), str(mean.dtype), str(g.dtype), _np(per), _np(mean), _np(g)))
    (pd, md, gd, p, m, g), (jpd, jmd, jgd, jp, jm, jg) = res
    assert (jpd, jmd, jgd) == (pd, md, gd) == (pd, f"torch.{tgt_dt}", f"torch.{in_dt}")
    tol = 1e-12 if tgt_dt == in_dt == "float64" else 3e-7  # log_sigmoid's last float32 bit
    np.testing.assert_allclose(jp, p, rtol=tol, atol=tol)
    np.testing.assert_allclose(jm, m, rtol=tol, atol=tol)
    np.testing.assert_allclose(jg, g, rtol=tol, atol=tol)
