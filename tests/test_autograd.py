"""The autograd engine against PyTorch: leaves, grad_fn structure, backward/grad and their
options, accumulation, retain_grad, hooks, higher-order gradients, in-place ops, grad modes,
autograd.functional, and the engine itself running under jax.jit."""

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import torch
from helpers import assert_close, raises_like, rand

import jtorch

LIBS = (torch, jtorch)


def _cmp(a, e, path="out"):
    """Compare a jtorch result structure with torch's (tensors also by requires_grad)."""
    if isinstance(e, torch.Tensor):
        assert isinstance(a, jtorch.Tensor), f"{path}: {a!r} is not a Tensor"
        assert a.requires_grad == e.requires_grad, f"{path}: requires_grad {a.requires_grad}"
        assert_close(a, e, msg=path)
    elif isinstance(e, (list, tuple)):
        assert isinstance(a, (list, tuple)) and len(a) == len(e), f"{path}: {a!r} vs {e!r}"
        for i, (x, y) in enumerate(zip(a, e)):
            _cmp(x, y, f"{path}[{i}]")
    elif isinstance(e, dict):
        assert isinstance(a, dict) and a.keys() == e.keys(), f"{path}: {a!r} vs {e!r}"
        for k in e:
            _cmp(a[k], e[k], f"{path}[{k!r}]")
    elif isinstance(e, float):
        assert a == pytest.approx(e, rel=1e-5, abs=1e-6), f"{path}: {a} != {e}"
    elif isinstance(e, torch.dtype):
        assert str(a) == str(e), f"{path}: {a} != {e}"
    else:
        assert a == e, f"{path}: {a!r} != {e!r}"


def same(fn):
    """Run ``fn(T)`` with T = torch and T = jtorch; the results must match."""
    expected = fn(torch)
    _cmp(fn(jtorch), expected)
    return expected


def arr(*shape, seed=0):
    return rand(*shape, seed=seed)


def leaf(T, a, rg=True):
    return T.tensor(a, requires_grad=rg)


def names(fn):
    """grad_fn class names of a node and its next_functions, recursively (a tree)."""
    if fn is None:
        return None
    kids = tuple((names(n), i) for n, i in fn.next_functions)
    return (type(fn).__name__, kids)


# ------------------------------------------------------------------ leaves, detach, .data
def test_leaf_flags_and_requires_grad():
    def f(T):
        x = T.tensor([1.0, 2.0])
        out = [x.requires_grad, x.is_leaf, x.grad_fn is None]
        x.requires_grad_()
        y = x * 2
        out += [x.requires_grad, x.is_leaf, y.requires_grad, y.is_leaf, y.grad_fn is None]
        with T.no_grad():
            z = x * 2
        out += [z.requires_grad, z.is_leaf]
        x.requires_grad = False
        out += [x.requires_grad, (x * 2).requires_grad, T.ones(2).requires_grad_(True).is_leaf]
        c = T.tensor([1 + 2j]).requires_grad_()
        out += [c.requires_grad]
        return out

    same(f)


def test_detach_shares_storage_and_version():
    def f(T):
        x = leaf(T, [1.0, 2.0, 3.0])
        y = x * 2
        d = y.detach()
        out = [d.requires_grad, d.is_leaf, d.grad_fn is None, y._version, d._version]
        d.add_(1)   # writes through: y changes and y's version moves with d's
        out += [y.detach().clone(), y._version, d._version]
        xd = x.detach()
        xd.mul_(10)
        out += [x.detach().clone(), x._version]
        return out

    same(f)


def test_detach_inplace_then_backward_raises_where_torch_does():
    def f(T):
        x = leaf(T, [1.0, 2.0, 3.0])
        y = x * 1
        z = (y * y).sum()   # mul saves y
        y.detach().add_(1)
        z.backward()

    _same_error(f)


def test_detach_():
    def f(T):
        x = leaf(T, [1.0, 2.0])
        y = x * 2
        y.detach_()
        return [y.requires_grad, y.is_leaf, y.grad_fn is None, y]

    same(f)


def test_data_has_its_own_version_counter():
    def f(T):
        x = leaf(T, [1.0, 2.0, 3.0])
        w = leaf(T, [1.0, 1.0, 1.0])
        z = (x * w).sum()   # saves x (for w's grad)
        x.data.mul_(2)      # no version bump on x: backward still runs
        out = [x._version, x.data.requires_grad, x.data.is_leaf]
        z.backward()
        out += [x.grad]
        x.data = T.zeros(3)
        out += [x._version, x.detach().clone(), x.requires_grad]
        return out

    same(f)


