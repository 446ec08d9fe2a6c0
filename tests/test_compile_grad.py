"""jtorch.compile of a plain function: outputs that require grad carry it (as in PyTorch),
gradients equal eager PyTorch's; and a training step compiles once (cold state included)."""

from __future__ import annotations

import jax
import numpy as np
import pytest
import torch

import jtorch


def _data(seed, *shapes):
    g = np.random.default_rng(seed)
    return [g.standard_normal(s).astype(np.float32) for s in shapes]


def test_compiled_function_outputs_require_grad_like_torch_eager():
    (xs,) = _data(0, (3,))
    tx = torch.tensor(xs, requires_grad=True)
    (tx * tx).sum().backward()

    f = jtorch.compile(lambda x: (x * x).sum())
    for _ in range(2):   # the first call compiles, the second reuses the program
        jx = jtorch.tensor(xs, requires_grad=True)
        y = f(jx)
        assert y.requires_grad and y.grad_fn is not None
        y.backward()
        np.testing.assert_allclose(jx.grad.numpy(), tx.grad.numpy(), rtol=1e-6)
    with jtorch.no_grad():
        assert not f(jtorch.tensor(xs, requires_grad=True)).requires_grad
    assert not f(jtorch.tensor(xs)).requires_grad


def test_compiled_function_closing_over_a_module_backpropagates_like_torch_eager():
    w, b, xs = _data(1, (4, 5), (4,), (2, 5))
    tm, jm = torch.nn.Linear(5, 4), jtorch.nn.Linear(5, 4)
    for m, T in ((tm, torch), (jm, jtorch)):
        m.load_state_dict({"weight": T.tensor(w), "bias": T.tensor(b)})
    tx = torch.tensor(xs, requires_grad=True)
    tloss = torch.tanh(tm(tx)).pow(2).mean()
    tloss.backward()

    f = jtorch.compile(lambda x: jtorch.tanh(jm(x)).pow(2).mean())
    jx = jtorch.tensor(xs, requires_grad=True)
    jloss = f(jx)
    assert jloss.requires_grad
    jloss.backward()
    np.testing.assert_allclose(jloss.item(), tloss.item(), rtol=1e-6)
    for j, t in ((jx, tx), (jm.weight, tm.weight), (jm.bias, tm.bias)):
        np.testing.assert_allclose(j.grad.numpy(), t.grad.numpy(), rtol=1e-5, atol=1e-7)


def test_compiled_function_differentiating_inside_backpropagates_like_torch_eager():
    ws, xs = _data(4, (3,), (3,))

    def penalty(T, w):
        def f(x):
            (g,) = T.autograd.grad((x * w).pow(2).sum(), x, create_graph=True)
            return g.pow(2).sum()
        return f

    tw, tx = torch.tensor(ws, requires_grad=True), torch.tensor(xs, requires_grad=True)
    tout = penalty(torch, tw)(tx)
    tout.backward()
    jw, jx = jtorch.tensor(ws, requires_grad=True), jtorch.tensor(xs, requires_grad=True)
    jout = jtorch.compile(penalty(jtorch, jw))(jx)
    assert jout.requires_grad
    jout.backward()
    np.testing.assert_allclose(jout.item(), tout.item(), rtol=1e-6)
    for j, t in ((jw, tw), (jx, tx)):
        np.testing.assert_allclose(j.grad.numpy(), t.grad.numpy(), rtol=1e-5)


def _step_pair(T, make_opt, zero_first):
    torch.manual_seed(0)
    w1, b1, w2, b2 = _data(2, (6, 5), (6,), (3, 6), (3,))
    model = T.nn.Sequential(T.nn.Linear(5, 6), T.nn.Tanh(), T.nn.Linear(6, 3))
    model.load_state_dict({k: T.tensor(v) for k, v in
                           zip(["0.weight", "0.bias", "2.weight", "2.bias"], [w1, b1, w2, b2])})
    opt = make_opt(T, model.parameters())

    def step(x, y):
        if zero_first:
            opt.zero_grad()
        loss = T.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        if not zero_first:
            opt.zero_grad(set_to_none=False)
        return loss

    return model, opt, step


@pytest.mark.parametrize("make_opt,zero_first,compiles", [
    (lambda T, ps: T.optim.Adam(ps, lr=0.05, weight_decay=0.01), True, 1),
    (lambda T, ps: T.optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True), False, 1),
    # the first step copies the gradient into the buffer, later ones damp it: no state the
    # steady step computes the first step from, so the first call keeps its own program
    (lambda T, ps: T.optim.SGD(ps, lr=0.1, momentum=0.9, dampening=0.5), True, 2),
])
def test_training_step_compiles_once_and_matches_torch_eager(make_opt, zero_first, compiles):
    xs, = _data(3, (4, 5))
    ys = np.array([0, 2, 1, 2])
    tmodel, topt, tstep = _step_pair(torch, make_opt, zero_first)
    jmodel, jopt, jstep = _step_pair(jtorch, make_opt, zero_first)
    f = jtorch.compile(jstep)
    jtorch.compiler.reset()
    for _ in range(3):
        tl = tstep(torch.tensor(xs), torch.tensor(ys))
        jl = f(jtorch.tensor(xs), jtorch.tensor(ys))
        np.testing.assert_allclose(jl.item(), tl.item(), rtol=1e-5)
    assert jtorch.compiler.counters()["compiles"] == compiles, jtorch.compiler.compile_log()
    for (k, t), (_, j) in zip(tmodel.state_dict().items(), jmodel.state_dict().items()):
        np.testing.assert_allclose(j.numpy(), t.numpy(), rtol=1e-5, atol=1e-6, err_msg=k)
    for (_, t), (_, j) in zip(topt.state_dict()["state"].items(),
                              jopt.state_dict()["state"].items()):
        assert t.keys() == j.keys()
        for k in t:
            np.testing.assert_allclose(np.asarray(j[k]), np.asarray(t[k]), rtol=1e-5,
                                       atol=1e-6, err_msg=k)
    for tp, jp in zip(tmodel.parameters(), jmodel.parameters()):
        assert (tp.grad is None) == (jp.grad is None)


