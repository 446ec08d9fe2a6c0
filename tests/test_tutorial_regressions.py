"""Regressions found by running pytorch/tutorials' scripts under jtorch (docs/real-programs.md):
each test is a small stand-in for what the tutorial did, run in jtorch and in real PyTorch."""

import numpy as np
import pytest
import torch

import jtorch


def _names(node):
    return [None if f is None else type(f).__name__ for f, _ in node.next_functions]


def _linear_graph(T, shape, bias):
    T.manual_seed(0)
    w = T.tensor(np.linspace(-1, 1, 12).reshape(4, 3), dtype=T.float32, requires_grad=True)
    b = T.tensor([0.5, -0.25, 0.125, 1.0], requires_grad=True) if bias else None
    x = T.tensor(np.linspace(-2, 2, int(np.prod(shape))).reshape(shape), dtype=T.float32,
                 requires_grad=True)
    y = T.nn.functional.linear(T.relu(x), w, b)
    return x, w, b, y


@pytest.mark.parametrize("bias", [True, False])
def test_linear_node_lists_its_inputs_as_pytorch(bias):
    # beginner_source/blitz/neural_networks_tutorial.py prints
    # loss.grad_fn.next_functions[0][0].next_functions[0][0]: the last Linear's AddmmBackward0
    # lists the bias first (addmm(bias, input, weight.t())), so that is an AccumulateGrad
    *_, y = _linear_graph(jtorch, (2, 3), bias)
    *_, expected = _linear_graph(torch, (2, 3), bias)
    got, want = _names(y.grad_fn), _names(expected.grad_fn)
    assert type(y.grad_fn).__name__ == type(expected.grad_fn).__name__
    # PyTorch passes the weight through a TBackward0 (its t()); jtorch's edge goes to the
    # weight's AccumulateGrad directly
    assert got[:-1] == want[:-1]
    assert want[-1] == "TBackward0" and got[-1] == "AccumulateGrad"
    if bias:
        assert got[0] == "AccumulateGrad" and got[1] == "ReluBackward0"


def test_linear_node_hooks_see_the_bias_gradient_first():
    # a node hook's grad_inputs follow next_functions: (bias, input, ...)
    seen = {}
    for name, T in (("jtorch", jtorch), ("torch", torch)):
        x, w, b, y = _linear_graph(T, (2, 3), True)
        grads = []
        y.grad_fn.register_hook(lambda gi, go, grads=grads: grads.extend(gi))
        (y * T.arange(8.0).reshape(2, 4)).sum().backward()
        seen[name] = grads, (x.grad, w.grad, b.grad)
    (jgi, (jx, jw, jb)), (tgi, (tx, tw, tb)) = seen["jtorch"], seen["torch"]
    np.testing.assert_allclose(jgi[0].numpy(), tgi[0].numpy(), rtol=1e-6)  # the bias's
    np.testing.assert_allclose(jgi[1].numpy(), tgi[1].numpy(), rtol=1e-6)  # relu(x)'s
    np.testing.assert_allclose(jb.numpy(), tb.numpy(), rtol=1e-6)
    np.testing.assert_allclose(jw.numpy(), tw.numpy(), rtol=1e-6)
    np.testing.assert_allclose(jx.numpy(), tx.numpy(), rtol=1e-6)


def test_linear_bias_edge_is_the_bias_parameter():
    # the AccumulateGrad the tutorial reaches holds the last layer's bias
    for T in (jtorch, torch):
        layer = T.nn.Linear(3, 2)
        out = layer(T.relu(T.ones(1, 3, requires_grad=True)))
        loss = T.nn.functional.mse_loss(out, T.zeros(1, 2))
        acc = loss.grad_fn.next_functions[0][0].next_functions[0][0]
        assert type(acc).__name__ == "AccumulateGrad"
        assert acc.variable is layer.bias