def test_data_write_changes_saved_value_in_torch_not_jtorch():
    # PyTorch's saved tensor aliases the storage, so a .data write changes the backward;
    # jtorch saves immutable arrays: the gradient uses the values seen by the forward.
    res = {}
    for T in LIBS:
        x, w = leaf(T, [1.0, 2.0, 3.0]), leaf(T, [1.0, 1.0, 1.0])
        z = (x * w).sum()
        x.data.mul_(2)
        z.backward()
        res[T] = w.grad.tolist()
    assert res[torch] == [2.0, 4.0, 6.0]
    assert res[jtorch] == [1.0, 2.0, 3.0]


# ------------------------------------------------------------------ grad_fn structure
def test_grad_fn_names_and_next_functions():
    def f(T):
        x = leaf(T, arr(3, 4))
        w = leaf(T, arr(4, 2, seed=1))
        c = T.tensor(arr(3, 4, seed=2))
        y = (x * c + x).exp()
        z = (y @ w).relu().sum()
        e = T.stack([x.sum(0), (-x).mean(0)]).clone()
        return [names(z.grad_fn), names(e.grad_fn), names(x.transpose(0, 1).grad_fn),
                names((x[0] - 1).grad_fn), names(x.view(12).grad_fn), names((x / 2).grad_fn)]

    same(f)


def test_next_functions_leave_out_index_and_mask_tensors():
    def f(T):
        x, y = leaf(T, arr(2, 3)), leaf(T, arr(2, 3, seed=1))
        idx = T.tensor([1, 0])
        w = T.where(x > 0, x, y)
        seen = []
        w.grad_fn.register_hook(lambda gi, go: seen.append(gi))
        w.sum().backward()
        return [names(w.grad_fn), names(x[idx].grad_fn),
                names(x.gather(1, T.tensor([[0], [2]])).grad_fn), seen]

    same(f)


def test_accumulate_grad_node():
    def f(T):
        x = leaf(T, [1.0, 2.0])
        y = x * 2
        acc = y.grad_fn.next_functions[0][0]
        return [acc.variable is x, acc.next_functions, acc.name(), type(acc).__name__,
                acc.metadata, y.grad_fn.next_functions[1], y.grad_fn.name(),
                isinstance(acc, T.autograd.graph.Node),
                isinstance(y.grad_fn, T.autograd.graph.Node),
                y.grad_fn.next_functions[0][0] is acc]

    same(f)


# ------------------------------------------------------------------ backward
def test_backward_gradient_argument_and_accumulation():
    def f(T):
        x = leaf(T, arr(2, 3))
        y = x.exp() * 3
        y.backward(T.tensor(arr(2, 3, seed=4)), retain_graph=True)
        g = x.grad
        first = g.clone()
        y.backward(T.ones(2, 3))
        return [first, x.grad, g is x.grad, x.grad.requires_grad, x.grad.grad_fn is None]

    same(f)


def test_second_backward_with_retain_graph():
    def f(T):
        x = leaf(T, arr(4))
        z = (x * x).exp().sum()
        z.backward(retain_graph=True)
        z.backward(retain_graph=True)
        z.backward()
        return x.grad

    same(f)


def test_backward_without_saved_tensors_twice_works():
    def f(T):
        x = leaf(T, arr(3))
        z = (x + 1).sum()
        z.backward()
        z.backward()
        return x.grad

    same(f)


def test_autograd_backward_multiple_roots():
    def f(T):
        x = leaf(T, arr(3))
        a, b = x * 2, (x * x).sum()
        T.autograd.backward([a, b], [T.ones(3), None])
        g1 = x.grad.clone()
        T.autograd.backward((x * 3).sum())
        T.autograd.backward([(x * x).sum()], grad_tensors=[T.tensor(2.0)])
        return [g1, x.grad]

    same(f)


def test_backward_inputs_leaf_and_nonleaf():
    def f(T):
        x, w = leaf(T, arr(3)), leaf(T, arr(3, seed=1))
        h = x * w
        out = (h * h).sum()
        out.backward(inputs=[w, h], retain_graph=True)
        r = [x.grad, w.grad, h.grad, h.retains_grad]
        out.backward(inputs=x)
        return r + [x.grad, w.grad, h.grad]

    same(f)


def test_backward_create_graph_grad_has_graph():
    def f(T):
        x = leaf(T, arr(3))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            (x * x * x).sum().backward(create_graph=True)
        g = x.grad
        out = [g, g.requires_grad]
        x.grad = None
        g.sum().backward()
        return out + [x.grad]

    same(f)


