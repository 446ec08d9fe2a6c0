"""torch.autograd.Function against PyTorch: ctx API, setup_context, multiple inputs and
outputs, non-tensor arguments, materialized grads, dirty tensors, once_differentiable,
double backward, and PyTorch's checks on what backward returns."""

import warnings

import numpy as np
import pytest
import torch
from helpers import rand
from test_autograd import _same_error, same

import jtorch


def arr(*shape, seed=0):
    return rand(*shape, seed=seed)


def fns(T):
    """The same custom Functions, written against library T."""

    class MulAdd(T.autograd.Function):
        @staticmethod
        def forward(ctx, x, k, y, flag=True):
            ctx.save_for_backward(x, y)
            ctx.k = k
            idx = T.tensor([1, 2])
            ctx.mark_non_differentiable(idx)
            return x * y * k, idx, x + y, "tag"

        @staticmethod
        def backward(ctx, g_prod, g_idx, g_sum, g_tag):
            x, y = ctx.saved_tensors
            ctx.seen = (ctx.needs_input_grad, g_idx.dtype, g_tag)
            return g_prod * y * ctx.k + g_sum, None, g_prod * x * ctx.k + g_sum, None

    class Square(T.autograd.Function):   # new style: forward without ctx
        @staticmethod
        def forward(x, scale=2.0):
            return x * x * scale

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, scale = inputs
            ctx.save_for_backward(x, output)
            ctx.scale = scale

        @staticmethod
        def backward(ctx, g):
            x, _ = ctx.saved_tensors
            return g * 2 * x * ctx.scale, None

    class Exp(T.autograd.Function):      # saves its output: double backward goes through it
        @staticmethod
        def forward(ctx, x):
            r = x.exp()
            ctx.save_for_backward(r)
            return r

        @staticmethod
        def backward(ctx, g):
            (r,) = ctx.saved_tensors
            return g * r

    class Split(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            ctx.got = (g1 is None, g2 is None)
            out = None
            if g1 is not None:
                out = g1 * 2
            if g2 is not None:
                out = g2 * 3 if out is None else out + g2 * 3
            return out

    class SplitMaterialized(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            ctx.got = (g1.clone(), g2.clone())
            return g1 * 2 + g2 * 3

    class Once(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @T.autograd.function.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    class Dirty(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class Identity(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 5

    class Vjp(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def vjp(ctx, g):
            return g * 7

    return {"MulAdd": MulAdd, "Square": Square, "Exp": Exp, "Split": Split, "Once": Once,
            "Dirty": Dirty, "SplitMaterialized": SplitMaterialized, "Identity": Identity,
            "Vjp": Vjp}


def leaf(T, a, rg=True):
    return T.tensor(a, requires_grad=rg)


def test_multiple_inputs_outputs_non_tensor_args():
    def f(T):
        F = fns(T)["MulAdd"]
        x, y = leaf(T, arr(3)), leaf(T, arr(3, seed=1), rg=False)
        prod, idx, s, tag = F.apply(x, 3, y)
        (prod.sum() + (s * s).sum()).backward()
        gf = prod.grad_fn
        return [prod, idx, s, tag, x.grad, y.grad, idx.requires_grad, s.grad_fn is gf,
                gf.name(), type(gf).__name__,
                [type(n).__name__ if n is not None else None for n, _ in gf.next_functions],
                gf.seen, gf.needs_input_grad, gf.k]

    same(f)


def test_both_inputs_need_grad_and_grad_capture():
    def f(T):
        F = fns(T)["MulAdd"]
        x, y = leaf(T, arr(3)), leaf(T, arr(3, seed=1))
        prod, _, s, _ = F.apply(x, 0.5, y)
        return [T.autograd.grad((prod * s).sum(), [x, y]), prod.grad_fn.seen]

    same(f)


def test_setup_context_binds_defaults_and_double_backward():
    def f(T):
        Sq = fns(T)["Square"]
        x = leaf(T, arr(3))
        y = Sq.apply(x)
        (g,) = T.autograd.grad(y.sum(), x, create_graph=True)
        (g2,) = T.autograd.grad(g.sum(), x)
        y3 = Sq.apply(x, 0.5)
        return [y, g, g2, y3, y.grad_fn.scale, y3.grad_fn.scale, g.requires_grad]

    same(f)


def test_double_backward_through_saved_output():
    def f(T):
        Exp = fns(T)["Exp"]
        x = leaf(T, arr(3))
        y = Exp.apply(x)
        saved_is_output = y.grad_fn.saved_tensors[0].grad_fn is y.grad_fn
        (g,) = T.autograd.grad((y * y).sum(), x, create_graph=True)
        (g2,) = T.autograd.grad(g.sum(), x)
        return [g, g2, saved_is_output]

    same(f)


def test_materialize_grads():
    def f(T):
        x = leaf(T, arr(3))
        a, b = fns(T)["Split"].apply(x)
        b.sum().backward()
        got = b.grad_fn.got
        c, d = fns(T)["SplitMaterialized"].apply(x)
        (d * 2).sum().backward()
        return [got, d.grad_fn.got, x.grad]

    same(f)


def test_mark_dirty():
    def f(T):
        x = leaf(T, arr(3))
        a = x * 1
        v0 = a._version
        y = fns(T)["Dirty"].apply(a)
        y.sum().backward()
        return [y is a, type(a.grad_fn).__name__, x.grad, v0, a._version]

    same(f)
    _same_error(lambda T: fns(T)["Dirty"].apply(leaf(T, arr(3))))


def test_input_returned_as_is_and_vjp_alias():
    def f(T):
        x = leaf(T, arr(3))
        y = fns(T)["Identity"].apply(x)
        y.sum().backward()
        g = x.grad.clone()
        fns(T)["Vjp"].apply(x).sum().backward()
        return [y is x, y.requires_grad, y.is_leaf, g, x.grad]

    same(f)


def test_once_differentiable():
    def f(T):
        x = leaf(T, arr(3))
        y = fns(T)["Once"].apply(x)
        (g,) = T.autograd.grad(y.sum(), x, create_graph=True)
        return [g, g.requires_grad, g.grad_fn is None]

    same(f)

    def twice(T):
        x = leaf(T, arr(3))
        y = fns(T)["Once"].apply(x)
        v = T.ones(3, requires_grad=True)
        (g,) = T.autograd.grad(y, x, v, create_graph=True)
        assert type(g.grad_fn).__name__ == "Error"
        g.sum().backward()

    _same_error(twice)


def test_no_grad_and_no_input_requiring_grad():
    def f(T):
        F = fns(T)["MulAdd"]
        x, y = leaf(T, arr(3)), leaf(T, arr(3, seed=1), rg=False)
        with T.no_grad():
            p, _, s, _ = F.apply(x, 2, y)
        q, _, _, _ = F.apply(y, 2, y)
        return [p.requires_grad, s.requires_grad, p.grad_fn is None, q.requires_grad]

    same(f)


def test_second_backward_and_saved_tensor_checks():
    def twice(T):
        y = fns(T)["Square"].apply(leaf(T, arr(3)))
        y.sum().backward()
        y.sum().backward()

    _same_error(twice)

    def no_saved_twice(T):
        x = leaf(T, arr(3))
        y = fns(T)["Identity"].apply(x)
        y.sum().backward()
        y.sum().backward()
        return x.grad

    same(no_saved_twice)

    def saved_after_free(T):
        y = fns(T)["Exp"].apply(leaf(T, arr(3)))
        y.sum().backward()
        return y.grad_fn.saved_tensors

    _same_error(saved_after_free)

    def modified(T):
        a = leaf(T, arr(3)) * 1
        y = fns(T)["Square"].apply(a)
        a.add_(1)
        y.sum().backward()

    _same_error(modified)

    def retained(T):
        x = leaf(T, arr(3))
        y = fns(T)["Exp"].apply(x)
        y.sum().backward(retain_graph=True)
        y.sum().backward()
        return x.grad

    same(retained)


def test_hooks_and_retain_grad_on_function_outputs():
    def f(T):
        x = leaf(T, arr(3))
        y = fns(T)["Exp"].apply(x * 2)
        y.retain_grad()
        y.register_hook(lambda g: g * 3)
        y.grad_fn.register_hook(lambda gi, go: (gi[0] + 1,))
        (y * y).sum().backward()
        return [y.grad, x.grad]

    same(f)


def _bad(T, ret, nargs=1):
    class Bad(T.autograd.Function):
        @staticmethod
        def forward(ctx, *args):
            return args[-1] * 2

        @staticmethod
        def backward(ctx, g):
            return ret(T, g)

    return Bad


@pytest.mark.parametrize("case", ["too_few", "too_many", "extra_none", "non_tensor_arg",
                                  "bad_shape", "broadcast_shape", "wrong_dtype", "number",
                                  "none_grad"])
def test_backward_return_checks(case):
    def f(T):
        x = leaf(T, arr(3))
        if case == "too_few":
            out = _bad(T, lambda T, g: g).apply(x, x)
        elif case == "too_many":
            out = _bad(T, lambda T, g: (g, g)).apply(x)
        elif case == "extra_none":
            out = _bad(T, lambda T, g: (g, None, None)).apply(x)
        elif case == "non_tensor_arg":
            out = _bad(T, lambda T, g: (T.ones(1), g)).apply(3, x)
        elif case == "bad_shape":
            out = _bad(T, lambda T, g: g[:1]).apply(x)
        elif case == "broadcast_shape":
            out = _bad(T, lambda T, g: T.ones(2, 3) * g).apply(x)
        elif case == "wrong_dtype":
            out = _bad(T, lambda T, g: g.double()).apply(x)
        elif case == "number":
            out = _bad(T, lambda T, g: 3.0).apply(x)
        else:
            out = _bad(T, lambda T, g: None).apply(x)
        out.sum().backward()
        return [x.grad, None if x.grad is None else x.grad.dtype]

    from test_autograd import _same_or_same_error

    _same_or_same_error(f)


def test_class_misuse_errors():
    class F(jtorch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, 3)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g

    class TF(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, 3)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g

    from helpers import raises_like

    raises_like(lambda: TF.apply(torch.ones(2, requires_grad=True)),
                lambda: F.apply(jtorch.ones(2, requires_grad=True)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        raises_like(lambda: TF()(torch.ones(2)), lambda: F()(jtorch.ones(2)))
    for cls in (TF, F):
        with pytest.warns(DeprecationWarning, match="should not be instantiated"):
            cls()

    def both_defined(T):
        class Both(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g

            @staticmethod
            def vjp(ctx, g):
                return g

        Both.apply(T.ones(2, requires_grad=True)).sum().backward()

    _same_error(both_defined)


def test_function_in_larger_graph_matches_builtin_ops():
    def f(T):
        Exp, Sq = fns(T)["Exp"], fns(T)["Square"]
        x, w = leaf(T, arr(2, 3)), leaf(T, arr(3, 2, seed=1))
        h = Exp.apply(x @ w * 0.5)
        out = (Sq.apply(h, 0.25) * h).sum() + h.mean()
        out.backward()
        return [out, x.grad, w.grad]

    expected = same(f)
    # and the same as writing it with built-in ops
    x = jtorch.tensor(arr(2, 3), requires_grad=True)
    w = jtorch.tensor(arr(3, 2, seed=1), requires_grad=True)
    h = (x @ w * 0.5).exp()
    ((h * h * 0.25 * h).sum() + h.mean()).backward()
    np.testing.assert_allclose(x.grad.numpy(), expected[1].numpy(), rtol=1e-5)


def test_gradcheck_and_gradgradcheck():
    def f(T):
        x = T.tensor(rand(3, seed=1).astype(np.float64), requires_grad=True)
        y = T.tensor(rand(3, seed=2).astype(np.float64), requires_grad=True)
        F = fns(T)
        res = [T.autograd.gradcheck(F["Square"].apply, (x,)),
               T.autograd.gradcheck(lambda a, b: (a * b, (a * b).exp()), (x, y)),
               T.autograd.gradgradcheck(F["Exp"].apply, (x,)),
               T.autograd.gradgradcheck(lambda a, b: a * b * b, (x, y)),
               T.autograd.gradcheck(F["Vjp"].apply, (x,), raise_exception=False)]
        return res

    same(f)

    def bad(T):
        x = T.tensor(rand(3, seed=1).astype(np.float64), requires_grad=True)
        T.autograd.gradcheck(fns(T)["Vjp"].apply, (x,))

    _same_error(bad)

    def bad_second(T):
        x = T.tensor(rand(3, seed=1).astype(np.float64), requires_grad=True)
        T.autograd.gradgradcheck(fns(T)["Once"].apply, (x,))

    _same_error(bad_second)


def _identity_functions(T):
    class Id(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    class Row(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x[0]

        @staticmethod
        def backward(ctx, g):
            return T.stack([g, T.zeros_like(g)])

    return Id, Row


@pytest.mark.parametrize("case", ["leaf", "nonleaf", "view_out", "view_of_out", "after_no_grad"])
def test_inplace_on_a_custom_functions_view_output_raises(case):
    """A custom Function's output that is an input returned as-is (or a view of one) may not be
    modified in place where autograd records the write: PyTorch's error, naming the node."""
    def run(T):
        Id, Row = _identity_functions(T)
        a = T.tensor(rand(2, 3, seed=1), requires_grad=True)
        b = a * 1
        if case == "leaf":
            Id.apply(a).add_(1)
        elif case == "nonleaf":
            Id.apply(b).add_(1)
        elif case == "view_out":
            Row.apply(b).add_(1)
        elif case == "view_of_out":
            Id.apply(b)[0].add_(1)
        else:
            y = Id.apply(b)
            with T.no_grad():
                y.add_(1)   # not recorded: allowed
            y.mul_(2)

    _same_error(run)


def test_inplace_on_a_custom_functions_output_where_nothing_is_recorded():
    """The same writes are allowed where autograd records nothing (no input requires grad, or
    under no_grad), with the same values; and ReLU(inplace=True) after a module with a full
    backward hook raises as PyTorch does."""
    def run(T):
        Id, _ = _identity_functions(T)
        c = T.tensor(rand(2, 3, seed=1))
        y = Id.apply(c).add_(1)
        b = T.tensor(rand(2, 3, seed=1), requires_grad=True) * 2
        with T.no_grad():
            z = Id.apply(b).add_(1)
        return y, z

    same(run)

    def hooked_inplace_relu(T):
        T.manual_seed(0)
        m = T.nn.Sequential(T.nn.Linear(3, 3), T.nn.ReLU(inplace=True))
        m[0].register_full_backward_hook(lambda mod, gi, go: None)
        m(T.tensor(rand(2, 3, seed=1), requires_grad=True))

    _same_error(hooked_inplace_relu)


def transform_fns(T):
    """Functions with setup_context whose backward is not the derivative of their forward:
    under torch.func's transforms PyTorch (and jtorch) run the backward."""

    class STE(T.autograd.Function):   # straight-through rounding, scaled by a ctx attribute
        generate_vmap_rule = True

        @staticmethod
        def forward(x, scale, steps):
            return T.round(x * scale)

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, scale, steps = inputs
            ctx.save_for_backward(x)
            ctx.scale, ctx.steps = scale, steps

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * ctx.scale * T.cos(x) + ctx.steps.to(g.dtype), None, None

    class Pair(T.autograd.Function):   # two outputs, tensors kept as ctx attributes
        @staticmethod
        def forward(x, y):
            return x * y, T.floor(x - y)

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, y = inputs
            ctx.parts = [x, y]
            ctx.prod = output[0]

        @staticmethod
        def backward(ctx, g_prod, g_floor):
            x, y = ctx.parts
            return g_prod * y + g_floor + ctx.prod, g_prod * x - g_floor

    return STE, Pair


def test_setup_context_function_under_func_transforms_runs_its_backward():
    def run(T):
        STE, Pair = transform_fns(T)
        x = T.tensor(arr(5, seed=1))
        y = T.tensor(arr(5, seed=2))
        steps = T.tensor(3)

        def loss(x, y):
            a, b = Pair.apply(x, y)
            return (STE.apply(a, 3.0, steps) ** 2).sum() + (b * x).sum()

        res = [T.func.grad(loss, argnums=(0, 1))(x, y),
               T.func.jacrev(lambda x: STE.apply(x, 2.0, steps))(x),
               T.func.vjp(lambda x, y: Pair.apply(x, y), x, y)[1]((T.ones(5), T.ones(5))),
               T.func.vmap(T.func.grad(lambda x: STE.apply(x, 1.5, steps).sum()))(
                   T.stack([x, y]))]
        xr = x.clone().requires_grad_()
        yr = y.clone().requires_grad_()
        loss(xr, yr).backward()   # the tape: the same backward
        res.append((xr.grad, yr.grad))
        return res

    same(run)
