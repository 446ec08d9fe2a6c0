"""torch.cond against PyTorch 2.13: eager (Python and tensor predicates) values and gradients,
jtorch.compile (a traced predicate lowers to jax.lax.cond) equal to eager, torch.func.vmap,
and the errors PyTorch raises (type and first line)."""

import numpy as np
import pytest
import torch
from helpers import assert_close, raises_like, rand

import jtorch


def _branches(T, w):
    def true_fn(x, d):
        return (x.sin() * w, {"k": d["y"] * 2})

    def false_fn(x, d):
        return (x.cos() + w * d["y"].mean(), {"k": d["y"].exp()})

    return true_fn, false_fn


@pytest.mark.parametrize("pred", [True, False, 1, 0.0, "tensor_true", "tensor_false",
                                  "float_tensor", "int_tensor_2d"])
def test_eager_values_and_gradients(pred):
    x, y, w = rand(3, seed=1), rand(3, seed=2), rand(3, seed=3)
    res = {}
    for T in (torch, jtorch):
        tx, ty, tw = (T.tensor(a, requires_grad=True) for a in (x, y, w))
        p = {"tensor_true": T.tensor(True), "tensor_false": T.tensor(False),
             "float_tensor": T.tensor(0.5), "int_tensor_2d": T.tensor([[0]])}.get(pred, pred)
        out = T.cond(p, *_branches(T, tw), (tx, {"y": ty}))
        (out[0].sum() + (out[1]["k"] * 3).sum()).backward()
        res[T] = out, [tx.grad, ty.grad, tw.grad]
    assert_close(res[jtorch][0][0], res[torch][0][0], atol=1e-6)
    assert_close(res[jtorch][0][1]["k"], res[torch][0][1]["k"], atol=1e-6)
    for j, t in zip(res[jtorch][1], res[torch][1]):
        assert_close(j, t, atol=1e-6)


def test_no_operands_int_outputs_and_no_grad_mutation():
    for T in (torch, jtorch):
        assert T.cond(T.tensor(True), lambda T=T: T.ones(2),
                      lambda T=T: T.zeros(2)).tolist() == [1, 1]
        out = T.cond(T.tensor(False), lambda x: (x + 1, 1), lambda x: (x - 1, 2), [T.ones(2)])
        assert out[1] == 2 and out[0].tolist() == [0, 0]
        with T.no_grad():   # allowed without grad: the operand changes, the result is it
            y = T.ones(3)
            r = T.cond(y.sum() > 0, lambda x: x.mul_(2), lambda x: x + 1, (y,))
            assert r is y and y.tolist() == [2, 2, 2]


def _call(T, pred, a, b, ops):
    return lambda: T.cond(pred(T), a(T), b(T), ops(T))


ONE = (lambda T: T.ones(3),)


@pytest.mark.parametrize("pred, a, b, ops", [
    (lambda T: T.tensor([True, False]), lambda T: T.sin, lambda T: T.cos, lambda T: ONE[0](T)),
    (lambda T: "a", lambda T: T.sin, lambda T: T.cos, lambda T: (T.ones(2),)),
    (lambda T: None, lambda T: T.sin, lambda T: T.cos, lambda T: (T.ones(2),)),
    (lambda T: T.tensor(True), lambda T: 1, lambda T: T.cos, lambda T: (T.ones(2),)),
    (lambda T: T.tensor(True), lambda T: T.sin, lambda T: T.cos, lambda T: T.ones(2)),
    (lambda T: T.tensor(True), lambda T: (lambda x, n: x * n), lambda T: (lambda x, n: x),
     lambda T: (T.ones(2), 3)),
])
def test_argument_errors(pred, a, b, ops):
    raises_like(_call(torch, pred, a, b, ops), _call(jtorch, pred, a, b, ops))


@pytest.mark.parametrize("case", ["mutate", "alias", "alias_twice", "none"])
def test_branch_rule_errors_eager(case):
    def fns(T):
        return {"mutate": (lambda x: x.add_(1), lambda x: x + 1),
                "alias": (lambda x: x, lambda x: x + 1),
                "alias_twice": (lambda x: (x * 2,) * 2, lambda x: (x + 1, x + 2)),
                "none": (lambda x: None, lambda x: None)}[case]

    def call(T):
        y = T.ones(3)
        return lambda: T.cond(y.sum() > 0, *fns(T), (y,))

    if case == "alias_twice":   # PyTorch names output-output aliasing the same way
        with pytest.raises(jtorch._dynamo.exc.UncapturedHigherOrderOpError, match="aliasing"):
            call(jtorch)()
        return
    with pytest.raises(torch._dynamo.exc.UncapturedHigherOrderOpError) as te:
        call(torch)()
    with pytest.raises(jtorch._dynamo.exc.UncapturedHigherOrderOpError) as je:
        call(jtorch)()
    t_lines, j_lines = str(te.value).splitlines(), str(je.value).splitlines()
    assert j_lines[:3] == t_lines[:3]   # the banner and PyTorch's title line


def _step(T, lin, w2):
    def step(x):
        h = lin(x)
        a, d = T.cond(h.sum() > 0, lambda a: (a.sin() * w2, {"k": a * 2}),
                      lambda a: (a.cos() + w2 * h.mean(), {"k": a.exp()}), (h,))
        loss = a.sum() + d["k"].sum()
        loss.backward()
        return loss

    return step


