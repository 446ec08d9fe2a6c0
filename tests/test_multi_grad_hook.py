"""torch.autograd.graph.register_multi_grad_hook against PyTorch 2.13: "all" calls once per
backward with the gradients of the tensors that backward reaches (None for the others), "any"
once with the first gradient; removal, several backwards, backward(inputs=...), and the
engine's task id / will-execute queries it rests on."""

import numpy as np
import pytest
import torch

import jtorch

A, B = np.array([0.5, -1.5, 2.0]), np.array([1.25, 0.75, -0.5])


def _as_lists(grads):
    return [None if g is None else g.numpy().tolist() for g in grads]


def _record(T, mode, script):
    """Run ``script(T, x, w, a, b)`` with a multi-grad hook on (a, b): the calls fn received."""
    calls = []
    x, w = T.tensor(A, requires_grad=True), T.tensor(B, requires_grad=True)
    a, b = x * 2, w.exp()

    def fn(grads):
        calls.append(_as_lists(grads) if mode == "all" else _as_lists([grads]))

    handle = T.autograd.graph.register_multi_grad_hook((a, b), fn, mode=mode)
    script(T, x, w, a, b, handle)
    return calls


SCRIPTS = {
    "both": lambda T, x, w, a, b, h: (a * b).sum().backward(),
    "only_a": lambda T, x, w, a, b, h: (a * a).sum().backward(),
    "twice": lambda T, x, w, a, b, h: ((a * b).sum().backward(retain_graph=True),
                                       (a + b).sum().backward()),
    "removed": lambda T, x, w, a, b, h: (h.remove(), (a * b).sum().backward()),
    "inputs": lambda T, x, w, a, b, h: (a * b).sum().backward(inputs=[x]),
    "grad": lambda T, x, w, a, b, h: T.autograd.grad((a * b).sum(), [w]),
}


@pytest.mark.parametrize("mode", ["all", "any"])
@pytest.mark.parametrize("script", list(SCRIPTS))
def test_calls_as_pytorch(mode, script):
    ref = _record(torch, mode, SCRIPTS[script])
    got = _record(jtorch, mode, SCRIPTS[script])
    assert got == ref


def test_leaves_and_a_parameter_hook_in_training():
    seen = []
    for T in (torch, jtorch):
        calls = []
        lin = T.nn.Linear(3, 2)
        with T.no_grad():
            lin.weight.copy_(T.tensor(np.stack([A, B]), dtype=T.float32))
            lin.bias.zero_()
        T.autograd.graph.register_multi_grad_hook(
            list(lin.parameters()), lambda gs, calls=calls: calls.append(_as_lists(gs)))
        for _ in range(2):
            lin(T.ones(4, 3)).pow(2).sum().backward()
        seen.append(calls)
    assert seen[1] == seen[0] and len(seen[0]) == 2


def test_bad_mode_and_the_engine_queries_outside_a_backward():
    errs = []
    for T in (torch, jtorch):
        x = T.tensor(A, requires_grad=True)
        with pytest.raises(ValueError) as e:
            T.autograd.graph.register_multi_grad_hook((x,), print, mode="some")
        errs.append(str(e.value))
        assert T._C._current_graph_task_id() == -1
        with pytest.raises(RuntimeError) as e:
            T._C._will_engine_execute_node((x * 2).grad_fn)
        errs.append(str(e.value))
    assert errs[2:] == errs[:2]
