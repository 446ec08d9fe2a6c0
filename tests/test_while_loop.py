"""torch.while_loop against PyTorch 2.13: values and gradients in eager mode (a Python loop on
the tape), jtorch.compile(fullgraph=True) (a traced loop lowers to jax.lax.while_loop) equal to
eager, torch.func.vmap, and the errors PyTorch raises (type and first line)."""

import re

import numpy as np
import pytest
import torch
from helpers import assert_close, raises_like, rand

import jtorch


def _counter(T):
    return (lambda i, x: i < 5, lambda i, x: (i + 1, x * 2 + i), (T.tensor(0), T.ones(3)))


def _int_counter(T):
    return (lambda i, x: 2 * i < x.shape[0], lambda i, x: (i + 1, x + i), (0, T.ones(6)))


def _accumulate(T):
    return (lambda s, acc, x: s.sum() < 10.0,
            lambda s, acc, x: (s + x.abs(), acc + s.mean(), x.cos()),
            (T.zeros(2), T.tensor(0.0), T.tensor([0.5, -1.5])))


def _pytree(T):
    return (lambda i, d: i < 3,
            lambda i, d: (i + 1, {"a": d["a"] * 2, "b": [d["b"][0] + d["a"].sum()]}),
            (T.tensor(0), {"a": T.ones(2), "b": [T.zeros(1)]}))


def _zero_iterations(T):
    return (lambda x: x.sum() > 3, lambda x: (x + 1,), (T.zeros(2),))


LOOPS = [_counter, _int_counter, _accumulate, _pytree, _zero_iterations]


def _same(j, t):
    jl, tl = jtorch.utils._pytree.tree_leaves(j), torch.utils._pytree.tree_leaves(t)
    assert len(jl) == len(tl)
    for a, b in zip(jl, tl):
        if isinstance(b, int):
            assert int(a) == b
        else:
            assert_close(a, b, atol=1e-6)


@pytest.mark.parametrize("loop", LOOPS)
def test_values_eager_and_compiled(loop):
    out = torch.while_loop(*loop(torch))
    _same(jtorch.while_loop(*loop(jtorch)), out)
    cond_fn, body_fn, carried = loop(jtorch)
    compiled = jtorch.compile(lambda c: jtorch.while_loop(cond_fn, body_fn, c), fullgraph=True)
    _same(compiled(carried), out)
    if loop is _zero_iterations:   # copies, not the inputs
        assert out[0] is not carried[0]


def test_result_takes_body_structure_and_single_tensor():
    for T in (torch, jtorch):
        r = T.while_loop(lambda i, x: i < 3, lambda i, x: [i + 1, x * 2],
                         (T.tensor(0), T.ones(2)))
        assert isinstance(r, list) and r[1].tolist() == [8.0, 8.0]
        r = T.while_loop(lambda x: x.sum() < 3, lambda x: x + 1, (T.zeros(2),))
        assert r.tolist() == [2.0, 2.0]


class _Net:
    def __init__(self, T, seed=0):
        torch.manual_seed(seed)
        tlin = torch.nn.Linear(3, 3)
        if T is torch:
            self.lin = tlin
        else:
            self.lin = jtorch.nn.Linear(3, 3)
            self.lin.load_state_dict({k: jtorch.tensor(v.detach().numpy())
                                      for k, v in tlin.state_dict().items()})
        self.T = T

    def step(self, x):
        T, lin = self.T, self.lin

        def body(i, h):
            return i + 1, T.tanh(lin(h))

        i, h = T.while_loop(lambda i, h: (i < 4) & (h.abs().sum() > 1e-3), body,
                            (T.tensor(0), x))
        loss = (h ** 2).sum()
        loss.backward()
        return loss

    def params(self):
        return [self.lin.weight, self.lin.bias]


def test_network_closed_over_gradients_eager_compiled_and_torch():
    nets = {"torch": _Net(torch), "eager": _Net(jtorch), "compiled": _Net(jtorch)}
    fns = {"torch": nets["torch"].step, "eager": nets["eager"].step,
           "compiled": jtorch.compile(nets["compiled"].step, fullgraph=True)}
    for seed in (4, 5):
        x = rand(2, 3, seed=seed)
        got = {}
        for k, fn in fns.items():
            lib = torch if k == "torch" else jtorch
            for p in nets[k].params():
                p.grad = None
            xt = lib.tensor(x, requires_grad=True)   # PyTorch needs a carried input with grad
            loss = fn(xt)
            got[k] = [loss.item(), xt.grad.numpy()] + [p.grad.numpy().copy()
                                                        for p in nets[k].params()]
        for k in ("eager", "compiled"):
            for a, b in zip(got[k], got["torch"]):
                np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_gradients_through_carries_match_torch():
    res = {}
    for T in (torch, jtorch):
        x0 = T.tensor([2.0, 3.0], requires_grad=True)
        c = T.tensor(0.0, requires_grad=True)
        i, y = T.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * (i + 1.5)), (c, x0))
        (y.sum() + i).backward()
        res[T] = [i, y, x0.grad, c.grad]
    for a, b in zip(res[jtorch], res[torch]):
        assert_close(a, b, atol=1e-5)


