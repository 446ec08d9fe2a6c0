"""jtorch.compile's state: explicit ``state=``, what the search reports when it cannot find
state, compile's per-thread context (a trace in one thread does not disturb another), the
state a first call creates (``.grad``, optimizer state) where its guessed plan does not hold,
and programs that do not depend on which objects hold the state (JAX's persistent cache)."""

from __future__ import annotations

import threading

import jax.monitoring
import numpy as np
import pytest
import torch as pytorch

import jtorch as torch
from jtorch import nn
from jtorch._compile.state import PLAIN_OBJECT_DEPTH
from jtorch._core.state import STATE


def _model_and_step(seed):
    torch.manual_seed(seed)
    model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 3))
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)

    def step(x, y):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss

    return model, opt, step


def _batches(n):
    g = np.random.default_rng(1)
    return [(torch.tensor(g.standard_normal((5, 6)).astype(np.float32)),
             torch.tensor(g.integers(0, 3, 5))) for _ in range(n)]


def _train(step, batches):
    return [float(step(x, y)) for x, y in batches]


def test_explicit_state_equals_eager():
    data = _batches(6)
    model_e, _, step_e = _model_and_step(0)
    eager = _train(step_e, data)
    model_c, opt_c, step_c = _model_and_step(0)
    compiled = _train(torch.compile(step_c, state=[model_c, opt_c]), data)
    np.testing.assert_allclose(compiled, eager, rtol=1e-5, atol=1e-6)
    for (k, a), b in zip(model_c.state_dict().items(), model_e.state_dict().values()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6, err_msg=k)


def test_explicit_state_missing_an_object_names_it():
    model, opt, step = _model_and_step(0)
    x, y = _batches(1)[0]
    with pytest.raises(torch.compiler.CompileError, match=r"state=\[model, optimizer"):
        torch.compile(step, state=[model])(x, y)   # the optimizer is missing
    # nothing was changed by the failed trace
    assert all(p.grad is None for p in model.parameters())


def test_state_found_only_while_tracing_is_lifted():
    """A tensor the search cannot see (deeper than PLAIN_OBJECT_DEPTH plain objects) is met
    while tracing, lifted, and the trace starts again: results equal eager."""

    class Box:
        def __init__(self, inner):
            self.inner = inner

    scale = torch.ones(3)
    holder = scale
    for _ in range(PLAIN_OBJECT_DEPTH + 1):
        holder = Box(holder)
    deep = holder

    def bump(x):
        t = deep
        while isinstance(t, Box):
            t = t.inner
        t.mul_(2.0)
        return x * t

    f = torch.compile(bump)
    outs = [f(torch.ones(3)).tolist() for _ in range(3)]
    assert outs == [[2.0] * 3, [4.0] * 3, [8.0] * 3]
    assert scale.tolist() == [8.0] * 3


def test_too_many_retraces_names_what_the_search_did_not_follow():
    class Box:
        def __init__(self, inner):
            self.inner = inner

    def nest(t):
        for _ in range(PLAIN_OBJECT_DEPTH + 1):
            t = Box(t)
        return t

    hidden = [nest(torch.ones(2)) for _ in range(12)]
    config = Box(hidden)   # each tensor sits deeper than the search follows

    def total(x):
        out = x
        for h in config.inner:
            t = h
            while isinstance(t, Box):
                t = t.inner
            t.add_(1.0)
            out = out + t
        return out

    with pytest.raises(torch.compiler.CompileError) as info:
        torch.compile(total)(torch.zeros(2))
    msg = str(info.value)
    assert "deeper than PLAIN_OBJECT_DEPTH" in msg and "Box" in msg and "state=[" in msg


