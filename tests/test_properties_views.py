"""Hypothesis: random shapes, random chains of view ops and an in-place write through the last
view give the same base, the same view values and the same strides/offsets as PyTorch.

PyTorch is the oracle for validity: when it refuses a step (a view that needs a copy, a write
to an expanded view), jtorch must refuse it with the same exception type."""

import numpy as np
import torch
from hypothesis import HealthCheck, given, settings, strategies as st

import jtorch


def _dims(draw, n, k=1):
    return [draw(st.integers(-n, n - 1)) for _ in range(k)]


def draw_step(draw, shape):
    """One view op as (name, fn(T, x)) valid or not for ``shape`` (torch decides)."""
    n = len(shape)
    choices = ["unsqueeze", "view", "flatten", "expand"]
    if n:
        choices += ["select", "narrow", "squeeze", "movedim", "split", "chunk", "unbind",
                    "tensor_split", "unfold", "unflatten", "permute", "transpose"]
    if n <= 2:
        choices.append("t")
    if n >= 2:
        choices += ["diagonal", "mT"]
    name = draw(st.sampled_from(choices))
    if name == "unsqueeze":
        d = draw(st.integers(-n - 1, n))
        return f"unsqueeze({d})", lambda T, x: x.unsqueeze(d)
    if name == "view":
        numel = int(np.prod(shape))
        sizes = [s for s in range(1, 7) if numel and numel % s == 0] or [0]
        a = draw(st.sampled_from(sizes))
        new = (a, -1) if numel else (a, 2, 0)
        return f"view{new}", lambda T, x: x.view(*new)
    if name == "flatten":
        s, e = _dims(draw, max(n, 1), 2)
        return f"flatten({s}, {e})", lambda T, x: x.flatten(s, e)
    if name == "expand":
        new = [draw(st.sampled_from([s, -1] if s != 1 else [1, 2, 3, -1])) for s in shape]
        lead = draw(st.lists(st.integers(1, 2), max_size=1))
        new = tuple(lead + new)
        return f"expand{new}", lambda T, x: x.expand(*new)
    if name == "t":
        return "t()", lambda T, x: x.t()
    if name == "mT":
        return "mT", lambda T, x: x.mT
    (d,) = _dims(draw, n)
    size = shape[d]
    if name == "select":
        i = draw(st.integers(-size - 1, size))
        return f"select({d}, {i})", lambda T, x: x.select(d, i)
    if name == "narrow":
        start = draw(st.integers(-size, size))
        length = draw(st.integers(0, size))
        return f"narrow({d}, {start}, {length})", lambda T, x: x.narrow(d, start, length)
    if name == "squeeze":
        arg = draw(st.sampled_from([None, d, (d,)]))
        return f"squeeze({arg})", (lambda T, x: x.squeeze()) if arg is None else \
            (lambda T, x: x.squeeze(arg))
    if name == "movedim":
        (e,) = _dims(draw, n)
        return f"movedim({d}, {e})", lambda T, x: x.movedim(d, e)
    if name == "permute":
        perm = tuple(draw(st.permutations(range(n))))
        return f"permute{perm}", lambda T, x: x.permute(*perm)
    if name == "transpose":
        (e,) = _dims(draw, n)
        return f"transpose({d}, {e})", lambda T, x: x.transpose(d, e)
    if name in ("split", "chunk", "tensor_split"):
        k = draw(st.integers(1, 3))
        j = draw(st.integers(0, 3))

        def piece(T, x, name=name, k=k, j=j, d=d):
            out = getattr(x, name)(k, d)
            return out[j % len(out)]
        return f"{name}({k}, {d})[{j}]", piece
    if name == "unbind":
        j = draw(st.integers(0, 3))
        return f"unbind({d})[{j}]", lambda T, x: x.unbind(d)[j % max(size, 1)]
    if name == "unfold":
        w = draw(st.integers(0, size + 1))
        step = draw(st.integers(max(w, 1), max(w, 1) + 1))  # non-overlapping windows
        return f"unfold({d}, {w}, {step})", lambda T, x: x.unfold(d, w, step)
    if name == "unflatten":
        a = draw(st.sampled_from([s for s in (1, 2, 3) if size % s == 0] or [1]))
        return f"unflatten({d}, ({a}, -1))", lambda T, x: x.unflatten(d, (a, -1))
    off = draw(st.integers(-2, 2))
    (e,) = _dims(draw, n)
    return f"diagonal({off}, {d}, {e})", lambda T, x: x.diagonal(off, d, e)