def test_closure_only_gradient_counts_every_iteration():
    # PyTorch 2.13 returns only the last iteration's share here (w.grad == x0 * w**2); jtorch
    # returns the derivative of the loop it ran: 3 * x0 * w**2 (docs/differences.md)
    for compiled in (False, True):
        w = jtorch.tensor([1.5, 2.0], requires_grad=True)

        def f(x0, w=w):
            _, y = jtorch.while_loop(lambda i, x: i < 3, lambda i, x, w=w: (i + 1, x * w),
                                     (jtorch.tensor(0), x0))
            y.sum().backward()
            return y

        y = (jtorch.compile(f, fullgraph=True) if compiled else f)(jtorch.tensor([2.0, 3.0]))
        np.testing.assert_allclose(y.detach().numpy(), [6.75, 24.0])
        np.testing.assert_allclose(w.grad.numpy(),
                                   3 * np.array([2.0, 3.0]) * np.array([1.5, 2.0]) ** 2)


def test_no_grad_closure_mutation_and_dropout_state_compiled():
    for T in (torch, jtorch):   # under no_grad a closed-over tensor may be written
        b = T.zeros(2)
        with T.no_grad():
            i, x = T.while_loop(lambda i, x: i < 3, lambda i, x, b=b: (i + 1, x + b.add_(1)),
                                (T.tensor(0), T.zeros(2)))
        assert x.tolist() == [6.0, 6.0] and b.tolist() == [3.0, 3.0]
    drop = jtorch.nn.Dropout(0.5)
    f = jtorch.compile(lambda x: jtorch.while_loop(lambda i, h: i < 2,
                                                   lambda i, h: (i + 1, drop(h)),
                                                   (jtorch.tensor(0), x)), fullgraph=True)
    jtorch.manual_seed(0)
    (_, a), (_, b) = f(jtorch.ones(64)), f(jtorch.ones(64))
    assert set(a.tolist()) <= {0.0, 4.0} and a.tolist() != b.tolist()


def test_vmap_per_row_trip_counts_match_torch_rows():
    # PyTorch 2.13's while_loop refuses vmap ("Cannot access storage of BatchedTensorImpl");
    # jtorch's lowers to one batched lax.while_loop: each row as PyTorch computes it alone
    xs = np.array([[1.0, 2.0], [0.1, 0.1], [3.0, -1.0]], np.float32)

    def f(T, x):
        return T.while_loop(lambda i, x: x.abs().sum() < 8, lambda i, x: (i + 1, x * 2 + 0.5),
                            (T.tensor(0), x))

    i, out = jtorch.func.vmap(lambda x: f(jtorch, x))(jtorch.tensor(xs))
    for k, row in enumerate(xs):
        ti, trow = f(torch, torch.tensor(row))
        assert int(i[k]) == int(ti)
        assert_close(out[k], trow, atol=1e-6)


def _z(T):
    return T.zeros(2)


C3 = lambda i, x: i < 3  # noqa: E731
B = lambda i, x: (i + 1, x * 2)  # noqa: E731

