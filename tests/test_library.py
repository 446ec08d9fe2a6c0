"""torch.library's custom ops and torch.ops against PyTorch: the same op defined in both
libraries (a namespace per test: both registries live for the whole process) gives the same
values, gradients and errors, called as the CustomOpDef and through torch.ops."""

import warnings

import numpy as np
import pytest
import torch

import jtorch
import jtorch.library
import jtorch.ops

LIBS = (torch, jtorch)


def arr(*shape, seed=0):
    return np.random.default_rng(seed).uniform(-2, 2, shape).astype(np.float32)


def close(a, b):
    np.testing.assert_allclose(np.asarray(a.detach().numpy()), b.detach().numpy(),
                               rtol=1e-5, atol=1e-6)


def outcome(fn):
    try:
        return None, fn()
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        return e, None


def same_error(fn, normalize=lambda s: s):
    """``fn(T)`` raises the same exception type and message in torch and jtorch."""
    (et, _), (ej, rj) = outcome(lambda: fn(torch)), outcome(lambda: fn(jtorch))
    assert et is not None, "torch did not raise"
    assert ej is not None, f"jtorch did not raise (torch: {et!r}), got {rj!r}"
    assert isinstance(ej, type(et)), f"{type(ej)} vs {type(et)}: {ej}"
    msg_j = normalize(str(ej).replace("jtorch._tensor.Tensor", "torch.Tensor"))
    assert msg_j == normalize(str(et)), (msg_j, str(et))
    return ej


# ------------------------------------------------------------------ an op with autograd
def mysin_op(T, ns, seen=None):
    def mysin(x, w):
        return x.sin() * w

    op = T.library.custom_op(f"{ns}::mysin", mysin, mutates_args=(),
                             schema="(Tensor x, Tensor w) -> Tensor")

    def setup_context(ctx, inputs, output):
        x, w = inputs
        ctx.save_for_backward(x, w)

    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        if seen is not None:
            seen.append(tuple(ctx.needs_input_grad))
        return grad * x.cos() * w, grad * x.sin()

    T.library.register_autograd(f"{ns}::mysin", backward, setup_context=setup_context)
    return op


@pytest.mark.parametrize("through", ["ops", "opdef", "overload"])
def test_custom_op_with_autograd_matches_torch(through):
    res = {}
    for T in LIBS:
        ns = f"jtorch_test_{through}"
        seen = []
        op = mysin_op(T, ns, seen)
        call = {"ops": getattr(T.ops, ns).mysin, "opdef": op,
                "overload": getattr(T.ops, ns).mysin.default}[through]
        x = T.tensor(arr(3, 4), requires_grad=True)
        w = T.tensor(arr(4, seed=1), requires_grad=True)
        y = call(x, w)
        (y * y).sum().backward()
        res[T] = (y, x.grad, w.grad, type(y.grad_fn).__name__, seen, repr(op))
    (yt, gxt, gwt, nt, st, rt), (yj, gxj, gwj, nj, sj, rj) = res[torch], res[jtorch]
    close(yj, yt)
    close(gxj, gxt)
    close(gwj, gwt)
    assert nj == nt == f"GeneratedBackwardFor_jtorch_test_{through}_mysin_defaultBackward"
    assert sj == st == [(True, True)]
    assert rj == rt


def test_needs_input_grad_and_none_gradient():
    res = {}
    for T in LIBS:
        seen = []
        op = mysin_op(T, "jtorch_test_needs", seen)
        x = T.tensor(arr(5), requires_grad=True)
        w = T.tensor(arr(5, seed=2))
        op(x, w).sum().backward()
        res[T] = (x.grad, seen)
    close(res[jtorch][0], res[torch][0])
    assert res[jtorch][1] == res[torch][1] == [(True, False)]


def test_no_grad_and_inputs_without_grad_record_nothing():
    for T in LIBS:
        op = mysin_op(T, "jtorch_test_nograd")
        x = T.tensor(arr(3), requires_grad=True)
        with T.no_grad():
            y = op(x, T.ones(3))
        assert not y.requires_grad and y.grad_fn is None
        y = op(T.ones(3), T.ones(3))
        assert not y.requires_grad and y.grad_fn is None