def test_leaf_grad_assignment_and_none():
    def f(T):
        x = leaf(T, arr(3))
        x.grad = T.ones(3)
        (x * 2).sum().backward()
        g = x.grad
        x.grad = None
        (x * 2).sum().backward()
        return [g, x.grad]

    same(f)


# ------------------------------------------------------------------ autograd.grad
def test_grad_basic_options():
    def f(T):
        x, w = leaf(T, arr(3)), leaf(T, arr(3, seed=1))
        u = leaf(T, arr(3, seed=2))
        y = (x * w).exp()
        g1 = T.autograd.grad(y, [x, w], T.ones(3), retain_graph=True)
        g2 = T.autograd.grad(y.sum(), x, retain_graph=True)
        g3 = T.autograd.grad(y.sum(), [x, u], allow_unused=True, retain_graph=True)
        g4 = T.autograd.grad(y.sum(), [u, x], materialize_grads=True, retain_graph=True)
        g5 = T.autograd.grad([y.sum(), (x * 3).sum()], [x])
        return [g1, g2, g3, g4, g5, x.grad, w.grad]

    same(f)


def test_grad_dict_inputs_and_nonleaf_inputs():
    def f(T):
        x = leaf(T, arr(3))
        h = x * 2
        k = h.exp()
        out = (k * h).sum()
        d = T.autograd.grad(out, {"x": x, "h": h, "k": k}, retain_graph=True)
        g = T.autograd.grad(out, [k, h])
        return [d, g, T.autograd.grad(x * 2, x, T.ones(3))]

    same(f)


def test_grad_of_output_itself():
    def f(T):
        x = leaf(T, arr(3))
        y = x * 2
        return [T.autograd.grad(x, x, T.ones(3)), T.autograd.grad(y, y, T.full((3,), 2.0))]

    same(f)


def test_grad_is_grads_batched():
    def f(T):
        x = leaf(T, arr(3))
        y = x.exp() * x
        eye = T.tensor(np.eye(3, dtype=np.float32))
        (jac,) = T.autograd.grad(y, x, eye, is_grads_batched=True)
        return jac

    same(f)


def test_grad_does_not_touch_dot_grad_and_keeps_unrelated_hooks_silent():
    def f(T):
        x, w = leaf(T, arr(3)), leaf(T, arr(3, seed=1))
        calls = []
        w.register_hook(lambda g: calls.append("w"))
        y = (x * w).sum()
        (gx,) = T.autograd.grad(y, x)
        return [gx, x.grad is None, w.grad is None, calls]

    same(f)


# ------------------------------------------------------------------ retain_grad
def test_retain_grad_accumulation_and_identity():
    def f(T):
        x = leaf(T, arr(3))
        y = x * 2
        y.retain_grad()
        y.retain_grad()
        (y * y).sum().backward(retain_graph=True)
        g = y.grad
        first = g.clone()
        (y * y).sum().backward()
        return [first, y.grad, g is y.grad, y.retains_grad, x.retains_grad, x.grad]

    same(f)


def test_retain_grad_sees_other_hooks_and_follows_inplace():
    def f(T):
        x = leaf(T, arr(3))
        h = x * 2
        h.retain_grad()
        h.register_hook(lambda g: g * 100)
        seen = []
        h2 = x * 3
        h2.register_hook(lambda g: seen.append(g.clone()))
        h2.retain_grad()
        h2.mul_(3)   # the retained grad follows h2 to its new version; the hook stays
        h2.register_hook(lambda g: seen.append(g.clone()))
        ((h * h).sum() + (h2 * h2).sum()).backward()
        return [h.grad, h2.grad, x.grad, seen]

    same(f)


def test_retain_grad_create_graph():
    def f(T):
        x = leaf(T, arr(3))
        h = x * x
        h.retain_grad()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            (h * h).sum().backward(create_graph=True)
        return [h.grad, h.grad.requires_grad]

    same(f)


def test_nonleaf_grad_warning():
    for T in LIBS:
        y = leaf(T, [1.0]) * 2
        with pytest.warns(UserWarning, match="The .grad attribute of a Tensor that is not a "
                                             "leaf Tensor is being accessed"):
            assert y.grad is None
        y.retain_grad()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert y.grad is None


