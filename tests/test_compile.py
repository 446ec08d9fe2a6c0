"""jtorch.compile: compiled steps equal eager steps; guards, fallback, modules, checkpoint."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import jtorch as torch
from jtorch import nn
from jtorch.utils.checkpoint import checkpoint


def _state(model, opt):
    sd = {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}
    osd = opt.state_dict()
    st = {(i, k): (v.numpy().copy() if isinstance(v, torch.Tensor) else v)
          for i, s in osd["state"].items() for k, v in s.items()}
    return sd, st, [g["lr"] for g in opt.param_groups], torch.get_rng_state().numpy()


def _compare(a, b, atol=2e-5):
    (sa, oa, la, ra), (sb, ob, lb, rb) = a, b
    assert sa.keys() == sb.keys() and oa.keys() == ob.keys()
    for k in sa:
        np.testing.assert_allclose(sa[k], sb[k], atol=atol, rtol=1e-4, err_msg=k)
    for k in oa:
        np.testing.assert_allclose(np.asarray(oa[k]), np.asarray(ob[k]), atol=atol, rtol=1e-4,
                                   err_msg=str(k))
    assert la == lb
    np.testing.assert_array_equal(ra, rb)


def _run(build, steps, compiled, data):
    torch.manual_seed(0)
    model, opt, sched, step = build()
    f = torch.compile(step) if compiled else step
    torch.manual_seed(1)
    losses = [f(*data(i)).item() for i in range(steps)]
    return losses, _state(model, opt), f


def _mlp():
    model = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Dropout(0.2), nn.Linear(32, 4))
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()

    def step(x, y):
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss

    return model, opt, None, step


def _cnn():
    model = nn.Sequential(nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Flatten(), nn.Linear(4 * 3 * 3, 5))
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    sched = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.97)
    loss_fn = nn.CrossEntropyLoss()

    def step(x, y):
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        sched.step()
        return loss

    return model, opt, sched, step


def _transformer():
    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(16, 16)
            # bias=False: the attention's key bias has an exactly-zero true gradient, whose
            # rounding noise Adam amplifies into lr-sized, run-dependent updates
            layer = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.1, batch_first=True,
                                               bias=False)
            self.enc = nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)
            self.head = nn.Linear(16, 16)

        def forward(self, x):
            mask = nn.Transformer.generate_square_subsequent_mask(x.shape[1])
            return self.head(self.enc(self.emb(x), mask=mask, is_causal=True))

    model = LM()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 10))
    loss_fn = nn.CrossEntropyLoss()

    def step(x, y):
        opt.zero_grad()
        loss = loss_fn(model(x).reshape(-1, 16), y.reshape(-1))
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        return loss

    return model, opt, sched, step


def _data(kind):
    g = np.random.default_rng(0)
    if kind == "mlp":
        xs = [torch.tensor(g.standard_normal((8, 12)).astype(np.float32)) for _ in range(4)]
        ys = [torch.tensor(g.integers(0, 4, 8)) for _ in range(4)]
    elif kind == "cnn":
        xs = [torch.tensor(g.standard_normal((6, 1, 8, 8)).astype(np.float32)) for _ in range(4)]
        ys = [torch.tensor(g.integers(0, 5, 6)) for _ in range(4)]
    else:
        xs = [torch.tensor(g.integers(0, 16, (4, 8))) for _ in range(4)]
        ys = [torch.tensor(g.integers(0, 16, (4, 8))) for _ in range(4)]
    return lambda i: (xs[i % 4], ys[i % 4])


@pytest.mark.parametrize("kind,build,steps", [("mlp", _mlp, 60), ("cnn", _cnn, 50),
                                              ("transformer", _transformer, 50)])
def test_compiled_steps_equal_eager(kind, build, steps):
    torch.compiler.reset()
    eager_losses, eager_state, _ = _run(build, steps, False, _data(kind))
    comp_losses, comp_state, f = _run(build, steps, True, _data(kind))
    np.testing.assert_allclose(comp_losses, eager_losses, rtol=1e-4, atol=1e-5)
    _compare(comp_state, eager_state)
    # one program, the steady state's, runs the first call too; the scheduler changing lr
    # recompiles nothing
    assert torch.compiler.counters()["compiles"] == 1, torch.compiler.compile_log()
    assert torch.compiler.counters()["fallbacks"] == 0


def test_state_dict_between_compiled_calls_is_current():
    torch.manual_seed(0)
    model, opt, _, step = _mlp()
    f = torch.compile(step)
    x, y = _data("mlp")(0)
    f(x, y)
    w0 = model.state_dict()["0.weight"].clone()
    f(x, y)
    w1 = model.state_dict()["0.weight"]
    assert not torch.equal(w0, w1)
    np.testing.assert_array_equal(w1.numpy(), model[0].weight.detach().numpy())
    assert int(opt.state_dict()["state"][0]["step"]) == 2


def test_guards_recompile_on_shape_dtype_mode_and_not_on_lr():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(5, 3), nn.Dropout(0.5))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)

    @torch.compile
    def step(x):
        opt.zero_grad()
        loss = model(x).pow(2).mean()
        loss.backward()
        opt.step()
        return loss

    torch.compiler.reset()
    x = torch.randn(4, 5)
    step(x)
    step(x)
    base = torch.compiler.counters()["compiles"]
    for lr in (0.05, 0.01, 0.2):
        opt.param_groups[0]["lr"] = lr
        step(x)
    assert torch.compiler.counters()["compiles"] == base
    step(torch.randn(7, 5))                       # new input shape
    assert torch.compiler.counters()["compiles"] == base + 1
    model.eval()                                   # train/eval flag
    step(x)
    assert torch.compiler.counters()["compiles"] == base + 2
    model.train()
    step(x)                                        # back to a cached program
    assert torch.compiler.counters()["compiles"] == base + 2
    assert all(isinstance(r, str) and r for _, r in torch.compiler.compile_log())


def test_guards_dtype_and_state_structure():
    @torch.compile
    def double(a):
        return a * 2

    torch.compiler.reset()
    double(torch.ones(3))
    double(torch.ones(3))
    assert torch.compiler.counters()["compiles"] == 1
    assert double(torch.ones(3, dtype=torch.float64)).dtype == torch.float64  # new dtype
    assert torch.compiler.counters()["compiles"] == 2

    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    extra = nn.Parameter(torch.ones(1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)

    @torch.compile
    def step(x):
        opt.zero_grad()
        loss = (model(x) * extra).pow(2).mean()
        loss.backward()
        opt.step()
        return loss

    x = torch.randn(8, 4)
    for _ in range(3):
        step(x)
    n = torch.compiler.counters()["compiles"]
    opt.add_param_group({"params": [extra], "lr": 0.5})   # the set of state changed
    before = extra.detach().clone()
    step(x)
    assert torch.compiler.counters()["compiles"] == n + 1
    assert not torch.equal(extra.detach(), before)         # and the new group is stepped
    model.weight = nn.Parameter(torch.zeros(1, 4))         # a parameter replaced
    opt2_w = model.weight
    step(x)
    assert torch.compiler.counters()["compiles"] >= n + 2
    assert model.weight is opt2_w


def test_fallback_warns_and_stays_correct_and_fullgraph_raises():
    def make():
        torch.manual_seed(0)
        return nn.Linear(3, 1)

    def body(m, x):
        y = m(x).sum()
        if y.item() > 0:  # Python control flow on a value: cannot be traced
            return y * 2
        return y

    m = make()
    x = torch.randn(5, 3)
    expected = body(m, x).item()
    f = torch.compile(body)
    with pytest.warns(UserWarning, match="could not trace"):
        got = f(m, x)
    assert got.item() == pytest.approx(expected)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert f(m, x).item() == pytest.approx(expected)  # no second warning
    g = torch.compile(body, fullgraph=True)
    with pytest.raises(torch.compiler.CompileError, match=r"\.item\(\)") as e:
        g(m, x)
    assert "test_compile.py" in str(e.value)
    with pytest.raises(torch.compiler.CompileError):
        torch.compile(lambda t: t[t > 0].sum(), fullgraph=True)(torch.randn(4))


def test_compile_module_forward_and_backward_equal_eager():
    def run(compiled):
        torch.manual_seed(0)
        m = nn.Sequential(nn.Linear(6, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Dropout(0.3),
                          nn.Linear(8, 2))
        mm = torch.compile(m) if compiled else m
        opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
        torch.manual_seed(5)
        x = torch.randn(8, 6, requires_grad=True)
        losses = []
        for _ in range(4):
            opt.zero_grad()
            x.grad = None
            loss = mm(x).pow(2).mean()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        mm.eval()
        with torch.no_grad():
            ev = mm(x.detach())
        return losses, m.state_dict(), x.grad, ev, mm

    a, b = run(False), run(True)
    np.testing.assert_allclose(b[0], a[0], rtol=1e-5)
    for k in a[1]:
        np.testing.assert_allclose(b[1][k].numpy(), a[1][k].numpy(), atol=1e-5)
    np.testing.assert_allclose(b[2].numpy(), a[2].numpy(), atol=1e-6)
    np.testing.assert_allclose(b[3].numpy(), a[3].numpy(), atol=1e-5)
    assert list(b[4].state_dict())[0] == "_orig_mod.0.weight"  # PyTorch's key prefix


def test_module_compile_method_and_decorator_forms():
    torch.manual_seed(0)
    m = nn.Linear(3, 2)
    ref = m(torch.ones(2, 3)).detach()
    m.compile()
    assert type(m).__name__ == "Linear" and list(m.state_dict()) == ["weight", "bias"]
    out = m(torch.ones(2, 3))
    np.testing.assert_allclose(out.detach().numpy(), ref.numpy(), rtol=1e-6)
    out.sum().backward()
    assert m.weight.grad is not None

    @torch.compile(fullgraph=True, dynamic=False, mode="default", backend="inductor")
    def f(a):
        return a * 2 + 1

    np.testing.assert_array_equal(f(torch.arange(3.0)).numpy(), [1.0, 3.0, 5.0])
    assert torch.compile(lambda a: a, disable=True)(3) == 3
    with pytest.raises(RuntimeError, match="Unrecognized mode"):
        torch.compile(f, mode="fastest")


def _deep_step(ck, drop):
    class Deep(nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = nn.ModuleList([nn.Sequential(nn.Linear(256, 256), nn.GELU(),
                                                       nn.Dropout(drop)) for _ in range(6)])

        def forward(self, x):
            for b in self.blocks:
                x = checkpoint(b, x, use_reentrant=False) if ck else b(x)
            return x

    torch.manual_seed(0)
    m = Deep()
    opt = torch.optim.SGD(m.parameters(), lr=0.01)

    def step(x):
        opt.zero_grad()
        loss = m(x).pow(2).mean()
        loss.backward()
        opt.step()
        return loss

    return m, torch.compile(step)


def test_checkpoint_in_compiled_step_matches_and_saves_memory():
    x = torch.randn(1024, 256)
    res = {}
    for ck in (False, True):
        m, f = _deep_step(ck, 0.1)  # dropout: the recomputation must draw the same masks
        torch.manual_seed(3)
        losses = [f(x).item() for _ in range(2)]
        res[ck] = (losses, m.blocks[0][0].weight.detach().numpy())
    np.testing.assert_allclose(res[True][0], res[False][0], rtol=1e-5)
    np.testing.assert_allclose(res[True][1], res[False][1], atol=1e-6)
    temp = {}
    for ck in (False, True):  # XLA's own accounting of the compiled step's temporaries
        _, f = _deep_step(ck, 0.0)
        f(x)
        f(x)
        e = list(f._cache.values())[-1]
        mem = e.jitted.lower([t._array for t in e.st.tensors], [p._grad._value for p in e.grads_in],
                             e.st.hyper_values(), [x._value]).compile().memory_analysis()
        temp[ck] = mem.temp_size_in_bytes
    assert temp[True] < 0.8 * temp[False], temp  # activations are recomputed, not kept


def test_autocast_and_grad_scaler_in_compiled_steps_equal_eager():
    def run(compiled):
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
        opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        scaler = torch.amp.GradScaler("cpu", init_scale=2.0**8, growth_interval=3)
        loss_fn = nn.CrossEntropyLoss()

        def step(x, y):
            opt.zero_grad()
            with torch.autocast("cpu", dtype=torch.bfloat16):
                out = model(x)
                loss = loss_fn(out, y)
            scaler.scale(loss).backward()
            scaler.unscale_(opt)
            nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            scaler.step(opt)
            scaler.update()
            return loss, out.dtype

        f = torch.compile(step) if compiled else step
        g = np.random.default_rng(0)
        trace = []
        for i in range(12):
            x = g.standard_normal((4, 8)).astype(np.float32)
            if i in (4, 9):
                x[0, 0] = np.inf  # an overflow: the step is skipped and the scale backs off
            loss, dt = f(torch.tensor(x), torch.tensor(g.integers(0, 3, 4)))
            trace.append((float(loss), scaler.get_scale(), str(dt)))
        return trace, [p.detach().numpy().copy() for p in model.parameters()]

    torch.compiler.reset()
    (te, pe), (tc, pc) = run(False), run(True)
    assert torch.compiler.counters()["fallbacks"] == 0
    assert torch.compiler.counters()["hits"] >= 8
    assert [t[1:] for t in tc] == [t[1:] for t in te]   # scale sequence and autocast dtype
    np.testing.assert_allclose([t[0] for t in tc], [t[0] for t in te], rtol=2e-2)
    for a, b in zip(pc, pe):
        np.testing.assert_allclose(a, b, rtol=2e-2, atol=2e-3)
    assert te[4][1] < te[3][1] and te[0][2] == "torch.bfloat16"
