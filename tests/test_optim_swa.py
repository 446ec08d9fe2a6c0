"""torch.optim.swa_utils against PyTorch: AveragedModel (SWA, EMA by multi_avg_fn and by
avg_fn, use_buffers with an integer buffer), update_bn, SWALR's learning rates and state_dict,
the errors, and an update inside a compiled step."""

import numpy as np
import pytest
import torch
from helpers import raises_like

import jtorch


def _model(T):
    return T.nn.Sequential(T.nn.Linear(3, 4), T.nn.BatchNorm1d(4), T.nn.Linear(4, 2))


def _averaged_models(T, m):
    swa = T.optim.swa_utils
    return [swa.AveragedModel(m), swa.AveragedModel(m, use_buffers=True),
            swa.AveragedModel(m, multi_avg_fn=swa.get_ema_multi_avg_fn(0.9)),
            swa.AveragedModel(m, avg_fn=swa.get_ema_avg_fn(0.8), use_buffers=True),
            swa.AveragedModel(m, avg_fn=swa.get_swa_avg_fn()),
            swa.AveragedModel(m, multi_avg_fn=swa.get_swa_multi_avg_fn())]


def _train_and_average(T, state):
    m = _model(T)
    m.load_state_dict({k: T.tensor(v) for k, v in state.items()})
    avgs = _averaged_models(T, m)
    opt = T.optim.SGD(m.parameters(), lr=0.1)
    rng = np.random.default_rng(1)
    for _ in range(4):
        x = T.tensor(rng.standard_normal((6, 3)).astype(np.float32))
        opt.zero_grad()
        m(x).pow(2).sum().backward()
        opt.step()
        for a in avgs:
            a.update_parameters(m)
    loader = [(T.tensor(rng.standard_normal((6, 3)).astype(np.float32)), 0) for _ in range(3)]
    T.optim.swa_utils.update_bn(loader, avgs[0])
    x = T.tensor(rng.standard_normal((5, 3)).astype(np.float32))
    outs = [a.eval()(x).detach().numpy() for a in avgs]
    return [{k: v.numpy().copy() for k, v in a.state_dict().items()} for a in avgs], outs, avgs


def test_averaged_models_match_torch():
    state = {k: v.numpy() for k, v in _model(torch).state_dict().items()}
    t_states, t_outs, t_avgs = _train_and_average(torch, state)
    j_states, j_outs, j_avgs = _train_and_average(jtorch, state)
    for i, (ts, js) in enumerate(zip(t_states, j_states)):
        assert list(js) == list(ts), i
        for key in ts:
            assert js[key].dtype == ts[key].dtype, (i, key)
            np.testing.assert_allclose(js[key], ts[key], rtol=1e-6, atol=1e-6,
                                       err_msg=f"model {i}: {key}")
    for t_out, j_out in zip(t_outs, j_outs):
        np.testing.assert_allclose(j_out, t_out, rtol=1e-5, atol=1e-6)
    assert int(j_avgs[1].module[1].num_batches_tracked) == \
        int(t_avgs[1].module[1].num_batches_tracked)
    assert repr(j_avgs[0]) == repr(t_avgs[0])


def test_update_inside_compiled_step_matches_eager():
    def run(compiled):
        jtorch.manual_seed(0)
        m = jtorch.nn.Linear(4, 3)
        ema = jtorch.optim.swa_utils.AveragedModel(
            m, multi_avg_fn=jtorch.optim.swa_utils.get_ema_multi_avg_fn(0.9))
        opt = jtorch.optim.Adam(m.parameters(), lr=0.05)
        x = jtorch.randn(8, 4)

        def step():
            opt.zero_grad()
            m(x).square().mean().backward()
            opt.step()
            ema.update_parameters(m)

        f = jtorch.compile(step) if compiled else step
        for _ in range(4):
            f()
        return [p.detach().numpy() for p in ema.parameters()], int(ema.n_averaged)

    eager, compiled = run(False), run(True)
    assert eager[1] == compiled[1] == 4
    for a, b in zip(eager[0], compiled[0]):
        np.testing.assert_allclose(b, a, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("kw", [{"swa_lr": 0.05}, {"swa_lr": [0.05, 0.01], "anneal_epochs": 3,
                                                   "anneal_strategy": "linear"},
                                {"swa_lr": 0.2, "anneal_epochs": 0}])
def test_swalr_matches_torch(kw):
    lrs = []
    for T in (torch, jtorch):
        p, q = T.nn.Parameter(T.ones(2)), T.nn.Parameter(T.ones(1))
        opt = T.optim.SGD([{"params": [p]}, {"params": [q], "lr": 0.3}], lr=0.5)
        sched = T.optim.swa_utils.SWALR(opt, **kw)
        seen = [sched.get_last_lr()]
        for _ in range(6):
            opt.step()
            sched.step()
            seen.append(sched.get_last_lr())
        state = sched.state_dict()
        assert "optimizer" not in state and "anneal_func" not in state
        lrs.append((seen, sorted(state)))
    np.testing.assert_allclose(np.array(lrs[1][0]), np.array(lrs[0][0]), rtol=1e-12)
    assert lrs[1][1] == lrs[0][1]


def test_swalr_load_state_dict_restores_the_anneal_function():
    p = jtorch.nn.Parameter(jtorch.ones(2))
    a = jtorch.optim.swa_utils.SWALR(jtorch.optim.SGD([p], lr=0.5), 0.05, anneal_strategy="linear")
    b = jtorch.optim.swa_utils.SWALR(jtorch.optim.SGD([p], lr=0.5), 0.05)
    b.load_state_dict(a.state_dict())
    assert b.anneal_func is b._linear_anneal


def _errors(T):
    swa = T.optim.swa_utils
    opt = T.optim.SGD([T.nn.Parameter(T.ones(1))], lr=0.1)
    return [lambda: swa.get_ema_multi_avg_fn(1.5), lambda: swa.get_ema_avg_fn(-0.1),
            lambda: swa.AveragedModel(T.nn.Linear(1, 1), avg_fn=swa.get_swa_avg_fn(),
                                      multi_avg_fn=swa.get_swa_multi_avg_fn()),
            lambda: swa.SWALR(opt, 0.1, anneal_strategy="exp"),
            lambda: swa.SWALR(opt, 0.1, anneal_epochs=-1),
            lambda: swa.SWALR(opt, [0.1, 0.2]),
            # the foreach running mean rejects an integer buffer (num_batches_tracked)
            lambda: _update_twice(T, swa.AveragedModel(
                T.nn.BatchNorm1d(2), multi_avg_fn=swa.get_swa_multi_avg_fn(), use_buffers=True))]


def _update_twice(T, averaged):
    model = T.nn.BatchNorm1d(2)
    for _ in range(2):
        averaged.update_parameters(model)


@pytest.mark.parametrize("i", range(7))
def test_errors_match_torch(i):
    raises_like(_errors(torch)[i], _errors(jtorch)[i])