# ------------------------------------------------------------------ decorator, schema
def test_decorator_with_type_hints_infers_the_schema():
    res = {}
    for T in LIBS:
        @T.library.custom_op("jtorch_test_deco::scaled", mutates_args=())
        def scaled(x: T.Tensor, alpha: float = 2.0, bias: T.Tensor | None = None, *,
                   k: int = 3) -> T.Tensor:
            out = x * alpha * k
            return out if bias is None else out + bias

        x = T.tensor(arr(4))
        res[T] = (scaled._schema, scaled(x), scaled(x, 0.5, k=1),
                  T.ops.jtorch_test_deco.scaled(x, alpha=1.5, bias=T.ones(4)),
                  T.library.infer_schema(scaled._init_fn, mutates_args=()))
    assert res[jtorch][0] == res[torch][0] == \
        "(Tensor x, float alpha=2.0, Tensor? bias=None, *, SymInt k=3) -> Tensor"
    for a, b in zip(res[jtorch][1:4], res[torch][1:4]):
        close(a, b)
    assert res[jtorch][4] == res[torch][4]


def test_infer_schema_of_lists_and_tuples():
    for T in LIBS:
        def f(xs: list[T.Tensor], dims: list[int], d: T.dtype = T.float32,
              s: str = "a") -> tuple[T.Tensor, T.Tensor]:
            raise AssertionError

        assert T.library.infer_schema(f, mutates_args=(), op_name="f") == \
            'f(Tensor[] xs, SymInt[] dims, ScalarType d=float32, str s="a") -> (Tensor, Tensor)'
        assert T.library.infer_schema(f, mutates_args="unknown").startswith(
            "(Tensor(a0!)[] xs, SymInt[] dims")
        # transformers and others import it from its own module
        assert T._library.infer_schema.infer_schema is T.library.infer_schema


@pytest.mark.parametrize("case", ["missing", "string", "unknown_name", "not_iterable",
                                  "schema_mismatch", "no_hints", "bad_schema", "kwarg_tensor"])
def test_mutates_args_and_schema_errors(case):
    def make(T):
        def f(x: T.Tensor) -> T.Tensor:
            return x.clone()

        def g(x):
            return x.clone()

        name = f"jtorch_test_mut_{case}::f"
        if case == "missing":
            return T.library.custom_op(name, f)
        if case == "no_hints":
            return T.library.custom_op(name, g, mutates_args=())
        if case == "bad_schema":
            return T.library.custom_op(name, g, mutates_args=(), schema="bad")
        if case == "kwarg_tensor":
            return T.library.custom_op(name, g, mutates_args=(),
                                       schema="(Tensor x, *, Tensor y) -> Tensor")
        if case == "schema_mismatch":
            return T.library.custom_op(name, g, mutates_args=("y",),
                                       schema="(Tensor x) -> Tensor")
        args = {"string": "x", "unknown_name": ("y",), "not_iterable": 3}[case]
        return T.library.custom_op(name, f, mutates_args=args)

    same_error(make)


@pytest.mark.parametrize("name", ["badname", "a::b::c"])
def test_bad_name(name):
    def make(T):
        def f(x: T.Tensor) -> T.Tensor:
            return x.clone()

        return T.library.custom_op(name, f, mutates_args=())

    same_error(make)


def test_call_binding_errors():
    def op(T):
        @T.library.custom_op("jtorch_test_bind::f", mutates_args=())
        def f(x: T.Tensor, k: int = 2, *, m: int = 1) -> T.Tensor:
            return x * k * m

        return f

    ops = {T: op(T) for T in LIBS}
    for call in (lambda T, f: f(T.ones(2), 1, 2), lambda T, f: f(),
                 lambda T, f: f(T.ones(2), q=1), lambda T, f: f(T.ones(2), 1, m=1, q=3),
                 lambda T, f: f(T.ones(2), x=T.ones(2))):
        same_error(lambda T, call=call: call(T, ops[T]))
    close(ops[jtorch](jtorch.ones(2), m=3), ops[torch](torch.ones(2), m=3))