# ------------------------------------------------------------------ hooks
def test_tensor_hooks_modify_and_remove():
    def f(T):
        x = leaf(T, arr(3))
        seen = []
        hx = x.register_hook(lambda g: g + 1)
        x.register_hook(lambda g: seen.append(("x", g.clone())))
        y = x * 2
        y.register_hook(lambda g: g * 10)
        hy = y.register_hook(lambda g: seen.append(("y", g.clone())))
        (y * y).sum().backward(retain_graph=True)
        first = x.grad.clone()
        hx.remove()
        hy.remove()
        x.grad = None
        (y * y).sum().backward()
        return [first, x.grad, seen]

    same(f)


def test_hooks_run_before_capture_in_grad():
    def f(T):
        x = leaf(T, arr(3))
        x.register_hook(lambda g: g * 100)
        h = x * 2
        h.register_hook(lambda g: g + 1)
        k = h * 3
        k.register_hook(lambda g: g - 5)
        out = (k * k).sum()
        # h's node runs (x is below it): captured before its hook; k leads nowhere: after
        return [T.autograd.grad(out, [x, h, k], retain_graph=True), T.autograd.grad(out, [k])]

    same(f)


def test_post_accumulate_grad_hook():
    def f(T):
        x = leaf(T, arr(3))
        seen = []

        def hook(t):
            seen.append(t.grad.clone())
            t.grad.mul_(0.5)   # e.g. an optimizer step fused into backward

        h = x.register_post_accumulate_grad_hook(hook)
        (x * 2).sum().backward()
        (x * 2).sum().backward()
        h.remove()
        (x * 2).sum().backward()
        return [seen, x.grad]

    same(f)


def test_node_hooks_and_prehooks():
    def f(T):
        x = leaf(T, arr(3))
        c = T.tensor(arr(3, seed=1))
        y = x * c
        seen = []
        y.grad_fn.register_prehook(lambda go: (go[0] * 2,))
        y.grad_fn.register_hook(lambda gi, go: seen.append(("post", gi, go)))
        acc = y.grad_fn.next_functions[0][0]
        acc.register_prehook(lambda go: seen.append(("acc-pre", go)))
        acc.register_hook(lambda gi, go: seen.append(("acc-post", gi, go)))
        h = y.grad_fn.register_hook(lambda gi, go: (gi[0] + 1, gi[1]))
        y.sum().backward(retain_graph=True)
        first = x.grad.clone()
        h.remove()
        y.sum().backward()
        return [first, x.grad, seen]

    same(f)


def test_hook_on_tensor_without_grad_and_handle_context():
    def f(T):
        x = leaf(T, arr(3))
        with x.register_hook(lambda g: g * 0):
            pass   # removed on exit
        (x * 2).sum().backward()
        return x.grad

    same(f)


# ------------------------------------------------------------------ graph shapes
def test_diamond_and_shared_subgraphs():
    def f(T):
        x, w = leaf(T, arr(2, 3)), leaf(T, arr(3, 3, seed=1))
        h = (x @ w).exp()
        a, b = h * 2, h.relu()
        s = (a * b).sum() + (h.sum(0) * h.mean(0)).sum()
        s.backward()
        return [x.grad, w.grad]

    same(f)


def test_output_used_many_times_and_many_roots():
    def f(T):
        x = leaf(T, arr(4))
        y = x * x
        outs = [y * k for k in range(1, 5)]
        T.autograd.backward(outs, [T.ones(4)] * 4)
        return x.grad

    same(f)


def test_backward_through_inplace_on_nonleaf():
    def f(T):
        x, w = leaf(T, arr(2, 3)), leaf(T, arr(2, 3, seed=1))
        y = x * 1
        y.mul_(w)
        y.add_(x)
        y[0].mul_(3)
        v = y.transpose(0, 1)
        v.sub_(1)
        z = (y.exp() * y).sum()
        z.backward()
        return [y.grad_fn.name(), x.grad, w.grad, y]

    same(f)


@pytest.mark.parametrize("case", ["add", "sum", "view", "mul_other_no_grad", "mul",
                                  "matmul", "exp_input"])
def test_which_ops_save_their_inputs(case):
    """PyTorch's rule: modifying an input of add/sum/views keeps backward valid; modifying a
    factor of mul/matmul breaks it only when the other factor needs its gradient."""
    def f(T):
        x = leaf(T, arr(3, 3))
        a = x * 1
        b = T.tensor(arr(3, 3, seed=1), requires_grad=case != "mul_other_no_grad")
        if case == "add":
            out = a + b
        elif case == "sum":
            out = a.sum()
        elif case == "view":
            out = a.view(9)
        elif case in ("mul", "mul_other_no_grad"):
            out = b * a
        elif case == "matmul":
            out = b @ a
        else:
            out = a.exp()   # exp saves its result, not its input
        a.add_(1)
        out.sum().backward()
        return x.grad

    _same_or_same_error(f)