ARG_ERRORS = {
    "float_carry": lambda T: (C3, B, (1.5, _z(T))),
    "none_carry": lambda T: (C3, B, (None, _z(T))),
    "cond_not_callable": lambda T: (1, B, (T.tensor(0), _z(T))),
    "body_not_callable": lambda T: (C3, None, (T.tensor(0), _z(T))),
    "cond_arity": lambda T: (lambda i: i < 3, B, (T.tensor(0), _z(T))),
    "cond_float": lambda T: (lambda i, x: i.float(), B, (T.tensor(0), _z(T))),
    "cond_two_elements": lambda T: (lambda i, x: x < 3, B, (T.tensor(0), _z(T))),
    "cond_shape_1": lambda T: (lambda i, x: (i < 3).reshape(1), B, (T.tensor(0), _z(T))),
    "cond_constant_true": lambda T: (lambda i, x: True, B, (T.tensor(0), _z(T))),
    "cond_constant_int": lambda T: (lambda i, x: 1, B, (T.tensor(0), _z(T))),
    "cond_int_with_int_carry": lambda T: (lambda i, x: 3 - i, B, (0, _z(T))),
    "body_count": lambda T: (C3, lambda i, x: (i + 1,), (T.tensor(0), _z(T))),
    "body_pytree_count": lambda T: (lambda i, d: i < 3, lambda i, d: (i + 1, {"a": d["a"] * 2}),
                                    (T.tensor(0), {"a": T.ones(2), "b": T.zeros(1)})),
    "body_shape": lambda T: (C3, lambda i, x: (i + 1, x[:1] * 2), (T.tensor(0), _z(T))),
    "body_grows": lambda T: (C3, lambda i, x: (i + 1, T.cat([x, x])), (T.tensor(0), _z(T))),
    "body_dtype": lambda T: (C3, lambda i, x: (i + 1, x.double()), (T.tensor(0), _z(T))),
    "body_int_dtype": lambda T: (C3, lambda i, x: (i + 1.0, x * 2), (T.tensor(0), _z(T))),
    "body_int_for_tensor": lambda T: (C3, lambda i, x: (3, x * 2), (T.tensor(0), _z(T))),
    "body_float_output": lambda T: (C3, lambda i, x: (i + 1, 2.0), (T.tensor(0), _z(T))),
    "body_mutates": lambda T: (C3, lambda i, x: (i + 1, x.add_(1) * 1), (T.tensor(0), _z(T))),
    "cond_mutates": lambda T: (lambda i, x: x.add_(1).sum() > 100, B, (T.tensor(0), _z(T))),
    "body_returns_input": lambda T: (C3, lambda i, x: (i + 1, x), (T.tensor(0), _z(T))),
    "body_returns_view": lambda T: (C3, lambda i, x: (i + 1, x.view(2)), (T.tensor(0), _z(T))),
    "cond_returns_input": lambda T: (lambda f, x: f, lambda f, x: (x.sum() < 3, x + 1),
                                     (T.tensor(True), _z(T))),
    "int_carry_requires_grad": lambda T: (C3, B, (0, T.ones(2, requires_grad=True))),
}


def _lines(e, n):
    """The first ``n`` non-empty lines; sizes left out (PyTorch's turn symbolic, ``s19``, once
    dynamo has seen a second size)."""
    return [re.sub(r"size=\([^)]*\)", "size=(...)", line)
            for line in str(e).splitlines() if line][:n]


def _raises_like(torch_fn, jt_fn, lines=2):
    """The same exception type (PyTorch's torch._dynamo.exc class, or a builtin one) and the
    same first ``lines`` non-empty lines: for a graph-break error the banner and PyTorch's
    title, for a metadata error the message and the first difference."""
    torch._dynamo.reset()   # static sizes in PyTorch's message, as on a first call
    with pytest.raises(BaseException) as te:
        torch_fn()
    with pytest.raises(BaseException) as je:
        jt_fn()
    t, j = te.value, je.value
    assert type(j).__name__ == type(t).__name__, f"{type(j).__name__}: {j}\n(torch: {t})"
    assert _lines(j, lines) == _lines(t, lines), f"{j}\n(torch: {t})"


@pytest.mark.parametrize("case", list(ARG_ERRORS))
def test_errors_like_torch(case):
    def call(T):
        return lambda: T.while_loop(*ARG_ERRORS[case](T))

    if case in ("float_carry", "none_carry", "cond_not_callable", "body_not_callable"):
        raises_like(call(torch), call(jtorch))   # builtin exceptions: the whole first line
    else:
        _raises_like(call(torch), call(jtorch), 1 if case == "int_carry_requires_grad" else 2)


@pytest.mark.parametrize("case", ["body_shape", "body_dtype", "body_count", "body_mutates",
                                  "body_returns_input", "cond_float", "body_int_for_tensor"])
def test_errors_compiled(case):
    """Traced, the same checks run on the traced functions and raise the same errors."""
    torch._dynamo.reset()
    with pytest.raises(BaseException) as te:
        torch.while_loop(*ARG_ERRORS[case](torch))
    cond_fn, body_fn, carried = ARG_ERRORS[case](jtorch)
    f = jtorch.compile(lambda c: jtorch.while_loop(cond_fn, body_fn, c), fullgraph=True)
    with pytest.raises(getattr(jtorch._dynamo.exc, type(te.value).__name__)) as je:
        f(carried)
    assert _lines(je.value, 2) == _lines(te.value, 2)


def test_closed_over_grad_with_int_carry_refused():
    w = jtorch.ones(2, requires_grad=True)
    with pytest.raises(jtorch._dynamo.exc.TorchRuntimeError,
                       match="RuntimeError when making fake tensor call"):
        jtorch.while_loop(C3, lambda i, x: (i + 1, x * w), (0, jtorch.ones(2)))
    with jtorch.no_grad():
        assert jtorch.while_loop(C3, lambda i, x: (i + 1, x * w), (0, jtorch.ones(2)))[0] == 3


def test_namespaces():
    from jtorch._higher_order_ops.while_loop import while_loop as hop
    assert jtorch.while_loop is hop
    assert jtorch._higher_order_ops.while_loop is hop