# ------------------------------------------------------------------ without a formula
def test_no_autograd_formula_raises_at_backward():
    ys = {}
    for T in LIBS:
        def f(x: T.Tensor) -> T.Tensor:
            return x.sin()

        op = T.library.custom_op("jtorch_test_noformula::f", f, mutates_args=())
        ys[T] = op(T.tensor(arr(3), requires_grad=True))
        assert ys[T].requires_grad
    assert type(ys[jtorch].grad_fn).__name__ == type(ys[torch].grad_fn).__name__
    same_error(lambda T: ys[T].sum().backward())


def test_mutating_op_bumps_versions_and_refuses_autograd():
    res = {}
    for T in LIBS:
        def add_one(x: T.Tensor) -> None:
            x.add_(1)

        op = T.library.custom_op("jtorch_test_mutate::add_one", add_one, mutates_args=("x",))
        x = T.zeros(3)
        out = op(x)
        res[T] = (out, x, x._version, op._schema)
    assert res[jtorch][0] is None and res[torch][0] is None
    close(res[jtorch][1], res[torch][1])
    assert res[jtorch][2:] == res[torch][2:]
    same_error(lambda T: T.library.register_autograd("jtorch_test_mutate::add_one",
                                                     lambda ctx, g: g))


def test_returning_an_input_is_an_error():
    def make(T):
        @T.library.custom_op("jtorch_test_alias::ident", mutates_args=())
        def ident(x: T.Tensor) -> T.Tensor:
            return x

        return ident(T.ones(2))

    same_error(make, normalize=lambda s: s.split("): ", 1)[1])


# ------------------------------------------------------------------ kernels per device type
def test_register_kernel_for_cpu():
    res = {}
    for T in LIBS:
        def f(x: T.Tensor) -> T.Tensor:
            return x * 2

        op = T.library.custom_op("jtorch_test_kernel::f", f, mutates_args=())
        a = op(T.ones(2))
        T.library.register_kernel("jtorch_test_kernel::f", "cpu", lambda x: x * 3)
        b = T.ops.jtorch_test_kernel.f(T.ones(2))

        @op.register_kernel("cpu")
        def _(x):
            return x * 4

        c = op(T.ones(2))
        with op.set_kernel_enabled("cpu", False):
            d = op(T.ones(2))
        res[T] = (a, b, c, d)
    for a, b in zip(res[jtorch], res[torch]):
        close(a, b)


def test_kernel_for_another_device_only():
    def make(T):
        @T.library.custom_op("jtorch_test_cuda_only::f", mutates_args=(), device_types="cuda")
        def f(x: T.Tensor) -> T.Tensor:
            return x.clone()

        return f(T.ones(2))

    first = "Could not run 'jtorch_test_cuda_only::f' with arguments from the 'CPU' backend."
    same_error(make, normalize=lambda s: s[:len(first)])


# ------------------------------------------------------------------ transformers' grouped mm
def grouped_mm_ops(T, ns):
    def gmm(input, weight, offs):
        out = T.zeros(input.size(0), weight.size(2), dtype=input.dtype)
        start = 0
        for i, end in enumerate(offs.tolist()):
            if end > start:
                out[start:end] = input[start:end] @ weight[i]
            start = end
        return out

    def gmm_fake(input, weight, offs):
        return T.empty(input.size(0), weight.size(2), device=input.device, dtype=input.dtype)

    def gmm_backward(grad_output, input, weight, offs):
        grad_input, grad_weight = T.zeros_like(input), T.zeros_like(weight)
        start = 0
        for i, end in enumerate(offs.tolist()):
            if end > start:
                T.mm(grad_output[start:end], weight[i].T, out=grad_input[start:end])
                T.mm(input[start:end].T, grad_output[start:end], out=grad_weight[i])
            start = end
        return grad_input, grad_weight

    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0], inputs[1])
        ctx.offs = inputs[2]

    def backward(ctx, grad_output):
        input, weight = ctx.saved_tensors
        gi, gw = getattr(T.ops, ns).gmm_backward(grad_output, input, weight, ctx.offs)
        return gi, gw, None

    T.library.custom_op(f"{ns}::gmm", gmm, mutates_args=(),
                        schema="(Tensor input, Tensor weight, Tensor offs) -> Tensor")
    T.library.register_fake(f"{ns}::gmm", gmm_fake)
    T.library.register_autograd(f"{ns}::gmm", backward, setup_context=setup_context)
    T.library.custom_op(f"{ns}::gmm_backward", gmm_backward, mutates_args=(),
                        schema="(Tensor grad_output, Tensor input, Tensor weight, Tensor offs)"
                               " -> (Tensor, Tensor)")


