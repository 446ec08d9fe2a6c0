"""nn.AdaptiveLogSoftmaxWithLoss against PyTorch: output, loss and every gradient (targets in
the shortlist and in each cluster, unbatched input), log_prob, predict, errors, and the same
values under jtorch.compile."""

import numpy as np
import pytest
import torch
from helpers import assert_close, raises_like, rand
from nn_helpers import module_parity

import jtorch


def _make(T, **kw):
    return T.nn.AdaptiveLogSoftmaxWithLoss(16, 20, [4, 9], **kw)


TARGETS = np.array([0, 3, 4, 8, 9, 14, 15, 19, 2, 12, 17, 5])


@pytest.mark.parametrize("kw", [{}, {"div_value": 2.0, "head_bias": True}])
def test_forward_and_gradients_match_torch(kw):
    target = TARGETS

    def call(m, x):
        lib = torch if isinstance(m, torch.nn.Module) else jtorch
        return tuple(m(x, lib.tensor(target)))

    module_parity(lambda T: _make(T, **kw), rand(len(target), 16), call=call)


def test_unbatched_input_and_one_cluster():
    module_parity(lambda T: T.nn.AdaptiveLogSoftmaxWithLoss(6, 10, [3]), rand(6),
                  call=lambda m, x: tuple(m(x, (torch if isinstance(m, torch.nn.Module)
                                                else jtorch).tensor(7))))


def _pair():
    tm = _make(torch, head_bias=True)
    jm = _make(jtorch, head_bias=True)
    jm.load_state_dict({k: jtorch.tensor(v.detach().numpy()) for k, v in
                        tm.state_dict().items()})
    return tm, jm


def test_log_prob_and_predict_match_torch():
    tm, jm = _pair()
    x = rand(16, 16, seed=3) * 3
    assert_close(jm.log_prob(jtorch.tensor(x)), tm.log_prob(torch.tensor(x)))
    t_pred = tm.predict(torch.tensor(x))
    j_pred = jm.predict(jtorch.tensor(x))
    assert j_pred.dtype == jtorch.int64
    np.testing.assert_array_equal(j_pred.numpy(), t_pred.numpy())
    # rows all in the shortlist and all outside it (PyTorch's two other branches)
    for rows in (t_pred < 4, t_pred >= 4):
        idx = np.nonzero(rows.numpy())[0]
        if len(idx):
            np.testing.assert_array_equal(jm.predict(jtorch.tensor(x[idx])).numpy(),
                                          tm.predict(torch.tensor(x[idx])).numpy())


def test_compiled_matches_eager():
    _, jm = _pair()
    x, t = jtorch.tensor(rand(12, 16)), jtorch.tensor(TARGETS)
    eager = jm(x, t)
    compiled = jtorch.compile(lambda a, b: tuple(jm(a, b)))(x, t)
    assert_close(compiled[0], eager.output)
    assert_close(compiled[1], eager.loss)


def _errors(T):
    m = _make(T)
    return [lambda: T.nn.AdaptiveLogSoftmaxWithLoss(16, 20, []),
            lambda: T.nn.AdaptiveLogSoftmaxWithLoss(16, 20, [5, 3]),
            lambda: T.nn.AdaptiveLogSoftmaxWithLoss(16, 20, [4, 20]),
            lambda: m(T.zeros(3, 16), T.tensor([0, 1])),
            lambda: m(T.zeros(3, 2, 16), T.tensor([0, 1, 2])),
            lambda: m(T.zeros(3, 16), T.tensor(1)),
            lambda: m(T.zeros(3, 16), T.zeros(3, 2, dtype=T.long)),
            lambda: m(T.zeros(3, 16), T.tensor([0, 20, 3])),
            lambda: m(T.zeros(2, 16), T.tensor([-1, 3]))]


@pytest.mark.parametrize("i", range(9))
def test_errors_match_torch(i):
    raises_like(_errors(torch)[i], _errors(jtorch)[i])
