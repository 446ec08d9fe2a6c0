"""torch.autograd.graph.saved_tensors_hooks, save_on_cpu, disable_saved_tensors_hooks and
allow_mutation_on_saved_tensors against PyTorch 2.13: the same gradients with identity, scaling
and CPU-offloading hooks (MLP, conv, nesting, autograd.Function, retain_graph, create_graph),
PyTorch's errors, which tensors the pack hook sees for simple ops, the hooks with the fused
backward and inside traces, and saved tensors written in place under
allow_mutation_on_saved_tensors.

Which tensors are packed follows jtorch's gradient formulas (the inputs the op's vjp reads,
jtorch/_core/saved_hooks.py): for mul, matmul, pow, div, add, sum they are PyTorch's; where
PyTorch saves an output (exp, relu, sigmoid) jtorch packs the input of the same shape; linear
packs the weight as given where PyTorch packs its transpose (docs/differences.md).
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import torch
from helpers import assert_close, rand

import jtorch
from jtorch._core import fused_backward
from jtorch._core.tensor_base import TensorBase

BOTH = pytest.mark.parametrize("T", [torch, jtorch], ids=["torch", "jtorch"])


def _t(T, a, grad=False):
    return T.tensor(np.asarray(a), requires_grad=grad)


def _grads(*tensors):
    return [None if t.grad is None else t.grad.detach().numpy() for t in tensors]


def _logging_hooks(T, log, tag=""):
    """Hooks that log each call and keep floating tensors scaled by 4 (others as they are)."""
    def pack(t):
        log.append((tag + "pack", tuple(t.shape), T.is_grad_enabled()))
        return (t.detach() * 4, True) if t.is_floating_point() else (t, False)

    def unpack(p):
        t, scaled = p
        log.append((tag + "unpack", tuple(t.shape), T.is_grad_enabled()))
        return t / 4 if scaled else t

    return pack, unpack


def _mlp(T, x, params):
    w1, b1, w2, b2 = params
    h = (x @ w1.t() + b1).tanh()
    return ((h @ w2.t() + b2).sigmoid() * h.sum(1, keepdim=True)).pow(2).mean()


def _mlp_params(T):
    return [_t(T, rand(*s, seed=i), True) for i, s in enumerate([(6, 5), (6,), (3, 6), (3,)])]


# ------------------------------------------------------------------ gradients as PyTorch's
SCRIPTS = {
    "mul": lambda T, x, w: (x * w * x).sum(),
    "matmul_exp": lambda T, x, w: (x @ w.t()).exp().sum(),
    "pow_div": lambda T, x, w: (x.pow(3) / (w * w + 1)).sum(),
    "softmax_ce": lambda T, x, w: T.nn.functional.cross_entropy(x @ w.t(),
                                                                T.tensor([0, 2, 1, 0])),
    # in-place ops: the node packs the value before the write (PyTorch: a clone of self)
    "inplace_mul_sigmoid": lambda T, x, w: (x * 1).mul_(w).sigmoid_().sum(),
    "inplace_add_tanh": lambda T, x, w: (x * 1).add_(w).tanh_().mul(w).sum(),
}


def _run_script(T, name, hooks):
    x, w = _t(T, rand(4, 3, seed=1), True), _t(T, rand(4 if name != "softmax_ce" else 3, 3,
                                                       seed=2), True)
    log = []
    pack, unpack = hooks(T, log)
    with T.autograd.graph.saved_tensors_hooks(pack, unpack):
        loss = SCRIPTS[name](T, x, w)
    loss.backward()
    return float(loss), _grads(x, w), log


@pytest.mark.parametrize("name", sorted(SCRIPTS))
@pytest.mark.parametrize("kind", ["identity", "scale"])
def test_gradients_match_pytorch(name, kind):
    def identity(T, log):
        return (lambda t: t), (lambda t: t)

    hooks = identity if kind == "identity" else _logging_hooks
    want = _run_script(torch, name, hooks)
    got = _run_script(jtorch, name, hooks)
    assert_close(got[0], want[0], atol=1e-5, rtol=1e-6)
    for g, w in zip(got[1], want[1]):
        assert_close(g, w, atol=1e-5, rtol=1e-5)
    # packed and unpacked once each, with grad mode off in both
    assert all(not e[2] for e in got[2])
    assert len([e for e in got[2] if e[0] == "pack"]) == len(
        [e for e in got[2] if e[0] == "unpack"])


def _save_on_cpu_step(T):
    xs = _t(T, rand(2, 1, 6, 6, seed=3))
    cw, cb = _t(T, rand(2, 1, 3, 3, seed=4), True), _t(T, rand(2, seed=5), True)
    params = _mlp_params(T)
    params[0] = _t(T, rand(6, 32, seed=6), True)
    F = T.nn.functional
    with T.autograd.graph.save_on_cpu():
        h = F.relu(F.conv2d(xs, cw, cb)).flatten(1)
        loss = _mlp(T, h, params)
    loss.backward()
    return [float(loss)] + _grads(cw, cb, *params)


def test_save_on_cpu_conv_mlp_step_matches_pytorch():
    for g, w in zip(_save_on_cpu_step(jtorch), _save_on_cpu_step(torch)):
        assert_close(g, w, atol=1e-5, rtol=1e-5)


def test_save_on_cpu_pack_returns_device_and_cpu_tensor():
    seen = []
    x = jtorch.randn(3, requires_grad=True)
    hooks = jtorch.autograd.graph.save_on_cpu(pin_memory=True)
    seen.append(hooks.pack_hook(x))
    device, packed = seen[0]
    assert device == x.device and packed.device == jtorch.device("cpu")
    assert hooks.unpack_hook(seen[0]).device == x.device


def test_save_on_cpu_moves_another_device_to_cpu_and_back():
    """On a device other than the CPU (host device cpu:1 here, as a GPU), the packed copy is
    on the CPU and the backward gets its values back on the tensor's device."""
    seen = []

    def pack(t):
        seen.append(jtorch.autograd.graph.save_on_cpu().pack_hook(t))
        return seen[-1]

    x = _t(jtorch, rand(3, 4, seed=1)).to("cpu:1").requires_grad_(True)
    w = _t(jtorch, rand(4, 2, seed=2)).to("cpu:1").requires_grad_(True)
    with jtorch.autograd.graph.saved_tensors_hooks(
            pack, jtorch.autograd.graph.save_on_cpu().unpack_hook):
        y = (x @ w).tanh().sum()
    y.backward()
    assert seen and all(d == jtorch.device("cpu:1") and p.device == jtorch.device("cpu")
                        for d, p in seen)
    xt, wt = _t(torch, rand(3, 4, seed=1), True), _t(torch, rand(4, 2, seed=2), True)
    (xt @ wt).tanh().sum().backward()
    assert x.grad.device == jtorch.device("cpu:1")
    assert_close(x.grad.to("cpu").numpy(), xt.grad.numpy(), atol=1e-6, rtol=1e-6)
    assert_close(w.grad.to("cpu").numpy(), wt.grad.numpy(), atol=1e-6, rtol=1e-6)