def test_grouped_mm_like_transformers():
    res = {}
    for T in LIBS:
        grouped_mm_ops(T, "jtorch_test_gmm")
        x = T.tensor(arr(7, 3), requires_grad=True)
        w = T.tensor(arr(3, 3, 4, seed=1), requires_grad=True)
        offs = T.tensor([2, 2, 7], dtype=T.int32)
        y = T.ops.jtorch_test_gmm.gmm(x, w, offs)
        (y * T.tensor(arr(7, 4, seed=2))).sum().backward()
        meta = T.ops.jtorch_test_gmm.gmm(T.empty(7, 3, device="meta"),
                                         T.empty(3, 3, 4, device="meta"), offs.to("meta"))
        res[T] = (y, x.grad, w.grad, tuple(meta.shape), meta.device.type)
    for a, b in zip(res[jtorch][:3], res[torch][:3]):
        close(a, b)
    assert res[jtorch][3:] == res[torch][3:] == ((7, 4), "meta")


# ------------------------------------------------------------------ tensor lists
def test_tensor_list_inputs_and_outputs():
    res = {}
    for T in LIBS:
        @T.library.custom_op("jtorch_test_list::scale_all", mutates_args=())
        def scale_all(xs: list[T.Tensor], w: T.Tensor) -> list[T.Tensor]:
            return [x * w for x in xs]

        def setup_context(ctx, inputs, output):
            ctx.xs, ctx.w = inputs

        def backward(ctx, grads):
            return [g * ctx.w for g in grads], sum(g * x for g, x in zip(grads, ctx.xs))

        scale_all.register_autograd(backward, setup_context=setup_context)
        a = T.tensor(arr(3), requires_grad=True)
        w = T.tensor(arr(3, seed=3), requires_grad=True)
        out = scale_all([a, a * 2], w)
        assert isinstance(out, list) and len(out) == 2
        (out[0] * out[1]).sum().backward()
        res[T] = (*out, a.grad, w.grad)
    for a, b in zip(res[jtorch], res[torch]):
        close(a, b)


# ------------------------------------------------------------------ compile
def test_compile_matches_eager():
    op = mysin_op(jtorch, "jtorch_test_compile")

    def step(x, w):
        loss = (jtorch.ops.jtorch_test_compile.mysin(x, w) ** 2).sum()
        gx, gw = jtorch.autograd.grad(loss, (x, w))
        return op(x, w), loss, gx, gw

    x = jtorch.tensor(arr(3, 4), requires_grad=True)
    w = jtorch.tensor(arr(4, seed=1), requires_grad=True)
    eager = step(x, w)
    compiled = jtorch.compile(step)
    fallbacks = jtorch.compiler.counters()["fallbacks"]   # other tests' count before this one
    for _ in range(2):
        for a, b in zip(compiled(x, w), eager):
            close(a, b)
    assert jtorch.compiler.counters()["fallbacks"] == fallbacks


# ------------------------------------------------------------------ torch.ops, registrations
def test_ops_namespace_errors_and_names():
    for T in LIBS:
        mysin_op(T, "jtorch_test_names")
    same_error(lambda T: T.ops.jtorch_test_names.nope)
    same_error(lambda T: T.ops.jtorch_test_no_such_namespace.nope)
    same_error(lambda T: T.ops.jtorch_test_names.mysin.nope)
    for attr in (str, repr, lambda p: p.overloads(), lambda p: p._qualified_op_name,
                 lambda p: p.__name__, lambda p: str(p.default), lambda p: repr(p.default),
                 lambda p: p.default.name(), lambda p: p.default.__name__):
        assert attr(jtorch.ops.jtorch_test_names.mysin) == attr(torch.ops.jtorch_test_names.mysin)
    assert "mysin" in dir(jtorch.ops.jtorch_test_names)
    assert jtorch.ops.jtorch_test_names.mysin.default is \
        jtorch.library.OPDEFS["jtorch_test_names::mysin"]._opoverload


