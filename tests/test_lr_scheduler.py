"""jtorch.optim.lr_scheduler against torch's: learning-rate (and momentum) trajectories equal
bit for bit over 100 steps, resuming from state_dict, ReduceLROnPlateau, warnings, errors."""

from __future__ import annotations

import math
import warnings

import pytest
import torch
from helpers import raises_like

import jtorch


def _opt(lib, kind="SGD"):
    a = lib.nn.Parameter(lib.ones(2))
    b = lib.nn.Parameter(lib.ones(3))
    groups = [{"params": [a]}, {"params": [b], "lr": 0.05}]
    if kind == "Adam":
        return lib.optim.Adam(groups, lr=0.1)
    return lib.optim.SGD(groups, lr=0.1, momentum=0.9)


def _sched(lib, opt, make):
    return make(lib.optim.lr_scheduler, opt)


def _record(opt, sched):
    return (list(sched.get_last_lr()), [g["lr"] for g in opt.param_groups],
            [g.get("momentum") for g in opt.param_groups],
            [g.get("betas") for g in opt.param_groups])


def _run(lib, make, steps, kind="SGD"):
    opt = _opt(lib, kind)
    sched = make(lib.optim.lr_scheduler, opt)
    out = [_record(opt, sched)]
    for _ in range(steps):
        opt.step()
        sched.step()
        out.append(_record(opt, sched))
    return opt, sched, out


CASES = {
    "lambda": lambda S, o: S.LambdaLR(o, [lambda e: 0.95 ** e, lambda e: 1 / (1 + e)]),
    "multiplicative": lambda S, o: S.MultiplicativeLR(o, lambda e: 0.97),
    "step": lambda S, o: S.StepLR(o, step_size=7, gamma=0.3),
    "multistep": lambda S, o: S.MultiStepLR(o, milestones=[10, 30, 30, 60], gamma=0.5),
    "constant": lambda S, o: S.ConstantLR(o, factor=0.25, total_iters=12),
    "linear": lambda S, o: S.LinearLR(o, start_factor=0.1, end_factor=0.9, total_iters=33),
    "exponential": lambda S, o: S.ExponentialLR(o, gamma=0.97),
    "polynomial": lambda S, o: S.PolynomialLR(o, total_iters=40, power=2.5),
    "cosine": lambda S, o: S.CosineAnnealingLR(o, T_max=17, eta_min=1e-3),
    "warm_restarts": lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=7, T_mult=2,
                                                                eta_min=1e-4),
    "warm_restarts_1": lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=9),
    "cyclic": lambda S, o: S.CyclicLR(o, 0.01, [0.1, 0.2], step_size_up=9, step_size_down=5),
    "cyclic2": lambda S, o: S.CyclicLR(o, 0.01, 0.1, step_size_up=6, mode="triangular2"),
    "cyclic_exp": lambda S, o: S.CyclicLR(o, 0.01, 0.1, step_size_up=6, mode="exp_range",
                                          gamma=0.97, base_momentum=0.7),
    "cyclic_fn": lambda S, o: S.CyclicLR(o, 0.01, 0.1, step_size_up=6,
                                         scale_fn=lambda x: 1 / (1 + x), scale_mode="iterations",
                                         cycle_momentum=False),
    "onecycle": lambda S, o: S.OneCycleLR(o, max_lr=[0.5, 0.3], total_steps=100),
    "onecycle_lin3": lambda S, o: S.OneCycleLR(o, max_lr=0.5, epochs=10, steps_per_epoch=10,
                                               anneal_strategy="linear", three_phase=True,
                                               pct_start=0.25, div_factor=10.0),
    "sequential": lambda S, o: S.SequentialLR(
        o, [S.LinearLR(o, start_factor=0.2, total_iters=10), S.ExponentialLR(o, 0.95),
            S.CosineAnnealingLR(o, T_max=20)], milestones=[10, 40]),
    "chained": lambda S, o: S.ChainedScheduler(
        [S.ConstantLR(o, factor=0.5, total_iters=15), S.ExponentialLR(o, gamma=0.98),
         S.StepLR(o, 20, 0.5)]),
}
ADAM_CASES = {"cyclic", "onecycle", "onecycle_lin3"}