def _nested(T):
    log = []
    x, w = _t(T, rand(3, seed=1), True), _t(T, rand(3, seed=2), True)
    with T.autograd.graph.saved_tensors_hooks(*_logging_hooks(T, log, "outer ")):
        a = x * w
        with T.autograd.graph.saved_tensors_hooks(*_logging_hooks(T, log, "inner ")):
            b = a.pow(2)
        c = (b * x).sum()
    c.backward()
    return sorted(log), _grads(x, w)


def test_nested_hooks_innermost_wins():
    got, want = _nested(jtorch), _nested(torch)
    assert got[0] == want[0]
    for g, w in zip(got[1], want[1]):
        assert_close(g, w)


# ------------------------------------------------------------------ autograd.Function
def _function(T):
    class Mul(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            out = x * y
            ctx.save_for_backward(x, None, out)
            return out

        @staticmethod
        def backward(ctx, g):
            x, none, out = ctx.saved_tensors
            x2, _, _ = ctx.saved_tensors   # each access unpacks again
            assert none is None and x2.shape == x.shape
            return g * out / x, g * x

    log = []
    x, y = _t(T, rand(3, seed=1), True), _t(T, rand(3, seed=2))
    with T.autograd.graph.saved_tensors_hooks(*_logging_hooks(T, log)):
        out = Mul.apply(x, y)
        Mul.apply(y, y)   # nothing requires grad: nothing saved, nothing packed
    out.pow(2).sum().backward()
    return log, _grads(x)


def test_custom_function_save_for_backward_is_packed():
    got, want = _function(jtorch), _function(torch)
    assert got[0] == want[0]
    assert_close(got[1][0], want[1][0])


# ------------------------------------------------------------------ retain_graph, create_graph
def _retain(T):
    log = []
    x = _t(T, rand(3, seed=1), True)
    with T.autograd.graph.saved_tensors_hooks(*_logging_hooks(T, log)):
        y = (x.sin() * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second"):
        y.backward()
    return log, _grads(x)


def test_retain_graph_unpacks_on_each_backward():
    got, want = _retain(jtorch), _retain(torch)
    assert got[0] == want[0]
    assert_close(got[1][0], want[1][0])


def _double(T):
    log = []
    x, w = _t(T, rand(3, seed=1), True), _t(T, rand(3, seed=2), True)
    with T.autograd.graph.saved_tensors_hooks(*_logging_hooks(T, log)):
        y = (x.pow(3) * w).sum()
    gx, gw = T.autograd.grad(y, (x, w), create_graph=True)
    (gx * gx + gw.sin()).sum().backward()
    return sorted(log), _grads(x, w)


def test_create_graph_double_backward():
    got, want = _double(jtorch), _double(torch)
    assert got[0] == want[0]   # unpacked with grad mode on (create_graph)
    for g, w in zip(got[1], want[1]):
        assert_close(g, w, atol=1e-5, rtol=1e-5)


# ------------------------------------------------------------------ which tensors are packed
SAME = {   # ops whose packed tensors' shapes are PyTorch's (compared as sorted lists)
    "mul_both": lambda T, x, w, a: x * w,
    "mul_one": lambda T, x, w, a: x * a,
    "mul_self": lambda T, x, w, a: x * x,
    "mul_number": lambda T, x, w, a: x * 2.0,
    "matmul": lambda T, x, w, a: x @ w.t(),
    "matmul_one": lambda T, x, w, a: x @ a.t(),
    "mm_3x4": lambda T, x, w, a: x @ T.ones(3, 4),
    "add": lambda T, x, w, a: x + a * 2,
    "sum": lambda T, x, w, a: x.sum(),
    "pow": lambda T, x, w, a: x.pow(2),
    "div": lambda T, x, w, a: x / (a * a + 1),
    "exp": lambda T, x, w, a: x.exp(),            # PyTorch packs the output, jtorch the input
    "relu": lambda T, x, w, a: x.relu(),          # likewise
    "sigmoid": lambda T, x, w, a: x.sigmoid(),    # likewise
}


def _packed_shapes(T, fn):
    shapes = []
    x, w, a = (_t(T, rand(2, 3, seed=1), True), _t(T, rand(2, 3, seed=2), True),
               _t(T, rand(2, 3, seed=3)))
    with T.autograd.graph.saved_tensors_hooks(lambda t: shapes.append(tuple(t.shape)) or t,
                                              lambda t: t):
        y = fn(T, x, w, a)
    y.sum().backward()
    return sorted(shapes)


@pytest.mark.parametrize("name", sorted(SAME))
def test_packed_tensors_as_pytorch(name):
    assert _packed_shapes(jtorch, SAME[name]) == _packed_shapes(torch, SAME[name])


def test_linear_packs_weight_untransposed():
    """A documented difference: PyTorch's linear packs ``weight.t()``, jtorch ``weight``."""
    def linear(T, x, w, a):
        return T.nn.functional.linear(x, T.ones(4, 3, requires_grad=True))

    assert _packed_shapes(torch, linear) == [(2, 3), (3, 4)]
    assert _packed_shapes(jtorch, linear) == [(2, 3), (4, 3)]


@BOTH
def test_nothing_packed_without_a_graph(T):
    shapes = []
    x = _t(T, rand(3, seed=1), True)
    with T.autograd.graph.saved_tensors_hooks(lambda t: shapes.append(t.shape) or t,
                                              lambda t: t):
        with T.no_grad():
            x.pow(2)
        _t(T, rand(3, seed=2)).pow(2)
    assert shapes == []


@BOTH
def test_pack_receives_the_saved_tensor_itself(T):
    seen = []
    x = _t(T, rand(3, seed=1), True)
    with T.autograd.graph.saved_tensors_hooks(lambda t: seen.append(t) or t, lambda t: t):
        x.pow(2)
    assert len(seen) == 1 and seen[0] is x


@BOTH
def test_versions_not_checked_under_hooks(T):
    """The hooks own the saved values: an in-place write afterwards does not raise (PyTorch
    checks versions only without hooks); the gradient uses the packed copy."""
    z = _t(T, rand(3, seed=1), True) * 1
    with T.autograd.graph.saved_tensors_hooks(lambda t: t.clone(), lambda t: t):
        y = z.pow(2)
    z.add_(1)
    y.sum().backward()


# ------------------------------------------------------------------ errors, as PyTorch's
def _error(T, script):
    with pytest.raises(Exception) as info:
        script(T)
    return type(info.value), str(info.value)


def _unpack_not_tensor(T):
    x = _t(T, rand(3, seed=1), True)
    with T.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: 3):
        y = x.pow(2)
    y.sum().backward()


def _pack_inplace(T):
    h = _t(T, rand(3, seed=1), True) * 1

    def pack(t):
        t.add_(1)
        return t

    with T.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        h.pow(2)


def _disabled(T):
    with T.autograd.graph.disable_saved_tensors_hooks("my message"):
        with T.autograd.graph.save_on_cpu():
            pass


def _disabled_while_active(T):
    with T.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        with T.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
            pass


def _backward_twice(T):
    x = _t(T, rand(3, seed=1), True)
    with T.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        y = x.pow(2).sum()
    y.backward()
    y.backward()


def _function_unpack_not_tensor(T):
    class Id(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g * ctx.saved_tensors[0]

    x = _t(T, rand(3, seed=1), True)
    with T.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: "x"):
        y = Id.apply(x)
    y.sum().backward()


ERRORS = [_unpack_not_tensor, _pack_inplace, _disabled, _disabled_while_active,
          _backward_twice, _function_unpack_not_tensor]


@pytest.mark.parametrize("script", ERRORS, ids=[s.__name__ for s in ERRORS])
def test_errors_as_pytorch(script):
    assert _error(jtorch, script) == _error(torch, script)


@BOTH
def test_disable_restores_and_nests(T):
    graph = T.autograd.graph
    with graph.disable_saved_tensors_hooks("outer"):
        with graph.disable_saved_tensors_hooks("inner"):
            with pytest.raises(RuntimeError, match="^inner$"):
                graph.saved_tensors_hooks(lambda t: t, lambda t: t).__enter__()
        with pytest.raises(RuntimeError, match="^outer$"):
            graph.saved_tensors_hooks(lambda t: t, lambda t: t).__enter__()
    with graph.saved_tensors_hooks(lambda t: t, lambda t: t):   # allowed again
        pass


def test_unpack_of_another_shape_raises():
    x = jtorch.randn(3, requires_grad=True)
    with jtorch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: jtorch.zeros(7)):
        y = x.pow(2)
    with pytest.raises(RuntimeError, match="unpack_hook of PowBackward0 returned a tensor of "
                                           r"shape \[7\]"):
        y.sum().backward()