def test_saves_output_flag_engine():
    """OpDef(saves="output"): the engine checks the output's version, not the inputs'."""
    from jtorch._core.dispatch import dispatch
    from jtorch._ops._registry import OpDef

    op = OpDef("_test_exp", lambda input: jnp.exp(input), saves="output",
               grad_name="ExpBackward0")
    x = jtorch.tensor([1.0, 2.0], requires_grad=True)
    a = x * 1
    y = dispatch(op, (a,), {})
    a.add_(1)                              # the input may change
    y.sum().backward(retain_graph=True)
    np.testing.assert_allclose(x.grad.numpy(), np.exp([1.0, 2.0]), rtol=1e-6)
    y.add_(1)                              # the output may not
    with pytest.raises(RuntimeError, match=r"output 0 of Exp, is at version 1; expected "
                                           r"version 0"):
        y.sum().backward()
    y2 = dispatch(op, (x * 1,), {})
    y2.sum().backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second"):
        y2.sum().backward()


# ------------------------------------------------------------------ higher order
def test_higher_order_derivatives():
    def f(T):
        x = leaf(T, arr(4))
        y = (x * x * x).sum() + (x.exp() * x).sum()
        (g1,) = T.autograd.grad(y, x, create_graph=True)
        (g2,) = T.autograd.grad(g1.sum(), x, create_graph=True)
        (g3,) = T.autograd.grad(g2.sum(), x)
        return [g1, g2, g3]

    same(f)


def test_hessian_vector_product_by_double_backward():
    def f(T):
        x, v = leaf(T, arr(3)), T.tensor(arr(3, seed=1))
        a = T.tensor(arr(3, 3, seed=2))
        y = ((a @ x) * x).exp().sum()
        (g,) = T.autograd.grad(y, x, create_graph=True)
        (hv,) = T.autograd.grad((g * v).sum(), x)
        return hv

    same(f)


def test_gradient_penalty_training_pattern():
    """WGAN-GP style: grad of the output wrt the input with create_graph, then backward of a
    penalty on its norm; the weights' .grad holds the second-order term."""
    def f(T):
        w1, w2 = leaf(T, arr(3, 4)), leaf(T, arr(4, 1, seed=1))
        x = leaf(T, arr(5, 3, seed=2))
        out = ((x @ w1).exp() * 0.1 @ w2).sum()
        (gx,) = T.autograd.grad(out, x, create_graph=True)
        penalty = (((gx * gx).sum(1) - 1.0) * ((gx * gx).sum(1) - 1.0)).mean()
        loss = out + 10.0 * penalty
        loss.backward()
        return [gx.requires_grad, w1.grad, w2.grad, x.grad]

    same(f)


def test_create_graph_requires_grad_like_torch():
    def f(T):
        x, w = leaf(T, arr(3)), T.tensor(arr(3, seed=1))
        out = []
        for y in [(x * w).sum(), (x * x).sum(), (x + w).sum(), x.exp().sum(), (x / w).sum(),
                  (w / x).sum(), x.mean(), x.relu().sum()]:
            (g,) = T.autograd.grad(y, x, create_graph=True)
            out.append((g, g.requires_grad))
        return out

    same(f)


def test_grad_of_nonleaf_input_with_create_graph():
    def f(T):
        x = leaf(T, arr(3))
        h = x.exp()
        y = (h * h * x).sum()
        (gh,) = T.autograd.grad(y, h, create_graph=True)
        gh.sum().backward()
        return [gh, x.grad]

    same(f)


# ------------------------------------------------------------------ grad modes
def test_grad_modes_context_and_function():
    def f(T):
        x = leaf(T, arr(2))
        out = [T.is_grad_enabled()]
        with T.no_grad():
            out += [(x * 2).requires_grad, T.is_grad_enabled()]
            with T.enable_grad():
                out += [(x * 2).requires_grad]
            with T.set_grad_enabled(True):
                out += [(x * 2).requires_grad]
            with T.inference_mode(False):
                out += [T.is_grad_enabled(), T.is_inference_mode_enabled()]
        with T.inference_mode():
            out += [(x * 2).requires_grad, T.is_grad_enabled(), T.is_inference_mode_enabled()]
            with T.enable_grad():
                out += [T.is_grad_enabled(), T.is_inference_mode_enabled()]
        T.set_grad_enabled(False)
        out += [T.is_grad_enabled(), (x * 2).requires_grad]
        T.set_grad_enabled(True)
        with T.set_grad_enabled(False):
            out += [T.is_grad_enabled()]
        out += [T.is_grad_enabled(), T.is_inference_mode_enabled()]
        return out

    same(f)