# the momentum-cycling schedules also run on Adam (they cycle betas[0] there)
@pytest.mark.parametrize("name,kind", [(n, "SGD") for n in sorted(CASES)]
                         + [(n, "Adam") for n in sorted(ADAM_CASES)])
def test_trajectory_and_resume(name, kind):
    make = CASES[name]
    topt, tsched, tout = _run(torch, make, 100, kind)
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # no spurious warnings on the normal path
        _, jsched, jout = _run(jtorch, make, 100, kind)
    assert jout == tout   # exact: same float64 operations in the same order
    # the state dict has torch's keys (optimizer excluded)
    assert sorted(jsched.state_dict()) == sorted(tsched.state_dict())
    # resume at step 50 from the jtorch state dicts into fresh objects
    jopt, jsched, first = _run(jtorch, make, 50, kind)
    osd, ssd = jopt.state_dict(), jsched.state_dict()
    jopt2 = _opt(jtorch, kind)
    jsched2 = make(jtorch.optim.lr_scheduler, jopt2)
    jopt2.load_state_dict(osd)
    jsched2.load_state_dict(ssd)
    rest = []
    for _ in range(50):
        jopt2.step()
        jsched2.step()
        rest.append(_record(jopt2, jsched2))
    assert first + rest == tout


def test_get_lr_outside_step_warns_and_step_order_warning():
    for lib in (torch, jtorch):
        opt = _opt(lib)
        sched = lib.optim.lr_scheduler.StepLR(opt, 3)
        with pytest.warns(UserWarning, match="Detected call of `lr_scheduler.step"):
            sched.step()
        with pytest.warns(UserWarning, match="please use `get_last_lr"):
            sched.get_lr()


def _epoch_run(lib):
    S = lib.optim.lr_scheduler  # noqa: N806
    makers = [lambda o: S.StepLR(o, 4, 0.5), lambda o: S.CosineAnnealingLR(o, 10),
              lambda o: S.MultiStepLR(o, [3, 6]), lambda o: S.LinearLR(o),
              lambda o: S.PolynomialLR(o, 8), lambda o: S.ExponentialLR(o, 0.9),
              lambda o: S.ConstantLR(o), lambda o: S.LambdaLR(o, lambda e: 1 / (e + 1)),
              lambda o: S.CosineAnnealingWarmRestarts(o, 3, 2)]
    out = []
    for make in makers:
        opt = _opt(lib)
        sched = make(opt)
        for e in (5, 2, 9, 14):
            opt.step()
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                sched.step(e)
            out.append((sched.get_last_lr(), [str(x.message)[:40] for x in w]))
    return out


def test_step_with_epoch_uses_closed_form():
    res = [_epoch_run(torch), _epoch_run(jtorch)]
    assert res[0] == res[1]
    assert res[0][0][1] == ["The epoch parameter in `scheduler.step()"]


@pytest.mark.parametrize("kw", [{}, {"mode": "max", "factor": 0.5, "patience": 2},
                                {"threshold_mode": "abs", "threshold": 0.05, "cooldown": 3,
                                 "patience": 1, "min_lr": [0.02, 0.001]},
                                {"mode": "max", "threshold_mode": "abs", "eps": 0.02,
                                 "patience": 0, "min_lr": 0.01}])
def test_reduce_on_plateau(kw):
    metrics = [1.0, 0.9, 0.95, 0.94, 0.96, 0.97, 0.8, 0.85, 0.85, 0.85, 0.85, 0.9, 0.7] * 5
    metrics += [math.sin(i) for i in range(30)]
    out = []
    for lib in (torch, jtorch):
        opt = _opt(lib)
        sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, **kw)
        traj = []
        for i, m in enumerate(metrics):
            opt.step()
            sched.step(lib.tensor(m) if i % 3 == 0 else m)
            traj.append((sched.get_last_lr(), sched.num_bad_epochs, sched.cooldown_counter,
                         sched.best))
        out.append((traj, sorted(sched.state_dict())))
    assert out[0] == out[1]