# ------------------------------------------------------------------ fused backward, traces
def test_packed_graphs_run_node_by_node(monkeypatch):
    """A repeated graph whose nodes hold packed values never takes the fused path: each
    step unpacks as its backward reaches each node, and the gradients are the fused ones."""
    monkeypatch.setattr(fused_backward, "FUSE_AT", 1)
    monkeypatch.setattr(fused_backward, "_SEEN", {})
    monkeypatch.setattr(fused_backward, "_PROGRAMS", {})
    monkeypatch.setattr(fused_backward, "_REFUSED", set())
    monkeypatch.setattr(fused_backward, "BACKGROUND", False)
    x = _t(jtorch, rand(4, 5, seed=7))
    params = _mlp_params(jtorch)
    log, results = [], []
    for hooked in (False, True, True, True):
        for p in params:
            p.grad = None
        if hooked:
            with jtorch.autograd.graph.saved_tensors_hooks(*_logging_hooks(jtorch, log)):
                loss = _mlp(jtorch, x, params)
        else:
            loss = _mlp(jtorch, x, params)
        n = len(log)
        loss.backward()
        unpacked = len(log) - n
        results.append((_grads(*params), unpacked))
    assert fused_backward._PROGRAMS   # the plain graph did run fused
    assert {r[1] for r in results[1:]} == {len([e for e in log if e[0] == "pack"]) // 3}
    for grads, _ in results[1:]:
        for g, w in zip(grads, results[0][0]):
            assert_close(g, w, atol=1e-6, rtol=1e-6)


def _step(T, hooks_inside):
    T.manual_seed(0)
    params = _mlp_params(T)
    x = _t(T, rand(4, 5, seed=7))

    def step():
        for p in params:
            p.grad = None
        if hooks_inside:
            with T.autograd.graph.saved_tensors_hooks(lambda t: t * 2, lambda t: t / 2):
                loss = _mlp(T, x, params)
        else:
            loss = _mlp(T, x, params)
        loss.backward()
        with T.no_grad():
            for p in params:
                p -= 0.1 * p.grad
        return loss

    return step, params


@pytest.mark.parametrize("where", ["inside", "around"])
def test_compiled_step_runs_the_hooks_in_its_trace(where):
    """Under jtorch.compile the eager engine runs inside the trace: the hooks are traced into
    the program (their Python runs while tracing); hooks entered around a compiled step are
    part of its guard, so other hooks compile it again."""
    eager, eager_params = _step(jtorch, where == "inside")
    compiled_fn, params = _step(jtorch, where == "inside")
    compiled = jtorch.compile(compiled_fn)
    for _ in range(3):
        if where == "around":
            with jtorch.autograd.graph.save_on_cpu():
                want, got = eager(), compiled()
        else:
            want, got = eager(), compiled()
        assert_close(float(got), float(want), atol=1e-6, rtol=1e-6)
    for p, q in zip(params, eager_params):
        assert_close(p.detach().numpy(), q.detach().numpy(), atol=1e-6, rtol=1e-6)


def test_hooks_on_traced_tensors_under_jax_jit():
    def grad_of(a, b):
        x = TensorBase._make(a, jtorch.device("cpu")).requires_grad_(True)
        w = TensorBase._make(b, jtorch.device("cpu"))
        with jtorch.autograd.graph.save_on_cpu():
            y = ((x * w).exp() + x.relu()).sum()
        return jtorch.autograd.grad(y, x)[0]._value

    a, b = jnp.arange(3.0) - 1, jnp.linspace(0.5, 1.5, 3)
    assert_close(np.asarray(jax.jit(grad_of)(a, b)), np.asarray(grad_of(a, b)))


def test_compiled_module_under_hooks_raises():
    """A compiled module's backward is JAX's vjp of the whole forward: its saved values are
    out of the hooks' reach, which raises rather than skipping the hooks."""
    module = jtorch.compile(jtorch.nn.Linear(3, 2))
    x = jtorch.randn(4, 3)
    with jtorch.autograd.graph.save_on_cpu():
        with pytest.raises(RuntimeError, match="saved_tensors_hooks cannot reach the tensors "
                                               "CompiledFunctionBackward saves"):
            module(x)
    module(x).sum().backward()   # outside the block it works


def _checkpointed(T, reentrant):
    log = []
    x, c = _t(T, rand(3, seed=1), True), _t(T, rand(2, seed=2))
    with T.autograd.graph.saved_tensors_hooks(*_logging_hooks(T, log)):
        y = T.utils.checkpoint.checkpoint(lambda t, c: t.sin().exp() * t.cos() + c.sum(), x,
                                          c, use_reentrant=reentrant)
    y.sum().backward()
    return log, _grads(x)


@pytest.mark.parametrize("reentrant", [False, True])
def test_checkpoint_packs_its_inputs_only(reentrant):
    """As PyTorch's checkpoint: the hooks pack the segment's tensor arguments (and unpack them
    for the recomputation), none of the segment's own ops."""
    got, want = _checkpointed(jtorch, reentrant), _checkpointed(torch, reentrant)
    assert got[0] == want[0]
    assert len(got[0]) == 4
    assert_close(got[1][0], want[1][0])


# ------------------------------------------------------------------ allow_mutation_on_saved_tensors
def _mutation(T):
    """Saved tensors written in place inside the block, the backward outside it, nesting, and
    the usual error without the block: values, gradients, exception types and messages."""
    seen = []

    def outcome(f):
        try:
            f()
        except (RuntimeError, AssertionError) as e:
            seen.append((type(e).__name__, str(e)[:120]))

    with T.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
        a = _t(T, rand(2, 3, seed=1), True)
        b = a.clone()
        out = (b ** 2).sum() + (b * a).sum()
        b.sin_()
        v = _t(T, rand(4, seed=2), True)
        d = v.clone()
        e = (d.exp() * d).sum()
        d.mul_(2)
        d.add_(1)
        out.backward()
        e.backward()
        seen.append(type(ctx).__name__)
    with T.autograd.graph.allow_mutation_on_saved_tensors():
        x = _t(T, rand(3, seed=3), True)
        y = x.clone()
        z = (y * y).sum()
        y.add_(1)
    outcome(z.backward)

    def nested():
        with T.autograd.graph.allow_mutation_on_saved_tensors():
            with T.autograd.graph.allow_mutation_on_saved_tensors():
                pass
    outcome(nested)
    y = x.clone()
    z = (y * y).sum()
    y.add_(1)
    outcome(z.backward)
    return seen, _grads(a, v, x)


def test_allow_mutation_on_saved_tensors():
    got, want = _mutation(jtorch), _mutation(torch)
    assert got[0] == want[0]
    for g, w in zip(got[1], want[1]):
        if w is None:
            assert g is None
        else:
            assert_close(g, w)