def test_utils_benchmark_timer_measures_a_statement():
    # intermediate_source/per_sample_grads.py, ensembling.py and jacobians_hessians.py time
    # with torch.utils.benchmark.Timer(stmt, globals=...).timeit(n) and print the Measurement
    import torch.utils.benchmark as tbench

    import jtorch.utils.benchmark as jbench

    for T, bench in ((jtorch, jbench), (torch, tbench)):
        x = T.ones(4)
        timer = bench.Timer(stmt="x * 2", globals={"x": x})
        m = timer.timeit(7)
        assert m.number_per_run == 7 and len(m.times) == 1 and m.times[0] > 0
        assert m.times[0] == m.raw_times[0] / 7
        lines = repr(m).splitlines()
        assert "utils.common.Measurement object at" in lines[0]
        assert lines[1] == "x * 2"
        assert lines[3] == "  1 measurement, 7 runs , 1 thread"
        blocked = bench.Timer("x + 1", globals={"x": x}).blocked_autorange(min_run_time=0.01)
        assert len(blocked.times) >= 1 and blocked.median > 0
        assert "measurement" in repr(blocked)


def _saved_tensors_graph(T):
    a = T.tensor([1.0, -2.0, 3.0], requires_grad=True)
    b = T.tensor([0.5, 0.25, 2.0], requires_grad=True)
    return a, b


def test_grad_fn_saved_inputs_are_the_input_tensors():
    # intermediate_source/autograd_saved_tensors_hooks_tutorial.py prints
    # y.grad_fn._saved_self / _saved_other of y = a * b, and `is a` / `is b`
    for T in (jtorch, torch):
        a, b = _saved_tensors_graph(T)
        y = a * b
        assert y.grad_fn._saved_self is a and y.grad_fn._saved_other is b
        # a number operand is wrapped into a 0-d tensor; self is saved only when other needs
        # a gradient
        z = a * 2
        assert z.grad_fn._saved_self is None
        assert z.grad_fn._saved_other.item() == 2 and z.grad_fn._saved_other.dim() == 0
        p = a.pow(2)
        assert p.grad_fn._saved_self is a and p.grad_fn._saved_exponent == 2
        with pytest.raises(AttributeError):
            p.grad_fn._saved_no_such_value
        with pytest.raises(AttributeError):
            (a + b).grad_fn._saved_self   # add's formula saves no tensor
        p.sum().backward()
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            p.grad_fn._saved_self


def test_grad_fn_saved_result_is_a_new_tensor_of_the_output():
    for T in (jtorch, torch):
        a, _ = _saved_tensors_graph(T)
        y = T.exp(a)
        r = y.grad_fn._saved_result
        assert r.equal(y) and r is not y and r.grad_fn is y.grad_fn
        with T.no_grad():
            y.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.grad_fn._saved_result
        # the graph keeps the value of an output nothing else holds any more
        node = T.exp(a * 1).sum().grad_fn.next_functions[0][0]
        np.testing.assert_allclose(node._saved_result.detach().numpy(), np.exp([1.0, -2.0, 3.0]),
                                   rtol=1e-6)


def test_grad_fn_saved_under_hooks_unpacks_at_each_read():
    # the tutorial's "Double access failed!": each read of _saved_self calls the unpack hook
    for T in (jtorch, torch):
        x = T.ones(3, requires_grad=True)
        calls = []
        def unpack(p, calls=calls):
            calls.append(p)
            return p[1] * 1

        with T.autograd.graph.saved_tensors_hooks(lambda t: ("packed", t), unpack):
            y = x.pow(2)
        assert y.grad_fn._saved_self.equal(x)
        assert y.grad_fn._saved_self.equal(x)
        assert len(calls) == 2


def test_grad_fn_saved_names_jtorch_lacks_raise_not_implemented():
    a, b = _saved_tensors_graph(jtorch)
    y = a + b   # PyTorch has AddBackward0._saved_alpha (1); jtorch did not record a default
    assert torch.add(*_saved_tensors_graph(torch)).grad_fn._saved_alpha == 1
    with pytest.raises(NotImplementedError, match="AddBackward0._saved_alpha"):
        y.grad_fn._saved_alpha
    with pytest.raises(NotImplementedError, match="_raw_saved_self"):
        (a * b).grad_fn._raw_saved_self