def test_compile_context_is_per_thread():
    """While one thread traces a compiled step, another thread's eager ops see no trace and
    are not mistaken for state of that trace; both give what they give alone."""
    data = _batches(4)
    _, _, ref_step = _model_and_step(0)
    compiled_alone = _train(torch.compile(ref_step), data)
    _, _, eager_step = _model_and_step(1)
    eager_alone = _train(eager_step, data)

    inside, resume, seen = threading.Event(), threading.Event(), {}
    model_a, opt_a, step_a = _model_and_step(0)

    def step_pausing(x, y):
        if STATE.trace is not None and not inside.is_set():
            inside.set()            # thread A is tracing now: let thread B run
            resume.wait(timeout=60)
        return step_a(x, y)

    compiled = torch.compile(step_pausing, state=[model_a, opt_a])
    _, _, step_b = _model_and_step(1)   # made before the threads: the generator is shared
    results = {}

    def thread_a():
        results["a"] = _train(compiled, data)

    def thread_b():
        inside.wait(timeout=60)
        seen["trace"] = STATE.trace
        seen["compiling"] = torch.compiler.is_compiling()
        results["b"] = _train(step_b, data)
        resume.set()

    ta, tb = threading.Thread(target=thread_a), threading.Thread(target=thread_b)
    ta.start()
    tb.start()
    ta.join(120)
    tb.join(120)
    assert inside.is_set() and seen == {"trace": None, "compiling": False}
    np.testing.assert_allclose(results["a"], compiled_alone, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(results["b"], eager_alone, rtol=1e-5, atol=1e-6)


def _accumulating_pair(T):
    """A model with a parameter the loss never uses, and a step that updates only when asked
    (gradient accumulation): first calls whose .grad and optimizer state jtorch.compile cannot
    guess (the unused parameter's .grad stays None; no state before the first update)."""

    class Net(T.nn.Module):
        def __init__(self):
            super().__init__()
            self.used = T.nn.Linear(5, 3)
            self.unused = T.nn.Linear(2, 2)

        def forward(self, x):
            return self.used(x)

    g = np.random.default_rng(2)
    model = Net()
    model.load_state_dict({k: T.tensor(g.standard_normal(tuple(v.shape)).astype(np.float32))
                           for k, v in model.state_dict().items()})
    opt = T.optim.Adam(model.parameters(), lr=0.05)

    def step(x, y, update):
        loss = T.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        if update:
            opt.step()
            opt.zero_grad()
        return loss

    return model, opt, step


def test_first_calls_an_unused_parameter_and_no_update_create_what_pytorch_does():
    tmodel, topt, tstep = _accumulating_pair(pytorch)
    jmodel, jopt, jstep = _accumulating_pair(torch)
    f = torch.compile(jstep)
    torch.compiler.reset()
    g = np.random.default_rng(3)
    for update in (False, True, True):
        x = g.standard_normal((4, 5)).astype(np.float32)
        y = g.integers(0, 3, 4)
        tl = tstep(pytorch.tensor(x), pytorch.tensor(y), update)
        jl = f(torch.tensor(x), torch.tensor(y), update)
        np.testing.assert_allclose(jl.item(), tl.item(), rtol=1e-5)
        for (k, tp), jp in zip(tmodel.named_parameters(), jmodel.parameters()):
            np.testing.assert_allclose(jp.detach().numpy(), tp.detach().numpy(), rtol=1e-5,
                                       atol=1e-6, err_msg=k)
            assert (jp.grad is None) == (tp.grad is None), k
            if tp.grad is not None:
                np.testing.assert_allclose(jp.grad.numpy(), tp.grad.numpy(), rtol=1e-5,
                                           atol=1e-6, err_msg=k)
        tstate, jstate = topt.state_dict()["state"], jopt.state_dict()["state"]
        assert tstate.keys() == jstate.keys()
        for i in tstate:
            assert tstate[i].keys() == jstate[i].keys()
            for k in tstate[i]:
                np.testing.assert_allclose(np.asarray(jstate[i][k]), np.asarray(tstate[i][k]),
                                           rtol=1e-5, atol=1e-6, err_msg=f"{i} {k}")
    assert torch.compiler.counters()["fallbacks"] == 0


def test_a_step_traced_again_loads_from_the_persistent_cache():
    """The same step on a new model and optimizer (as in a new process) lowers to the same
    program, so it loads from JAX's persistent compilation cache instead of compiling
    (tests/conftest.py gives the run a cache directory with no minimum compile time)."""
    hits = []

    def listener(event, **_):
        if event == "/jax/compilation_cache/cache_hits":
            hits.append(event)

    data = _batches(3)
    jax.monitoring.register_event_listener(listener)
    try:
        first = _train(torch.compile(_model_and_step(0)[2]), data)
        before = len(hits)
        second = _train(torch.compile(_model_and_step(0)[2]), data)
    finally:
        jax.monitoring.unregister_event_listener(listener)
    assert len(hits) > before, "the second trace of the same step compiled again"
    assert second == first