def test_compiled_equals_eager_and_torch():
    torch.manual_seed(0)
    tlin, tw2 = torch.nn.Linear(3, 3), torch.nn.Parameter(torch.randn(3))
    jlin = jtorch.nn.Linear(3, 3)
    jlin.load_state_dict({k: jtorch.tensor(v.detach().numpy())
                          for k, v in tlin.state_dict().items()})
    jw2 = jtorch.nn.Parameter(jtorch.tensor(tw2.detach().numpy()))
    eager, compiled = _step(jtorch, jlin, jw2), jtorch.compile(_step(jtorch, jlin, jw2),
                                                               fullgraph=True)
    tstep = _step(torch, tlin, tw2)
    for x in [rand(2, 3, seed=4), -5 * np.ones((2, 3), np.float32),
              5 * np.ones((2, 3), np.float32)]:
        got = []
        for fn, params in ((tstep, [tlin.weight, tlin.bias, tw2]),
                           (eager, [jlin.weight, jlin.bias, jw2]),
                           (compiled, [jlin.weight, jlin.bias, jw2])):
            for p in params:
                p.grad = None
            lib = torch if fn is tstep else jtorch
            loss = fn(lib.tensor(x))
            got.append([loss.item()] + [p.grad.numpy().copy() for p in params])
        for j in got[1:]:
            for a, b in zip(j, got[0]):
                np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("case, exc, first", [
    ("nout", "TorchRuntimeError", "Unmatched output spec from torch.cond branches"),
    ("dtype", "TorchRuntimeError", "When merging two branches' output in torch.cond,  expected "
                                   "same dtype but got torch.float32 and torch.float64."),
    ("struct", "UncapturedHigherOrderOpError", "torch.cond: differing branch outputs"),
    ("mutate", "UncapturedHigherOrderOpError", "Encountered input mutation"),
    ("alias", "UncapturedHigherOrderOpError", "Encountered aliasing"),
    ("shape", "TorchRuntimeError", "jtorch: torch.cond's branches return tensors of different"),
    ("ints", "TorchRuntimeError", "jtorch: torch.cond's branches return different ints"),
])
def test_compiled_branch_errors(case, exc, first):
    a, b = {"nout": (lambda x: (x + 0, x * 2), lambda x: x + 0),
            "dtype": (lambda x: x + 0, lambda x: x.double()),
            "struct": (lambda x: (x + 0,), lambda x: [x + 0]),
            "mutate": (lambda x: x.add_(1), lambda x: x + 1),
            "alias": (lambda x: x, lambda x: x + 1),
            "shape": (lambda x: x + 0, lambda x: x[:2] + 0),
            "ints": (lambda x: (x + 0, 1), lambda x: (x + 1, 2))}[case]
    f = jtorch.compile(lambda x: jtorch.cond(x.sum() > 0, a, b, (x,)), fullgraph=True)
    with pytest.raises(getattr(jtorch._dynamo.exc, exc)) as e:
        f(jtorch.randn(3))
    assert first in str(e.value)


def test_compiled_no_grad_mutation_dropout_and_int_outputs():
    y = jtorch.ones(3)

    def h(y):
        with jtorch.no_grad():
            return jtorch.cond(y.sum() > 0, lambda x: x.sin_(), lambda x: x + 1, (y,))

    r = jtorch.compile(h, fullgraph=True)(y)
    np.testing.assert_allclose(y.numpy(), np.sin(np.ones(3)), rtol=1e-6)
    np.testing.assert_allclose(r.numpy(), y.numpy())
    drop = jtorch.nn.Dropout(0.5)
    f = jtorch.compile(lambda x: jtorch.cond(x.sum() > 0, lambda a: drop(a), lambda a: a * 1.0,
                                             (x,)), fullgraph=True)
    jtorch.manual_seed(0)
    first, second = f(jtorch.ones(64)), f(jtorch.ones(64))
    assert set(first.tolist()) <= {0.0, 2.0} and first.tolist() != second.tolist()
    assert f(-jtorch.ones(4)).tolist() == [-1.0] * 4
    g = jtorch.compile(lambda x: jtorch.cond(x.sum() > 0, lambda a: (a + 1, 3),
                                             lambda a: (a - 1, 3), (x,)), fullgraph=True)
    out, n = g(jtorch.ones(2))
    assert n == 3 and out.tolist() == [2.0, 2.0]


def test_vmap_matches_torch():
    xs = np.array([[1.0, 2.0], [-3.0, 1.0], [-1.0, -1.0]], np.float32)
    res = []
    for T in (torch, jtorch):
        f = lambda x, T=T: T.cond(x.sum() > 0, lambda a: a.sin(), lambda a: a.cos() * 2, (x,))
        res.append(T.func.vmap(f)(T.tensor(xs)))
    assert_close(res[1], res[0], atol=1e-6)


def test_namespaces():
    from jtorch._higher_order_ops.cond import cond as hop_cond
    assert jtorch.cond is hop_cond
    assert jtorch._higher_order_ops.cond is hop_cond