def test_second_call_runs_the_first_calls_program_on_a_committed_device(caplog):
    """With the model on a device named explicitly (a GPU, or here cpu:1) the parameters'
    arrays are committed to it and a fresh optimizer's state is not; the program's outputs
    are, so the second call's arguments were placed differently from the first's and XLA
    compiled the whole step again (1.2 s on an H200 for the MLP, 7 s for the transformer).
    Now no program is lowered after the first call, and the values are the default device's."""
    xs, = _data(3, (4, 5))
    ys = np.array([0, 2, 1, 2])

    def run(dev):
        model, _, step = _step_pair(jtorch, lambda T, ps: T.optim.Adam(ps, lr=0.05), True)
        model.to(dev)
        f = jtorch.compile(step)
        x, y = jtorch.tensor(xs, device=dev), jtorch.tensor(ys, device=dev)
        losses = [f(x, y).item()]
        with jax.log_compiles(), caplog.at_level("WARNING", logger="jax"):
            caplog.clear()
            losses += [f(x, y).item() for _ in range(2)]
            lowered = [r.getMessage() for r in caplog.records if "Compiling" in r.getMessage()]
        return losses, lowered, [p.detach().cpu().numpy() for p in model.parameters()]

    losses, lowered, params = run("cpu:1")
    assert lowered == []
    ref_losses, _, ref_params = run("cpu")
    np.testing.assert_array_equal(losses, ref_losses)
    for a, b in zip(params, ref_params):
        np.testing.assert_array_equal(a, b)


def test_backward_inside_gives_the_tensor_arguments_their_grad_as_torch_compile():
    """A compiled step that runs backward itself fills (and accumulates into) the .grad of the
    leaf tensors it was passed, and reads it as the eager step would (FGSM's x + eps *
    x.grad.sign()); before, the arguments' gradients were dropped."""
    (xs,) = _data(3, (4,))
    results, identity = {}, {}
    for lib in (torch, jtorch):
        def fgsm(x, eps):
            loss = (x ** 3 - 2 * x).sum()
            loss.backward()
            return (x + eps * x.grad.sign()).detach(), loss.detach()

        step = lib.compile(fgsm)
        x = lib.tensor(xs, requires_grad=True)
        first = step(x, 0.1)
        grad_object = x.grad
        grad_once = x.grad.clone()
        second = step(x, 0.1)   # .grad now exists: backward adds to it, the step reads the sum
        results[lib] = [t.numpy() for t in (*first, grad_once, *second, x.grad)]
        identity[lib] = x.grad is grad_object   # accumulated in place: the same tensor object
        x.grad = None
        step(x, 0.1)
        results[lib].append(x.grad.numpy())
    for got, ref in zip(results[jtorch], results[torch]):
        np.testing.assert_allclose(got, ref, rtol=1e-6)
    assert identity[jtorch] == identity[torch]


def test_backward_reaching_a_non_leaf_argument_runs_eagerly_with_torch_compiles_grads():
    """A backward inside the compiled function that reaches a tensor argument made by earlier
    ops carries its gradient on into that graph in PyTorch; the program cannot, so the call
    runs eagerly, with a warning, and the leaves behind the argument get PyTorch's grads."""
    (ws,) = _data(4, (3,))
    grads = {}
    for lib in (torch, jtorch):
        w = lib.tensor(ws, requires_grad=True)

        def step(h):
            (h * h).sum().backward()
            return h.detach() * 2

        f = lib.compile(step)
        if lib is jtorch:
            with pytest.warns(UserWarning, match="not a leaf"):
                out = f(w * 3)
        else:
            out = f(w * 3)
        out2 = f(w * 3)   # (jtorch: the same key runs eagerly at once, no second warning)
        grads[lib] = [w.grad.numpy().copy(), out.detach().numpy(), out2.detach().numpy()]
    for got, ref in zip(grads[jtorch], grads[torch]):
        np.testing.assert_allclose(got, ref, rtol=1e-6)


def test_a_leaf_argument_after_a_non_leaf_one_gets_its_own_grad():
    """The .grad written back belongs to the leaf argument itself, not to the traced stand-in of
    a non-leaf argument before it (whose gradient the backward here never reaches)."""
    (xs, ws) = _data(5, (3,), (3,))
    grads = {}
    for lib in (torch, jtorch):
        w = lib.tensor(ws, requires_grad=True)
        x = lib.tensor(xs, requires_grad=True)
        x.grad = lib.ones(3)

        def step(h, x):
            (x * x).sum().backward()
            return h.detach() + x.grad

        out = lib.compile(step)(w * 2, x)
        grads[lib] = [x.grad.numpy().copy(), out.numpy()]
        assert w.grad is None
    for got, ref in zip(grads[jtorch], grads[torch]):
        np.testing.assert_allclose(got, ref, rtol=1e-6)