def test_tensor_lr_is_filled_in_place():
    res = []
    for lib in (torch, jtorch):
        p = lib.nn.Parameter(lib.ones(2))
        opt = lib.optim.SGD([p], lr=lib.tensor(0.1))
        lr_t = opt.param_groups[0]["lr"]
        sched = lib.optim.lr_scheduler.ExponentialLR(opt, 0.5)
        opt.step()
        sched.step()
        assert opt.param_groups[0]["lr"] is lr_t
        res.append(float(lr_t))
    assert res[0] == res[1]


def _errors(lib):
    S = lib.optim.lr_scheduler
    o = _opt(lib)
    return [
        lambda: S.StepLR(object(), 3),
        lambda: S.StepLR(_opt(lib), 3, last_epoch=5),
        lambda: S.LambdaLR(o, [lambda e: 1.0]),
        lambda: S.MultiplicativeLR(o, 3),
        lambda: S.ConstantLR(o, factor=2.0),
        lambda: S.LinearLR(o, start_factor=0),
        lambda: S.LinearLR(o, end_factor=2.0),
        lambda: S.SequentialLR(o, [], []),
        lambda: S.SequentialLR(o, [S.StepLR(o, 2)], [3]),
        lambda: S.SequentialLR(o, [S.ReduceLROnPlateau(o)], []),
        lambda: S.ChainedScheduler([]),
        lambda: S.ReduceLROnPlateau(o, factor=1.0),
        lambda: S.ReduceLROnPlateau(o, mode="avg"),
        lambda: S.ReduceLROnPlateau(o, threshold_mode="x"),
        lambda: S.ReduceLROnPlateau(o, min_lr=[0.1]),
        lambda: S.CyclicLR(o, 0.1, 0.2, mode="bad"),
        lambda: S.CyclicLR(o, [0.1], 0.2),
        lambda: S.CyclicLR(lib.optim.Adagrad([lib.nn.Parameter(lib.ones(1))]), 0.1, 0.2),
        lambda: S.CosineAnnealingWarmRestarts(o, 0),
        lambda: S.CosineAnnealingWarmRestarts(o, 2, T_mult=0),
        lambda: S.OneCycleLR(o, 0.1),
        lambda: S.OneCycleLR(o, 0.1, total_steps=0),
        lambda: S.OneCycleLR(o, 0.1, total_steps=10, pct_start=1.5),
        lambda: S.OneCycleLR(o, 0.1, total_steps=10, anneal_strategy="exp"),
        lambda: S.OneCycleLR(o, 0.1, epochs=0, steps_per_epoch=3),
    ]


@pytest.mark.parametrize("i", range(len(_errors(torch))))
def test_errors(i):
    raises_like(_errors(torch)[i], _errors(jtorch)[i])


def test_onecycle_overrun():
    def run(lib):
        opt = _opt(lib)
        s = lib.optim.lr_scheduler.OneCycleLR(opt, 0.1, total_steps=3)
        for _ in range(4):
            opt.step()
            s.step()
    raises_like(lambda: run(torch), lambda: run(jtorch))


def _compiled_training(lib, make, steps):
    """SGD on a quadratic with the scheduler stepped inside the training step (compiled for
    jtorch: the scheduler's step is host-side, so the compiled program repeats it each run)."""
    opt = _opt(lib)
    sched = make(lib.optim.lr_scheduler, opt)
    params = [p for g in opt.param_groups for p in g["params"]]

    def train_step():
        opt.zero_grad()
        loss = sum((p * p * (i + 1.0)).sum() for i, p in enumerate(params))
        loss.backward()
        opt.step()
        sched.step()
        return loss

    step = jtorch.compile(train_step) if lib is jtorch else train_step
    out = []
    for _ in range(steps):
        step()
        out.append((_record(opt, sched), [p.detach().numpy().tolist() for p in params]))
    return out


@pytest.mark.parametrize("name", sorted(CASES))
def test_step_inside_compiled_training_step(name):
    expected = _compiled_training(torch, CASES[name], 8)
    got = _compiled_training(jtorch, CASES[name], 8)
    assert [lrs for lrs, _ in got] == [lrs for lrs, _ in expected]
    for (_, jp), (_, tp) in zip(got, expected):
        for a, b in zip(jp, tp):
            assert a == pytest.approx(b, rel=1e-6, abs=1e-7)
