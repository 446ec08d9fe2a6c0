"""jtorch.optim against torch.optim: parameters and every state tensor after each step, state
dicts, loading torch's state, closures, LBFGS, hooks, validation messages, no recompiles."""

from __future__ import annotations

import copy
import importlib

import jax
import numpy as np
import pytest
import torch
from helpers import raises_like

import jtorch
from jtorch.optim import _transforms

SHAPES = [(4, 3), (4,), (2, 4), (2,)]


def _init(dtype, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(dtype) for s in SHAPES]


def _loss(lib, ps, k):
    """A fixed quadratic-plus-linear loss; the last parameter gets a gradient every other
    step only (PyTorch skips parameters whose .grad is None)."""
    total = None
    for i, p in enumerate(ps):
        if i == len(ps) - 1 and k % 2:
            continue
        d = np.cos(np.arange(p.numel()) * 0.7 + k).reshape(tuple(p.shape))
        term = (p * p * (0.3 + 0.2 * i)).sum() + (p * lib.tensor(d, dtype=p.dtype)).sum()
        total = term if total is None else total + term
    return total


def _to_np(x):
    return x.detach().numpy() if hasattr(x, "detach") else np.asarray(x)


def _compare_state(topt, jopt, tps, jps, rtol, atol, where):
    for i, (tp, jp) in enumerate(zip(tps, jps)):
        np.testing.assert_allclose(_to_np(jp), _to_np(tp), rtol=rtol, atol=atol,
                                   err_msg=f"{where}: param {i}")
        ts, js = topt.state.get(tp, {}), jopt.state.get(jp, {})
        assert list(js) == list(ts), f"{where}: state keys {list(js)} != {list(ts)}"
        for key, tv in ts.items():
            jv = js[key]
            if isinstance(tv, torch.Tensor):
                assert isinstance(jv, jtorch.Tensor), f"{where}: state[{key}] not a Tensor"
                assert str(jv.dtype) == str(tv.dtype), f"{where}: {key} dtype"
                assert tuple(jv.shape) == tuple(tv.shape), f"{where}: {key} shape"
                np.testing.assert_allclose(_to_np(jv), _to_np(tv), rtol=rtol, atol=atol,
                                           err_msg=f"{where}: param {i} state {key}")
            else:
                assert jv == tv, f"{where}: state[{key}]"


def _make(lib, name, kw, init, groups=False):
    ps = [lib.nn.Parameter(lib.tensor(a)) for a in init]
    params = ps
    if groups:
        params = [{"params": ps[:2]}, {"params": ps[2:], "lr": kw.get("lr", 1e-3) * 0.5}]
    return ps, getattr(lib.optim, name)(params, **kw)


def _train(lib, ps, opt, steps, start=0):
    for k in range(start, start + steps):
        opt.zero_grad()
        _loss(lib, ps, k).backward()
        opt.step()
        yield k


CASES = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.05, "momentum": 0.9}),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "nesterov": True, "weight_decay": 0.1}),
    ("SGD", {"lr": 0.05, "momentum": 0.8, "dampening": 0.3, "maximize": True}),
    ("Adam", {"lr": 0.01}),
    ("Adam", {"lr": 0.01, "betas": (0.8, 0.99), "weight_decay": 0.1, "amsgrad": True}),
    ("Adam", {"lr": 0.01, "maximize": True, "eps": 1e-3, "decoupled_weight_decay": True,
              "weight_decay": 0.2}),
    ("AdamW", {"lr": 0.01}),
    ("AdamW", {"lr": 0.01, "amsgrad": True, "weight_decay": 0.3}),
    ("Adamax", {"lr": 0.01, "weight_decay": 0.1}),
    ("NAdam", {"lr": 0.01}),
    ("NAdam", {"lr": 0.01, "weight_decay": 0.1, "momentum_decay": 0.01}),
    ("NAdam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("RAdam", {"lr": 0.01}),
    ("RAdam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True,
               "maximize": True}),
    ("RMSprop", {"lr": 0.01}),
    ("RMSprop", {"lr": 0.01, "centered": True, "momentum": 0.5, "weight_decay": 0.1}),
    ("RMSprop", {"lr": 0.01, "alpha": 0.9, "momentum": 0.3, "maximize": True}),
    ("Adagrad", {"lr": 0.1}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.01, "weight_decay": 0.1,
                 "initial_accumulator_value": 0.2}),
    ("Adadelta", {}),
    ("Adadelta", {"lr": 0.5, "rho": 0.8, "weight_decay": 0.1}),
    ("ASGD", {"lr": 0.01}),
    ("ASGD", {"lr": 0.01, "t0": 5, "lambd": 0.01, "weight_decay": 0.1}),
    ("Rprop", {}),
    ("Rprop", {"lr": 0.02, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.05),
               "maximize": True}),
    # moments lerped with weights >= 0.5 (1 - beta1, 1 - alpha): ATen's second formula
    ("Adam", {"lr": 0.01, "betas": (0.3, 0.999)}),
    ("RMSprop", {"lr": 0.01, "alpha": 0.4, "centered": True}),
    ("Adafactor", {}),
    ("Adafactor", {"lr": 0.05, "weight_decay": 0.1, "maximize": True}),
    ("Adafactor", {"eps": (1e-4, 1e-2), "d": 1.5, "beta2_decay": -0.5}),
]