def _run(T, fn, *args):
    try:
        return fn(T, *args), None
    except (RuntimeError, IndexError, ValueError, TypeError) as e:
        return None, e


def _check_same_failure(te, je, what):
    assert (te is None) == (je is None), f"{what}: torch {te!r} vs jtorch {je!r}"
    if te is not None:
        assert type(je) is type(te), f"{what}: {type(je).__name__} vs {type(te).__name__}: {je}"


def _geom_equal(j, t, what):
    assert tuple(j.shape) == tuple(t.shape), what
    assert tuple(j.stride()) == tuple(t.stride()), f"{what}: {j.stride()} vs {t.stride()}"
    assert j.storage_offset() == t.storage_offset(), what
    assert j.is_contiguous() == t.is_contiguous(), what


@st.composite
def chains(draw):
    shape = tuple(draw(st.lists(st.integers(0, 3), min_size=0, max_size=3)))
    return shape, draw(st.data())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chains(), st.integers(1, 4))
def test_random_view_chains_then_write(case, length):
    shape, data = case
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    # (torch.tensor of an empty NumPy array may get stride 0: start from canonical strides)
    tb = torch.tensor(a).clone(memory_format=torch.contiguous_format)
    jb = jtorch.tensor(a)
    tv, jv = tb, jb
    desc = [f"base{shape}"]
    for _ in range(length):
        name, fn = draw_step(data.draw, tuple(tv.shape))
        desc.append(name)
        what = " -> ".join(desc)
        (tn, te), (jn, je) = _run(torch, fn, tv), _run(jtorch, fn, jv)
        _check_same_failure(te, je, what)
        if te is not None:
            break
        tv, jv = tn, jn
        _geom_equal(jv, tv, what)
    what = " -> ".join(desc) + " -> mul_(-2).add_(7)"
    _, te = _run(torch, lambda T, v: v.mul_(-2).add_(7), tv)
    _, je = _run(jtorch, lambda T, v: v.mul_(-2).add_(7), jv)
    _check_same_failure(te, je, what)
    np.testing.assert_array_equal(jb.numpy(), tb.numpy(), err_msg=what)
    np.testing.assert_array_equal(jv.numpy(), tv.numpy(), err_msg=what)
    assert jb._version == tb._version, what
    tb.add_(100), jb.add_(100)  # and the view sees writes to its base
    np.testing.assert_array_equal(jv.numpy(), tv.numpy(), err_msg=what + " -> base.add_")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chains(), st.integers(1, 3))
def test_random_view_chains_gradients(case, length):
    """Gradients through a chain of views of a non-leaf, written in place, match PyTorch
    (and so do the refusals: multi-output views and expanded views cannot be written)."""
    shape, data = case
    rng = np.random.default_rng(len(shape) * 7 + length)
    x = rng.uniform(-1, 1, shape).astype(np.float64)
    tx, jx = torch.tensor(x, requires_grad=True), jtorch.tensor(x, requires_grad=True)
    ta, ja = tx * 1, jx * 1
    tv, jv = ta, ja
    desc = [f"base{shape}"]
    for _ in range(length):
        name, fn = draw_step(data.draw, tuple(tv.shape))
        desc.append(name)
        (tn, te), (jn, je) = _run(torch, fn, tv), _run(jtorch, fn, jv)
        _check_same_failure(te, je, " -> ".join(desc))
        if te is not None:
            break
        tv, jv = tn, jn
    what = " -> ".join(desc)
    w = rng.uniform(-1, 1, tuple(tv.shape))
    _, te = _run(torch, lambda T, v: v.mul_(T.tensor(w)), tv)
    _, je = _run(jtorch, lambda T, v: v.mul_(T.tensor(w)), jv)
    _check_same_failure(te, je, what + " -> mul_")
    ca = rng.uniform(-1, 1, shape)
    cv = rng.uniform(-1, 1, tuple(tv.shape))
    for T, a, v in [(torch, ta, tv), (jtorch, ja, jv)]:
        ((a * T.tensor(ca)).sum() + (v * T.tensor(cv)).sum()).backward()
    np.testing.assert_allclose(jx.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-12,
                               err_msg=what)