def test_aten_namespace_maps_to_jtorch_ops():
    x = arr(2, 3)
    for name, overload, args in [("sin", "default", ()), ("add", "Tensor", (arr(3, seed=1),)),
                                 ("view", "default", ([3, 2],)), ("sum", "dim_IntList", ([1],))]:
        def call(T, name=name, overload=overload, args=args):
            packet = getattr(T.ops.aten, name)
            conv = [T.tensor(a) if isinstance(a, np.ndarray) else a for a in args]
            return getattr(packet, overload)(T.tensor(x), *conv), packet(T.tensor(x), *conv)

        for a, b in zip(call(jtorch), call(torch)):
            close(a, b)
    assert not hasattr(jtorch.ops.aten, "jtorch_test_no_such_op")
    with pytest.raises(NotImplementedError, match="torch.ops.aten.jtorch_test_no_such_op"):
        jtorch.ops.aten.jtorch_test_no_such_op  # noqa: B018


def test_registration_errors_for_unknown_ops():
    same_error(lambda T: T.library.register_fake("jtorch_test_unknown::f", lambda x: x))
    same_error(lambda T: T.library.register_fake("no_namespace", lambda x: x))
    same_error(lambda T: T.library.register_fake(3, lambda x: x))
    same_error(lambda T: T.library.register_autograd("jtorch_test_unknown::f",
                                                     lambda ctx, g: g))


def test_kernel_registered_before_the_op():
    res = {}
    for T in LIBS:
        T.library.register_kernel("jtorch_test_early::f", "cpu", lambda x: x * 5)

        @T.library.custom_op("jtorch_test_early::f", mutates_args=())
        def f(x: T.Tensor) -> T.Tensor:
            return x * 2

        res[T] = f(T.ones(2))
    close(res[jtorch], res[torch])


def test_register_fake_forms_get_ctx_and_impl_abstract():
    for T in LIBS:
        @T.library.custom_op("jtorch_test_fake::f", mutates_args=())
        def f(x: T.Tensor) -> T.Tensor:
            return x.sum(0)

        @T.library.register_fake("jtorch_test_fake::f")
        def _(x):
            return x.new_empty(x.shape[1:])

        assert T.library.get_ctx() is None
        assert tuple(f(T.empty(3, 4, device="meta")).shape) == (4,)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            T.library.impl_abstract("jtorch_test_fake::f", lambda x: x.new_empty(2))
        assert [x.category for x in w] == [FutureWarning]
        assert str(w[0].message).startswith("`torch.library.impl_abstract` was renamed to "
                                            "`torch.library.register_fake`.")
        assert tuple(f(T.empty(3, 4, device="meta")).shape) == (2,)


def test_get_ctx_in_a_fake_impl_on_meta_tensors():
    def make(T):
        @T.library.custom_op("jtorch_test_fake_ctx::f", mutates_args=())
        def f(x: T.Tensor) -> T.Tensor:
            return x.sum(0)

        f.register_fake(lambda x: x.new_empty(T.library.get_ctx().new_dynamic_size()))
        return f(T.empty(3, device="meta"))

    same_error(make)


def test_all_and_stand_ins():
    assert jtorch.library.__all__ == torch.library.__all__
    with pytest.raises(NotImplementedError, match="torch.library.Library"):
        jtorch.library.Library("jtorch_test_lib", "DEF")
    with pytest.raises(NotImplementedError, match="torch.library.define"):
        jtorch.library.define("jtorch_test_lib::f", "(Tensor x) -> Tensor")
    with pytest.raises(NotImplementedError, match="torch.ops.load_library"):
        jtorch.ops.load_library("libfoo.so")
    same_error(lambda T: T.library.fallthrough_kernel())