def test_multithreading_flag_is_per_thread_and_restored():
    def f(T):
        import threading

        ag = T.autograd
        out = [ag.is_multithreading_enabled()]
        with ag.set_multithreading_enabled(False):
            seen = []
            t = threading.Thread(target=lambda: seen.append(ag.is_multithreading_enabled()))
            t.start()
            t.join()
            x = leaf(T, arr(2))
            (x * x).sum().backward()
            out += [ag.is_multithreading_enabled(), seen[0], x.grad.tolist()]
        out += [ag.is_multithreading_enabled()]
        ag.set_multithreading_enabled(False)
        out += [ag.is_multithreading_enabled()]
        ag.set_multithreading_enabled(True)
        return out

    same(f)


def test_grad_modes_as_decorators():
    def f(T):
        x = leaf(T, arr(2))

        def probe(v):
            return [(v * 2).requires_grad, T.is_grad_enabled()]

        out = [T.no_grad()(probe)(x), T.no_grad(probe)(x), T.inference_mode()(probe)(x),
               T.inference_mode(probe)(x), T.set_grad_enabled(False)(probe)(x),
               T.is_grad_enabled()]
        with T.no_grad():
            out += [T.enable_grad()(probe)(x), T.enable_grad(probe)(x),
                    T.set_grad_enabled(True)(probe)(x), T.inference_mode(False)(probe)(x)]

        @T.no_grad()
        def gen(v):
            for _ in range(2):
                yield probe(v)
            return "done"

        out += [list(gen(x)), T.is_grad_enabled(), T.no_grad()(probe).__name__]
        g = gen(x)
        next(g)
        out += [T.is_grad_enabled()]   # re-enabled between the generator's steps
        return out

    same(f)


# ------------------------------------------------------------------ autograd.functional
def _fns(T):
    a = T.tensor(arr(3, 3, seed=5))

    def f1(x):
        return (a @ x).exp() * x

    def f2(x, y):
        return (x * y).exp(), (x.exp() @ a * y).relu()

    def s1(x):
        return ((a @ x) * x).exp().sum()

    def s2(x, y):
        return (x.exp() * y * y).sum() + (x * x).sum()

    return f1, f2, s1, s2


@pytest.mark.parametrize("create_graph", [False, True])
def test_functional_jacobian_hessian(create_graph):
    def f(T):
        f1, f2, s1, s2 = _fns(T)
        x, y = leaf(T, arr(3, seed=1), False), leaf(T, arr(3, seed=2), False)
        F = T.autograd.functional
        return [F.jacobian(f1, x, create_graph=create_graph),
                F.jacobian(f2, (x, y), create_graph=create_graph),
                F.jacobian(f1, (x,), create_graph=create_graph),
                F.hessian(s1, x, create_graph=create_graph),
                F.hessian(s2, (x, y), create_graph=create_graph)]

    same(f)


@pytest.mark.parametrize("create_graph", [False, True])
def test_functional_vjp_jvp_hvp_vhp(create_graph):
    def f(T):
        f1, f2, s1, s2 = _fns(T)
        x, y = leaf(T, arr(3, seed=1), False), leaf(T, arr(3, seed=2), False)
        v, u = T.tensor(arr(3, seed=3)), T.tensor(arr(3, seed=4))
        F = T.autograd.functional
        kw = {"create_graph": create_graph}
        return [F.vjp(f1, x, v, **kw), F.vjp(f2, (x, y), (v, u), **kw),
                F.vjp(s1, x, **kw), F.jvp(f1, x, v, **kw), F.jvp(f2, (x, y), (v, u), **kw),
                F.hvp(s1, x, v, **kw), F.hvp(s2, (x, y), (v, u), **kw),
                F.vhp(s1, x, v, **kw), F.vhp(s2, (x, y), (v, u), **kw)]

    same(f)


def test_functional_create_graph_keeps_graph_to_inputs():
    def f(T):
        _, _, s1, _ = _fns(T)
        x = leaf(T, arr(3, seed=1))
        v = T.tensor(arr(3, seed=3))
        out, hv = T.autograd.functional.hvp(s1, x, v, create_graph=True)
        (hv.sum() + out).backward()
        return [out.requires_grad, hv.requires_grad, x.grad]

    same(f)