@pytest.mark.parametrize("name,kw", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_trajectory_float32(name, kw):
    init = _init(np.float32)
    tps, topt = _make(torch, name, kw, init)
    jps, jopt = _make(jtorch, name, kw, init)
    for k, _ in zip(_train(torch, tps, topt, 20), _train(jtorch, jps, jopt, 20)):
        _compare_state(topt, jopt, tps, jps, 2e-5, 2e-6, f"step {k}")
    _compare_state_dicts(topt.state_dict(), jopt.state_dict())


@pytest.mark.parametrize("name,kw", [CASES[2], CASES[5], CASES[12], CASES[14], CASES[16],
                                     CASES[19], CASES[21], CASES[23], CASES[25]])
def test_trajectory_float64_groups(name, kw):
    init = _init(np.float64, seed=1)
    tps, topt = _make(torch, name, kw, init, groups=True)
    jps, jopt = _make(jtorch, name, kw, init, groups=True)
    for k, _ in zip(_train(torch, tps, topt, 20), _train(jtorch, jps, jopt, 20)):
        _compare_state(topt, jopt, tps, jps, 1e-10, 1e-12, f"step {k}")
    _compare_state_dicts(topt.state_dict(), jopt.state_dict())


def _compare_state_dicts(tsd, jsd):
    assert list(jsd) == ["state", "param_groups"]
    assert list(jsd["state"]) == list(tsd["state"])
    for pid, ts in tsd["state"].items():
        assert list(jsd["state"][pid]) == list(ts)
    assert len(jsd["param_groups"]) == len(tsd["param_groups"])
    for tg, jg in zip(tsd["param_groups"], jsd["param_groups"]):
        assert list(jg) == list(tg)
        assert jg == tg


def _torch_sd_to_jtorch(x):
    if isinstance(x, torch.Tensor):
        return jtorch.tensor(x.numpy())
    if isinstance(x, dict):
        return {k: _torch_sd_to_jtorch(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_torch_sd_to_jtorch(v) for v in x]
    return x


@pytest.mark.parametrize("name,kw", [CASES[1], CASES[5], CASES[11], CASES[16], CASES[19],
                                     CASES[23], CASES[25]])
def test_load_torch_state_dict_and_continue(name, kw):
    init = _init(np.float32, seed=2)
    tps, topt = _make(torch, name, kw, init, groups=True)
    for _ in _train(torch, tps, topt, 7):
        pass
    topt.param_groups[0]["lr"] *= 0.5   # a changed hyperparameter travels in the state dict
    cur = [p.detach().numpy().copy() for p in tps]
    jps, jopt = _make(jtorch, name, kw, cur, groups=True)
    jopt.load_state_dict(_torch_sd_to_jtorch(topt.state_dict()))
    assert jopt.param_groups[0]["lr"] == topt.param_groups[0]["lr"]
    for k, _ in zip(_train(torch, tps, topt, 8, 7), _train(jtorch, jps, jopt, 8, 7)):
        _compare_state(topt, jopt, tps, jps, 2e-5, 2e-6, f"resumed step {k}")
    # a jtorch state dict round trip into a fresh jtorch optimizer continues identically
    jps2, jopt2 = _make(jtorch, name, kw, [p.detach().numpy() for p in jps], groups=True)
    jopt2.load_state_dict(copy.deepcopy(jopt.state_dict()))  # (as in torch, loading shares
    # the state tensors when no cast is needed)
    for _k, _ in zip(_train(jtorch, jps, jopt, 3, 15), _train(jtorch, jps2, jopt2, 3, 15)):
        for a, b in zip(jps, jps2):
            np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def test_loaded_state_is_cast_to_param_dtype():
    p = jtorch.nn.Parameter(jtorch.ones(3, dtype=jtorch.float64))
    opt = jtorch.optim.Adam([p])
    sd = {"state": {0: {"step": jtorch.tensor(3.0), "exp_avg": jtorch.ones(3),
                        "exp_avg_sq": jtorch.ones(3)}},
          "param_groups": opt.state_dict()["param_groups"]}
    opt.load_state_dict(sd)
    st = opt.state[p]
    assert st["exp_avg"].dtype == jtorch.float64 and st["step"].dtype == jtorch.float32
    tp = torch.nn.Parameter(torch.ones(3, dtype=torch.float64))
    topt = torch.optim.Adam([tp])
    topt.load_state_dict({"state": {0: {"step": torch.tensor(3.0), "exp_avg": torch.ones(3),
                                        "exp_avg_sq": torch.ones(3)}},
                          "param_groups": topt.state_dict()["param_groups"]})
    assert str(topt.state[tp]["exp_avg"].dtype) == str(st["exp_avg"].dtype)


def test_complex_params_adam_and_sgd():
    rng = np.random.default_rng(3)
    a = (rng.standard_normal((3, 2)) + 1j * rng.standard_normal((3, 2))).astype(np.complex64)
    for name, kw in [("Adam", {"lr": 0.05, "amsgrad": True}), ("SGD", {"lr": 0.1,
                                                                      "momentum": 0.9}),
                     ("RMSprop", {"lr": 0.01, "centered": True})]:
        out = []
        for lib in (torch, jtorch):
            p = lib.nn.Parameter(lib.tensor(a))
            opt = getattr(lib.optim, name)([p], **kw)
            for k in range(10):
                p.grad = p.detach() * (0.5 + 0.1 * k) + 1
                opt.step()
            out.append((p, opt.state[p]))
        (tp, ts), (jp, js) = out
        np.testing.assert_allclose(_to_np(jp), _to_np(tp), rtol=1e-5, atol=1e-6)
        for key in ts:
            np.testing.assert_allclose(_to_np(js[key]), _to_np(ts[key]), rtol=1e-5, atol=1e-6)


def test_lr_change_does_not_recompile():
    init = _init(np.float32)
    jps, opt = _make(jtorch, "Adam", {"lr": 0.01}, init)
    sched = jtorch.optim.lr_scheduler.StepLR(opt, 2, gamma=0.5)
    for _ in _train(jtorch, jps, opt, 2):
        sched.step()
    n = _transforms.compiled_count()
    lrs = set()
    for _ in _train(jtorch, jps, opt, 6):
        sched.step()
        lrs.add(opt.param_groups[0]["lr"])
        opt.param_groups[0]["betas"] = (0.8 + 0.01 * sched.last_epoch, 0.99)
        opt.param_groups[0]["eps"] = 1e-6 * sched.last_epoch
    assert len(lrs) == 4
    assert _transforms.compiled_count() == n
    # weight_decay 0 -> nonzero changes the program (PyTorch branches on it): one program for
    # each of the two parameter sets that have gradients (the last one every other step)
    opt.param_groups[0]["weight_decay"] = 0.1
    for _ in _train(jtorch, jps, opt, 4):
        opt.param_groups[0]["weight_decay"] *= 1.5
    assert _transforms.compiled_count() == n + 2


def test_a_model_on_a_named_device_compiles_its_step_once():
    """Parameters on a named device (a GPU, here cpu:1) are committed arrays and a fresh
    optimizer's state is not: the step program's first run got other placements than its
    next, and XLA compiled the program again at the second step. Values as on the default
    device."""
    out = []
    for dev in ("cpu:1", "cpu"):
        jtorch.manual_seed(0)
        model = jtorch.nn.Linear(5, 3).to(dev)
        opt = jtorch.optim.Adam(model.parameters(), lr=0.05)
        x = jtorch.tensor(np.random.default_rng(1).standard_normal((4, 5)).astype(np.float32),
                          device=dev)
        counts = []
        for _ in range(3):
            opt.zero_grad()
            model(x).square().mean().backward()
            opt.step()
            counts.append(_transforms.compiled_count())
        assert model.weight.device == jtorch.device(dev)
        out.append((counts, [p.detach().cpu().numpy() for p in model.parameters()]))
    (counts, params), (_, ref) = out
    assert counts[1] == counts[2] == counts[0], counts
    for a, b in zip(params, ref):
        np.testing.assert_array_equal(a, b)


def test_state_a_step_creates_is_on_the_parameters_device():
    """SGD's momentum buffer, made by the first step, is on its parameter's device as in
    PyTorch (it reported the default CPU while its data was on the parameter's device)."""
    p = jtorch.nn.Parameter(jtorch.ones(3, device="cpu:1"))
    opt = jtorch.optim.SGD([p], lr=0.1, momentum=0.9)
    p.grad = jtorch.full((3,), 0.5, device="cpu:1")
    opt.step()
    buf = opt.state[p]["momentum_buffer"]
    assert buf.device == p.device == jtorch.device("cpu:1")
    assert {d.id for d in buf._value.devices()} == {1}
    tp = torch.nn.Parameter(torch.ones(3))
    topt = torch.optim.SGD([tp], lr=0.1, momentum=0.9)
    tp.grad = torch.full((3,), 0.5)
    topt.step()
    np.testing.assert_array_equal(buf.cpu().numpy(), topt.state[tp]["momentum_buffer"].numpy())
    np.testing.assert_array_equal(p.detach().cpu().numpy(), tp.detach().numpy())


def test_tensor_lr_and_writes_in_place():
    p = jtorch.nn.Parameter(jtorch.ones(3))
    view = p.detach()[1:]
    opt = jtorch.optim.SGD([p], lr=jtorch.tensor(0.5), momentum=0.9)
    v0 = p._version
    p.grad = jtorch.ones(3)
    opt.step()
    assert p._version > v0
    np.testing.assert_allclose(p.detach().numpy(), [0.5, 0.5, 0.5])
    np.testing.assert_allclose(view.numpy(), [0.5, 0.5])
    buf = opt.state[p]["momentum_buffer"]
    opt.step()
    assert opt.state[p]["momentum_buffer"] is buf
    tp = torch.nn.Parameter(torch.ones(3))
    topt = torch.optim.SGD([tp], lr=torch.tensor(0.5), momentum=0.9)
    assert repr(opt) == repr(topt)


def test_closure_step_and_zero_grad():
    for lib in (torch, jtorch):
        ps = [lib.nn.Parameter(lib.tensor(a)) for a in _init(np.float32)]
        opt = lib.optim.SGD(ps, lr=0.1)

        def closure(lib=lib, ps=ps, opt=opt):
            opt.zero_grad()
            loss = _loss(lib, ps, 0)
            loss.backward()
            return loss

        with lib.no_grad():
            loss = opt.step(closure)
        assert loss.requires_grad   # the closure ran with grad enabled inside step()
        opt.zero_grad(set_to_none=False)
        assert all(float(p.grad.abs().sum()) == 0 for p in ps)
        assert not ps[0].grad.requires_grad
        opt.zero_grad()
        assert all(p.grad is None for p in ps)
    assert jtorch.optim.SGD(ps, lr=0.1).step() is None


def _hook_log(lib):
    log = []
    p = lib.nn.Parameter(lib.ones(2))
    p.grad = lib.ones(2)
    opt = lib.optim.SGD([p], lr=0.1)
    h1 = opt.register_step_pre_hook(lambda o, a, k: log.append("pre"))
    opt.register_step_post_hook(lambda o, a, k: log.append("post"))
    mod = importlib.import_module(f"{lib.__name__}.optim.optimizer")
    g = mod.register_optimizer_step_pre_hook(lambda o, a, k: log.append("gpre"))
    opt.register_state_dict_pre_hook(lambda o: log.append("sd_pre"))
    opt.register_state_dict_post_hook(lambda o, sd: {**sd, "extra": 1})
    opt.register_load_state_dict_pre_hook(lambda o, sd: log.append("load_pre"))
    opt.register_load_state_dict_post_hook(lambda o: log.append("load_post"))
    opt.step()
    h1.remove()
    g.remove()
    opt.step()
    sd = opt.state_dict()
    log.append(sd["extra"])
    opt.load_state_dict(sd)
    return log


def test_hooks():
    assert _hook_log(jtorch) == _hook_log(torch)


def test_add_param_group_and_defaults():
    for lib in (torch, jtorch):
        a, b = lib.nn.Parameter(lib.ones(2)), lib.nn.Parameter(lib.ones(3))
        opt = lib.optim.Adam([a], lr=0.1)
        opt.add_param_group({"params": b, "lr": 0.2})
        assert opt.param_groups[1]["betas"] == (0.9, 0.999)
        assert opt.param_groups[1]["lr"] == 0.2
        assert opt.defaults["lr"] == 0.1
    p = jtorch.nn.Parameter(jtorch.ones(2))
    tp = torch.nn.Parameter(torch.ones(2))
    raises_like(lambda: torch.optim.SGD([tp]).add_param_group({"params": [tp]}),
                lambda: jtorch.optim.SGD([p]).add_param_group({"params": [p]}))
    raises_like(lambda: torch.optim.SGD([tp]).add_param_group({"params": {tp}}),
                lambda: jtorch.optim.SGD([p]).add_param_group({"params": {p}}))
    named = jtorch.optim.SGD([("w", p)], lr=0.1)
    assert named.state_dict()["param_groups"][0]["param_names"] == ["w"]


def _step_once(opt, p):
    p.grad = p.detach() + 1
    opt.step()


def _validation_cases(lib):
    p = lib.nn.Parameter(lib.ones(2))
    m = lib.nn.Parameter(lib.ones(2, 3))
    o = lib.optim
    return [
        lambda: o.SGD(p),
        lambda: o.SGD([], lr=0.1),
        lambda: o.SGD([1.0]),
        lambda: o.SGD([p * 2]),
        lambda: o.SGD([{"params": [p]}, {"params": [p]}]),
        lambda: o.SGD([p], lr=-1.0),
        lambda: o.SGD([p], momentum=-0.5),
        lambda: o.SGD([p], weight_decay=-1),
        lambda: o.SGD([p], nesterov=True),
        lambda: o.SGD([p], momentum=0.9, dampening=0.1, nesterov=True),
        lambda: o.Adam([p], lr=-1.0),
        lambda: o.Adam([p], betas=(1.0, 0.9)),
        lambda: o.Adam([p], betas=(0.9, -0.1)),
        lambda: o.Adam([p], eps=-1.0),
        lambda: o.AdamW([p], weight_decay=-0.1),
        lambda: o.Adamax([p], betas=(1.5, 0.9)),
        lambda: o.NAdam([p], momentum_decay=-1.0),
        lambda: o.RAdam([p], betas=(0.9, 1.0)),
        lambda: o.RMSprop([p], alpha=-1.0),
        lambda: o.RMSprop([p], momentum=-1.0),
        lambda: o.Adagrad([p], lr_decay=-1.0),
        lambda: o.Adagrad([p], initial_accumulator_value=-1.0),
        lambda: o.Adadelta([p], rho=1.5),
        lambda: o.Rprop([p], etas=(1.5, 2.0)),
        lambda: o.Adafactor([p], lr=-1.0),
        lambda: o.Adafactor([p], beta2_decay=0.5),
        lambda: o.Adafactor([p], eps=(-1.0, 1e-3)),
        lambda: o.Adafactor([p], eps=(None, -1.0)),
        lambda: o.Adafactor([p], d=0.5),
        lambda: o.Adafactor([p], weight_decay=-0.1),
        lambda: o.Muon([m], lr=-1.0),
        lambda: o.Muon([m], momentum=-1.0),
        lambda: o.Muon([m], weight_decay=-1.0),
        lambda: o.Muon([m], adjust_lr_fn="cosine"),
        lambda: o.Muon([p]),
        lambda: _step_once(o.Muon([m], ns_steps=100), m),
        lambda: _step_once(o.Muon([m], ns_coefficients=(1.0, 2.0)), m),
        lambda: o.LBFGS([{"params": [p]}, {"params": [lib.nn.Parameter(lib.ones(1))]}]),
        lambda: o.SGD([p], lr=lib.tensor([0.1, 0.2])),
        lambda: o.SGD([p]).load_state_dict({"state": {}, "param_groups": []}),
        lambda: o.SGD([p]).load_state_dict({"state": {}, "param_groups": [{"params": [0, 1]}]}),
        lambda: o.SGD([p]).add_param_group([p]),
    ]


@pytest.mark.parametrize("i", range(len(_validation_cases(torch))))
def test_validation_messages(i):
    raises_like(_validation_cases(torch)[i], _validation_cases(jtorch)[i])


@pytest.mark.parametrize("kw", [kw for _, kw in CASES[-3:-1]], ids=["default", "decay-maximize"])
def test_adafactor_float64_rank3_and_groups(kw):
    """Adafactor's factored second moment over the last two dims of a rank-3 parameter, in
    float64 (eps1 None: float64's machine epsilon), with two groups."""
    init = _init(np.float64, seed=3) + [np.random.default_rng(3).standard_normal((2, 3, 4))]
    tps, topt = _make(torch, "Adafactor", kw, init, groups=True)
    jps, jopt = _make(jtorch, "Adafactor", kw, init, groups=True)
    for k, _ in zip(_train(torch, tps, topt, 15), _train(jtorch, jps, jopt, 15)):
        _compare_state(topt, jopt, tps, jps, 1e-10, 1e-12, f"step {k}")
    assert tuple(jopt.state[jps[-1]]["row_var"].shape) == (2, 3, 1)
    assert tuple(jopt.state[jps[-1]]["col_var"].shape) == (2, 1, 4)
    _compare_state_dicts(topt.state_dict(), jopt.state_dict())


def test_adafactor_rejects_complex_parameters():
    def step(lib):
        p = lib.nn.Parameter(lib.ones(2, dtype=lib.complex64))
        opt = lib.optim.Adafactor([p])
        (p.abs() ** 2).sum().backward()
        opt.step()

    raises_like(lambda: step(torch), lambda: step(jtorch))


MUON_CASES = [{}, {"lr": 0.02, "nesterov": False, "weight_decay": 0.0},
              {"adjust_lr_fn": "match_rms_adamw", "momentum": 0.9, "ns_steps": 3,
               "ns_coefficients": (3.0, -4.0, 2.0), "eps": 1e-5}]


@pytest.mark.parametrize("kw", MUON_CASES, ids=["default", "no-nesterov", "options"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_muon_steps_match_torch(kw, dtype):
    """Muon's bfloat16 Newton-Schulz iteration rounds as PyTorch's does (float32 accumulation,
    one rounding per product): the same gradients give the same steps, wide, tall and square
    parameters, two groups."""
    rng = np.random.default_rng(0)
    shapes = [(6, 4), (3, 5), (4, 4), (24, 16)]
    init = [rng.standard_normal(s).astype(dtype) for s in shapes]
    tps, topt = _make(torch, "Muon", kw, init, groups=True)
    jps, jopt = _make(jtorch, "Muon", kw, init, groups=True)
    for k in range(4):
        for i, (tp, jp) in enumerate(zip(tps, jps)):
            if k % 2 and i == 1:     # a parameter without a gradient this step is skipped
                tp.grad = jp.grad = None
                continue
            g = rng.standard_normal(tuple(tp.shape)).astype(dtype)
            tp.grad, jp.grad = torch.tensor(g), jtorch.tensor(g)
        topt.step()
        jopt.step()
        _compare_state(topt, jopt, tps, jps, 1e-6, 1e-6, f"step {k}")
    _compare_state_dicts(topt.state_dict(), jopt.state_dict())


def test_sparse_adam_not_implemented():
    with pytest.raises(NotImplementedError, match="torch.optim.SparseAdam"):
        jtorch.optim.SparseAdam([jtorch.nn.Parameter(jtorch.ones(2))])


def _rosenbrock(lib, xy):
    x, y = xy[0], xy[1]
    return (1 - x) ** 2 + 100 * (y - x * x) ** 2


# Rosenbrock is ill-conditioned: last-bit differences (XLA's vs ATen's dot) grow by ~10x per
# few iterations, so the comparison covers 4 steps of at most 5 iterations each
@pytest.mark.parametrize("kw", [{"max_iter": 5}, {"line_search_fn": "strong_wolfe", "max_iter": 5},
                                {"history_size": 3, "max_iter": 4, "lr": 0.5},
                                {"line_search_fn": "strong_wolfe", "history_size": 2,
                                 "max_iter": 5}])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_lbfgs_rosenbrock(kw, dtype):
    res = []
    for lib in (torch, jtorch):
        xy = lib.nn.Parameter(lib.tensor(np.array([-1.5, 2.0], dtype=dtype)))
        opt = lib.optim.LBFGS([xy], **kw)
        losses = []

        def closure(lib=lib, xy=xy, opt=opt):
            opt.zero_grad()
            loss = _rosenbrock(lib, xy)
            loss.backward()
            return loss

        traj = []
        for _ in range(4):
            losses.append(float(opt.step(closure).detach()))
            traj.append(xy.detach().numpy().copy())
        res.append((np.array(traj), losses, opt.state[xy]))
    (tt, tl, ts), (jt, jl, js) = res
    tol = 1e-3 if dtype == np.float32 else 1e-8
    np.testing.assert_allclose(jt, tt, rtol=tol, atol=tol)
    np.testing.assert_allclose(jl, tl, rtol=tol, atol=tol)
    assert js["func_evals"] == ts["func_evals"] and js["n_iter"] == ts["n_iter"]
    assert len(js["old_dirs"]) == len(ts["old_dirs"])
    np.testing.assert_allclose(_to_np(js["d"]), _to_np(ts["d"]), rtol=tol * 10, atol=tol)


def _custom_sgd(lib):
    class MySGD(lib.optim.Optimizer):
        def __init__(self, params, lr=0.1):
            super().__init__(params, {"lr": lr})

        @lib.no_grad()
        def step(self, closure=None):
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        st = self.state[p]
                        st["n"] = st.get("n", 0) + 1
                        p.add_(p.grad, alpha=-group["lr"])

    p = lib.nn.Parameter(lib.tensor([1.0, 2.0]))
    opt = MySGD([p])
    log = []
    opt.register_step_post_hook(lambda o, a, k: log.append(1))
    for _ in range(3):
        p.grad = p.detach() * 2
        opt.step()
    return p.detach().numpy(), opt.state_dict()["state"], log, repr(opt)


def test_user_defined_optimizer_subclass():
    tp, ts, tlog, trepr = _custom_sgd(torch)
    jp, js, jlog, jrepr = _custom_sgd(jtorch)
    np.testing.assert_allclose(jp, tp)
    assert js == ts and jlog == tlog and jrepr == trepr


def test_hyperparameters_are_passed_as_cached_device_arrays():
    """A step's Python-float hyperparameters become device arrays once per distinct value (a
    float passed to a jitted program is converted at every call), with the floats' own avals
    (weak float64: the same program) and keyed by their bits (-0.0 is not 0.0)."""
    values = _transforms.device_scalars((0.5, 0.0, -0.0))
    assert _transforms.device_scalars((0.5, 0.0, -0.0)) is values
    assert [bool(np.signbit(v)) for v in values] == [False, False, True]
    assert all(jax.typeof(v).weak_type and v.dtype == np.float64 for v in values)
    named = _transforms.device_scalars(jtorch.optim.adam.AdamHyper(1e-3, 0.9, 0.999, 1e-8, 0.0))
    assert type(named).__name__ == "AdamHyper" and float(named.lr) == 1e-3
    # inside a JAX transformation the floats stay floats, and no tracer is kept for later
    assert float(jax.jit(lambda: _transforms.device_scalars((0.125,))[0] * 2)()) == 0.25
    assert not isinstance(_transforms.device_scalars((0.125,))[0], jax.core.Tracer)
    assert _transforms.device_scalars(()) == ()