def test_saved_tensors_hooks_pack_a_bilinear_ops_other_operand_first():
    # the tutorial prints "Packing ..." / "Unpacking ..." for y = a * b: PyTorch's MulBackward0
    # (and mm's) saves other before self, so its hooks see b first
    for m, n in (((5,), (5,)), ((2, 3), (3, 2))):
        seen = {}
        for T in (jtorch, torch):
            a = T.ones(m, requires_grad=True)
            b = T.full(n, 2.0, requires_grad=True)
            log = []
            with T.autograd.graph.saved_tensors_hooks(
                    lambda t, log=log: log.append(("pack", t.sum().item())) or t,
                    lambda t, log=log: log.append(("unpack", t.sum().item())) or t):
                y = a * b if m == n else a @ b
            y.sum().backward()
            seen[T.__name__] = log
        assert seen["jtorch"] == seen["torch"]


def test_tensor_is_view_as_pytorch():
    # torchviz.make_dot (custom_function_double_backward_tutorial.py) calls var._is_view()
    got = {}
    for T in (jtorch, torch):
        x = T.ones(3, requires_grad=True)
        y = x * 2
        ts = (x, x[1:], x.detach(), x.data, y.view(3), y[1:].detach(), x.view(3).view(3),
              x.detach()[1:], x.data[1:], x[1:].detach()[1:])
        got[T.__name__] = [t._is_view() for t in ts]
    assert got["jtorch"] == got["torch"]