def test_functional_strict_and_errors():
    def independent(x, y):
        return x * 2

    cases = [
        lambda T: T.autograd.functional.jacobian(lambda x: T.ones(3), T.ones(3), strict=True),
        lambda T: T.autograd.functional.vjp(independent, (T.ones(3), T.ones(3)), T.ones(3),
                                            strict=True),
        lambda T: T.autograd.functional.jacobian(independent, (T.ones(3), T.ones(3)),
                                                 strict=True),
        lambda T: T.autograd.functional.hessian(lambda x: (x * 2).sum(), T.ones(3),
                                                strict=True),
        lambda T: T.autograd.functional.vjp(lambda x: x * 2, T.ones(3)),
        lambda T: T.autograd.functional.jvp(lambda x: x * 2, T.ones(3)),
        lambda T: T.autograd.functional.vjp(lambda x: x * 2, T.ones(3), T.ones(2)),
        lambda T: T.autograd.functional.vjp(lambda x: x * 2, (T.ones(3),), (T.ones(3),) * 2),
        lambda T: T.autograd.functional.hvp(lambda x: x * 2, T.ones(3), T.ones(3)),
        lambda T: T.autograd.functional.hessian(lambda x: (x, x), T.ones(3)),
        lambda T: T.autograd.functional.jacobian(lambda x: 3, T.ones(3)),
        lambda T: T.autograd.functional.vjp(lambda x: x * 2, [T.ones(3)], T.ones(3)),
        lambda T: T.autograd.functional.jacobian(lambda x: x * 2, T.ones(3),
                                                 strategy="forward-mode"),
        lambda T: T.autograd.functional.jacobian(lambda x: x * 2, T.ones(3), vectorize=True,
                                                 strategy="forward-mode", create_graph=True),
        lambda T: T.autograd.functional.jacobian(lambda x: x * 2, T.ones(3), strategy="fwd"),
    ]
    for case in cases:
        _same_error(case)


def test_functional_nonstrict_zeros_for_independent_inputs():
    def f(T):
        F = T.autograd.functional
        x, y = T.ones(3), T.ones(2)
        return [F.jacobian(lambda a, b: a * 2, (x, y)), F.vjp(lambda a, b: a * 2, (x, y), x),
                F.hessian(lambda a, b: (a * a).sum(), (x, y)),
                F.jacobian(lambda a: a.exp() * 2, x, vectorize=True),
                F.jacobian(lambda a: a.exp() * 2, x, vectorize=True, strategy="forward-mode")]

    same(f)


