"""nn.utils clip_grad / convert_parameters against PyTorch on the same gradients."""

import math
import warnings

import jax
import numpy as np
import pytest
import torch
from helpers import assert_close, raises_like

import jtorch

SHAPES = [(3, 4), (5,), (), (2, 2, 2)]


def _params(lib, dtypes=None, scale=1.0, seed=0):
    rng = np.random.default_rng(seed)
    ps = []
    for i, s in enumerate(SHAPES):
        dt = (dtypes or [np.float32] * len(SHAPES))[i]
        p = lib.nn.Parameter(lib.tensor(rng.uniform(-1, 1, s).astype(dt)))
        p.grad = lib.tensor((rng.uniform(-2, 2, s) * scale).astype(dt))
        ps.append(p)
    return ps


def _same_grads(jps, tps):
    for j, t in zip(jps, tps):
        assert_close(j.grad, t.grad, msg="grad")


@pytest.mark.parametrize("norm_type", [2.0, 1, 3.5, math.inf, "inf", -math.inf, 0])
@pytest.mark.parametrize("max_norm", [0.5, 1e3])
def test_clip_grad_norm(norm_type, max_norm):
    tps, jps = _params(torch), _params(jtorch)
    tn = torch.nn.utils.clip_grad_norm_(tps, max_norm, norm_type)
    jn = jtorch.nn.utils.clip_grad_norm_(jps, max_norm, norm_type)
    assert_close(jn, tn, msg="total norm")
    _same_grads(jps, tps)


def test_clip_grad_norm_mixed_dtypes_single_tensor_and_generator():
    dts = [np.float32, np.float64, np.float32, np.float64]
    tps, jps = _params(torch, dts), _params(jtorch, dts)
    assert_close(jtorch.nn.utils.clip_grad_norm_(iter(jps), 1.0),
                 torch.nn.utils.clip_grad_norm_(iter(tps), 1.0))
    _same_grads(jps, tps)
    tps, jps = _params(torch), _params(jtorch)
    assert_close(jtorch.nn.utils.clip_grad_norm_(jps[0], 0.1),
                 torch.nn.utils.clip_grad_norm_(tps[0], 0.1))
    _same_grads(jps, tps)


def test_clip_grad_norm_no_grads_and_empty_generator():
    p = jtorch.nn.Parameter(jtorch.ones(3))
    out = jtorch.nn.utils.clip_grad_norm_([p], 1.0)
    assert_close(out, torch.nn.utils.clip_grad_norm_([torch.nn.Parameter(torch.ones(3))], 1.0))
    with pytest.warns(UserWarning, match="empty generator"):
        jtorch.nn.utils.clip_grad_norm_((q for q in []), 1.0)


def test_clip_grad_norm_nonfinite():
    tps, jps = _params(torch), _params(jtorch)
    with torch.no_grad():
        tps[1].grad[0] = float("inf")
    with jtorch.no_grad():
        jps[1].grad[0] = float("inf")
    before = [p.grad.numpy().copy() for p in jps]
    raises_like(lambda: torch.nn.utils.clip_grad_norm_(tps, 1.0, error_if_nonfinite=True),
                lambda: jtorch.nn.utils.clip_grad_norm_(jps, 1.0, error_if_nonfinite=True))
    for b, p in zip(before, jps):  # grads untouched when it raises
        np.testing.assert_array_equal(p.grad.numpy(), b)
    # without the flag, the grads are scaled by the non-finite norm, as in PyTorch
    assert_close(jtorch.nn.utils.clip_grad_norm_(jps, 1.0),
                 torch.nn.utils.clip_grad_norm_(tps, 1.0))
    _same_grads(jps, tps)


def test_get_total_norm_and_clip_grads_with_norm():
    tps, jps = _params(torch), _params(jtorch)
    tn = torch.nn.utils.get_total_norm([p.grad for p in tps], 3.0)
    jn = jtorch.nn.utils.get_total_norm([p.grad for p in jps], 3.0)
    assert_close(jn, tn)
    torch.nn.utils.clip_grads_with_norm_(tps, 0.3, tn)
    jtorch.nn.utils.clip_grads_with_norm_(jps, 0.3, jn)
    _same_grads(jps, tps)
    assert_close(jtorch.nn.utils.get_total_norm([]), torch.nn.utils.get_total_norm([]))


def test_clip_grad_value():
    tps, jps = _params(torch), _params(jtorch)
    assert torch.nn.utils.clip_grad_value_(tps, 0.7) is None
    assert jtorch.nn.utils.clip_grad_value_(jps, 0.7) is None
    _same_grads(jps, tps)


def test_clip_grad_norm_deprecated_alias():
    tps, jps = _params(torch), _params(jtorch)
    with warnings.catch_warnings(record=True) as tw:
        warnings.simplefilter("always")
        tn = torch.nn.utils.clip_grad_norm(tps, 1.0)
    with pytest.warns(FutureWarning) as jw:
        jn = jtorch.nn.utils.clip_grad_norm(jps, 1.0)
    assert str(jw[0].message) == str(tw[0].message)
    assert_close(jn, tn)


def test_clip_grad_norm_under_jit():
    """The total norm and clipping run on traced gradients (error_if_nonfinite is skipped)."""
    jps = _params(jtorch)
    grads = [p.grad._value for p in jps]

    def step(gs):
        ps = [jtorch.nn.Parameter(jtorch.Tensor._make(g)) for g in gs]
        for p, g in zip(ps, gs):
            p.grad = jtorch.Tensor._make(g)
        n = jtorch.nn.utils.clip_grad_norm_(ps, 0.5, error_if_nonfinite=True)
        return n._value, [p.grad._value for p in ps]

    n, new = jax.jit(step)(grads)
    en = jtorch.nn.utils.clip_grad_norm_(jps, 0.5)
    np.testing.assert_allclose(np.asarray(n), en.numpy(), rtol=1e-6)
    for a, p in zip(new, jps):
        np.testing.assert_allclose(np.asarray(a), p.grad.numpy(), rtol=1e-6)


def test_parameters_to_vector_roundtrip_and_grad():
    tps, jps = _params(torch), _params(jtorch)
    tv = torch.nn.utils.parameters_to_vector(tps)
    jv = jtorch.nn.utils.parameters_to_vector(jps)
    assert_close(jv, tv)
    cot = np.random.default_rng(1).uniform(-1, 1, tuple(tv.shape)).astype(np.float32)
    for p in tps + jps:
        p.grad = None
    (tv * torch.tensor(cot)).sum().backward()
    (jv * jtorch.tensor(cot)).sum().backward()
    _same_grads(jps, tps)
    new = np.arange(tv.numel(), dtype=np.float32)
    torch.nn.utils.vector_to_parameters(torch.tensor(new), tps)
    jtorch.nn.utils.vector_to_parameters(jtorch.tensor(new), jps)
    for j, t in zip(jps, tps):
        assert_close(j.detach(), t.detach())
    raises_like(lambda: torch.nn.utils.vector_to_parameters(new, tps),
                lambda: jtorch.nn.utils.vector_to_parameters(new, jps))