def _exp_functions(T):
    class Exp(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.result = T.exp(x)
            return ctx.result

        @staticmethod
        def jvp(ctx, g):
            return g * ctx.result

    class WrongJvp(Exp):
        @staticmethod
        def jvp(ctx, g):
            return g * 2 * ctx.result

    class NoJvp(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    return Exp, WrongJvp, NoJvp


def test_custom_function_jvp_gives_the_forward_tangent():
    # forward_ad_usage.py: a custom Function's tangent is its jvp's, not its forward's
    res = {}
    for T in (jtorch, torch):
        fwAD = T.autograd.forward_ad
        Exp, WrongJvp, NoJvp = _exp_functions(T)
        x = T.tensor([[0.5, -1.0], [2.0, 0.25]], dtype=T.float64, requires_grad=True)
        t = T.tensor([[1.0, 2.0], [-1.0, 0.5]], dtype=T.float64)
        with fwAD.dual_level():
            good = fwAD.unpack_dual(Exp.apply(fwAD.make_dual(x, t))).tangent.detach().numpy()
            wrong = fwAD.unpack_dual(WrongJvp.apply(fwAD.make_dual(x, t))).tangent.detach().numpy()
            with pytest.raises(NotImplementedError, match="implement the jvp function"):
                NoJvp.apply(fwAD.make_dual(x, t))
        res[T.__name__] = good, wrong
    np.testing.assert_allclose(res["jtorch"][0], res["torch"][0], rtol=1e-12)
    np.testing.assert_allclose(res["jtorch"][1], res["torch"][1], rtol=1e-12)


def test_gradcheck_checks_forward_mode():
    # forward_ad_usage.py: gradcheck(..., check_forward_ad=True, check_backward_ad=False)
    for T in (jtorch, torch):
        Exp, WrongJvp, _ = _exp_functions(T)
        x = T.tensor([[0.5, -1.0], [2.0, 0.25]], dtype=T.float64, requires_grad=True)
        kw = {"check_forward_ad": True, "check_backward_ad": False,
              "check_undefined_grad": False, "check_batched_grad": False}
        assert T.autograd.gradcheck(Exp.apply, (x,), **kw)
        assert not T.autograd.gradcheck(WrongJvp.apply, (x,), raise_exception=False, **kw)
        with pytest.raises(RuntimeError, match="Jacobian computed with forward mode mismatch"):
            T.autograd.gradcheck(WrongJvp.apply, (x,), **kw)
        assert T.autograd.gradcheck(lambda a: (a.sin() * a).sum(0), (x,),
                                    check_forward_ad=True)


def _linear_with_weights(T):
    model = T.nn.Linear(3, 2)
    with T.no_grad():
        model.weight.copy_(T.tensor(np.linspace(-1, 1, 6).reshape(2, 3), dtype=T.float32))
        model.bias.copy_(T.tensor([0.25, -0.5]))
    return model


@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_functorch_make_functional_with_buffers_and_jvp():
    # forward_ad_usage.py ends with functorch.make_functional_with_buffers and functorch.jvp;
    # under jtorch `import functorch` (PyTorch's package) imports torch._functorch
    results = {}
    for T in (jtorch, torch):
        if T is jtorch:
            from jtorch._functorch import deprecated as ft
        else:
            import functorch as ft
        model = _linear_with_weights(T)
        x = T.tensor(np.linspace(-2, 2, 12).reshape(4, 3), dtype=T.float32)
        tangents = tuple(T.ones_like(p) * 0.5 for p in model.parameters())
        func, params, buffers = ft.make_functional_with_buffers(model)
        assert type(func).__name__ == "FunctionalModuleWithBuffers" and buffers == ()
        assert all(p.requires_grad for p in params)
        out, jvp_out = ft.jvp(lambda p, f=func, b=buffers, x=x: f(p, b, x), (params,),
                              (tangents,))
        f2, p2 = ft.make_functional(model, disable_autograd_tracking=True)
        assert not p2[0].requires_grad
        fm, ps, bs = ft.combine_state_for_ensemble([_linear_with_weights(T) for _ in range(3)])
        ens = ft.vmap(fm, in_dims=(0, 0, None))(ps, bs, x)
        results[T.__name__] = [a.detach().numpy() for a in (out, jvp_out, f2(p2, x), ens)]
    for j, t in zip(results["jtorch"], results["torch"]):
        np.testing.assert_allclose(j, t, rtol=1e-6, atol=1e-6)


def test_random_pruning_draws_through_torch_rand_like(monkeypatch):
    # pruning_tutorial.py under scripts/shared_rng_run.py: PyTorch's RandomUnstructured draws
    # with torch.rand_like, looked up at each call, so replacing torch.rand_like replaces them
    import torch.nn.utils.prune  # noqa: F401  # PyTorch's is a submodule imported on demand

    masks = {}
    for T in (jtorch, torch):
        scores = T.tensor([[0.9, 0.1, 0.5], [0.3, 0.8, 0.2]])
        monkeypatch.setattr(T, "rand_like", lambda t, scores=scores, **kw: scores.clone())
        layer = T.nn.Linear(3, 2)
        T.nn.utils.prune.random_unstructured(layer, "weight", amount=2)
        masks[T.__name__] = layer.weight_mask.numpy()
    np.testing.assert_array_equal(masks["jtorch"], masks["torch"])
    np.testing.assert_array_equal(masks["torch"], [[0, 1, 1], [1, 0, 1]])


def test_removed_linalg_functions_raise_pytorchs_error():
    # intermediate_source/parametrizations.py calls torch.solve (removed in PyTorch 1.9): PyTorch
    # raises a RuntimeError naming torch.linalg.solve, which jtorch must raise too
    messages = {}
    for T in (jtorch, torch):
        a = T.eye(2)
        calls = ((T.solve, (a, a)), (a.solve, (a,)), (T.lstsq, (a, a)), (a.lstsq, (a,)),
                 (T.symeig, (a,)), (a.symeig, ()), (T.eig, (a,)), (a.eig, ()),
                 (T.matrix_rank, (a,)))
        got = []
        for fn, args in calls:
            with pytest.raises(RuntimeError, match="deprecated since version 1.9") as err:
                fn(*args)
            got.append(str(err.value))
        messages[T.__name__] = got
    assert messages["jtorch"] == messages["torch"]


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rnn_outputs_grad_fn_names_as_pytorch_on_cpu(mode, dtype):
    # nlp/sequence_models_tutorial.py prints an LSTM's output: PyTorch's CPU LSTM ends it with
    # oneDNN's MkldnnRnnLayerBackward0; other configurations end with other ops
    names = {}
    for T in (jtorch, torch):
        got = []
        for kw in ({}, {"bidirectional": True}, {"batch_first": True}):
            T.manual_seed(0)
            layer = getattr(T.nn, mode)(3, 3, **kw).to(getattr(T, dtype))
            for shape in ((4, 2, 3), (4, 3)):
                out, h = layer(T.ones(shape, dtype=getattr(T, dtype)))
                h = h[0] if isinstance(h, tuple) else h
                got.append((out.grad_fn.name(), h.grad_fn.name()))
        with T.no_grad():
            assert layer(T.ones(4, 2, 3, dtype=getattr(T, dtype)))[0].grad_fn is None
        names[T.__name__] = got
    assert names["jtorch"] == names["torch"]