# ------------------------------------------------------------------ the engine under jit
def test_engine_under_jax_jit_matches_eager():
    """Forward and backward with hooks, retain_grad, a create_graph second derivative and a
    custom Function, all on Tensors holding tracers inside jax.jit, equal eager results."""

    class Cube(jtorch.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.save_for_backward(x)
            ctx.k = k
            return x * x * x * k

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x * x * ctx.k, None

    def run(xa, wa):
        x = jtorch.Tensor._make(xa).requires_grad_()
        w = jtorch.Tensor._make(wa).requires_grad_()
        x.register_hook(lambda g: g * 2)
        h = (x @ w).exp()
        h.retain_grad()
        h.register_hook(lambda g: g + 1)
        c = Cube.apply(h, 0.5)
        loss = (c * h).sum() + c.mean()
        (gx,) = jtorch.autograd.grad(loss, x, create_graph=True)
        (gx * gx).sum().backward()
        (gw,) = jtorch.autograd.grad((w * w * w).sum(), w, create_graph=True)
        (g2,) = jtorch.autograd.grad(gw.sum(), w)
        return [gx._value, x.grad._value, w.grad._value, h.grad._value, g2._value]

    xa = jnp.asarray(rand(2, 3, seed=1, low=-0.5, high=0.5))
    wa = jnp.asarray(rand(3, 2, seed=2, low=-0.5, high=0.5))
    eager = run(xa, wa)
    traced = jax.jit(run)(xa, wa)
    for e, t in zip(eager, traced):
        np.testing.assert_allclose(np.asarray(t), np.asarray(e), rtol=1e-5, atol=1e-6)

    # and the same numbers as PyTorch
    def f(T):
        class TCube(T.autograd.Function):
            @staticmethod
            def forward(ctx, x, k):
                ctx.save_for_backward(x)
                ctx.k = k
                return x * x * x * k

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return g * 3 * x * x * ctx.k, None

        x = T.tensor(np.asarray(xa), requires_grad=True)
        w = T.tensor(np.asarray(wa), requires_grad=True)
        x.register_hook(lambda g: g * 2)
        h = (x @ w).exp()
        h.retain_grad()
        h.register_hook(lambda g: g + 1)
        c = TCube.apply(h, 0.5)
        loss = (c * h).sum() + c.mean()
        (gx,) = T.autograd.grad(loss, x, create_graph=True)
        (gx * gx).sum().backward()
        return [gx.detach(), x.grad, w.grad, h.grad]

    expected = f(torch)
    for e, t in zip(expected, traced[:3]):   # h.grad: see the xfail below
        np.testing.assert_allclose(np.asarray(t), e.numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.xfail(strict=True, reason="jtorch differentiates exp's vjp from its input, PyTorch "
                   "from its saved output: in a double backward PyTorch routes part of the "
                   "second-order gradient through the exp output's node, so a retain_grad on "
                   "that output sees more (leaf gradients agree)")
def test_retained_grad_of_saved_output_in_double_backward():
    def f(T):
        x = leaf(T, [0.5, 1.0])
        h = x.exp()
        h.retain_grad()
        (gx,) = T.autograd.grad((h * h * h).sum(), x, create_graph=True)
        gx.sum().backward()
        return [x.grad, h.grad]

    same(f)


def test_gradients_stay_on_the_tensors_device():
    dev = jtorch.device("cpu:1")
    x = jtorch.tensor([1.0, 2.0, 3.0], device=dev, requires_grad=True)
    seen = []
    x.register_hook(lambda g: seen.append(g.device))
    h = x.exp()
    h.retain_grad()
    (g,) = jtorch.autograd.grad((h * x * x).sum(), x, create_graph=True)
    (g2,) = jtorch.autograd.grad(g.sum(), x, retain_graph=True)
    g.sum().backward()
    (jac,) = jtorch.autograd.grad(x * 2, x, jtorch.eye(3, device=dev), is_grads_batched=True)
    for t in (g, g2, x.grad, h.grad, jac, *seen):
        assert (t if isinstance(t, jtorch.device) else t.device) == dev


# ------------------------------------------------------------------ error helpers
def _run(fn, T):
    try:
        return ("ok", fn(T))
    except Exception as e:  # noqa: BLE001 - the exception is the result compared
        return ("error", e)


def _same_error(fn):
    kind_t, t = _run(fn, torch)
    kind_j, j = _run(fn, jtorch)
    assert kind_t == "error", f"torch did not raise: {t!r}"
    assert kind_j == "error", f"jtorch did not raise (torch: {t!r}), got {j!r}"
    assert type(j).__name__ == type(t).__name__ or isinstance(j, type(t)), \
        f"{type(j)} vs {type(t)}: {j}"
    assert str(j).split("\n")[0] == str(t).split("\n")[0]


def _same_or_same_error(fn):
    kind_t, t = _run(fn, torch)
    if kind_t == "error":
        _same_error(fn)
    else:
        _cmp(fn(jtorch), t)


def _variable(T):
    from importlib import import_module

    Variable = import_module(f"{T.__name__}.autograd").Variable
    assert import_module(f"{T.__name__}.autograd.variable").Variable is Variable
    t = T.tensor([[1.0, 2.0], [3.0, 4.0]])
    v = Variable(t, requires_grad=True)
    seen = [v is t, t.requires_grad, v.requires_grad, v.is_leaf, isinstance(v, Variable),
            repr(T.mean(t * t)).replace("torch", "T")]
    (v * v).mean().backward()
    v.data[0, 0] = 5.0                       # the storage is t's
    seen += [v.grad.tolist(), t.grad is None, t.tolist(), Variable(t).requires_grad]
    return seen


def test_variable_is_a_new_leaf_sharing_storage():
    """MorvanZhou/PyTorch-Tutorial's 202_variable.py: Variable(t, requires_grad=True) leaves t
    as it was."""
    assert _variable(jtorch) == _variable(torch)
    raises_like(lambda: torch.autograd.Variable([1, 2]),
                lambda: jtorch.autograd.Variable([1, 2]))


def test_grad_mode_decorating_a_class_warns_and_wraps_as_pytorch():
    """``@no_grad()`` on a class: PyTorch's FutureWarning, and the class becomes a function
    whose calls construct under the mode (jtorch's grad modes and torch.utils._contextlib's
    decorators share one implementation)."""
    def run(T):
        with pytest.warns(FutureWarning, match="Decorating classes is deprecated") as record:
            @T.no_grad()
            class Made:
                def __init__(self):
                    self.grad = T.is_grad_enabled()

        made = Made()
        return type(Made).__name__, made.grad, len(record)

    assert run(jtorch) == run(torch)
