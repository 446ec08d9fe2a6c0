"""RNN / LSTM / GRU, their cells, torch.lstm & co and nn.utils.rnn (packed sequences)."""

import math

import jax
import numpy as np
import pytest
import torch

import jtorch
from tests.helpers import parity, raises_like, rand
from tests.nn_helpers import module_parity


def _z(T, *shape, dt=np.float32):  # noqa: N803
    """A tensor built from host data (no per-shape kernel to compile: error tests stay fast)."""
    return T.tensor(np.ones(shape, dt))


def _lib(m):
    return torch if isinstance(m, torch.nn.Module) else jtorch


# ------------------------------------------------------------------------------ modules
# (constructor, input shape, initial state shapes or None)
CONFIGS = [
    ("RNN", {}, (5, 2, 3), None),
    ("RNN", {"nonlinearity": "relu", "bias": False, "num_layers": 2,
             "batch_first": True}, (2, 5, 3),
     [(2, 2, 4)]),
    ("LSTM", {"num_layers": 2, "bidirectional": True}, (5, 2, 3), [(4, 2, 4), (4, 2, 4)]),
    ("LSTM", {"proj_size": 2, "bidirectional": True, "batch_first": True}, (2, 5, 3), None),
    ("LSTM", {"proj_size": 2}, (5, 3), [(1, 2), (1, 4)]),  # unbatched, h0 given
    ("GRU", {"num_layers": 2, "bidirectional": True}, (5, 2, 3), [(4, 2, 4)]),
    ("GRU", {"batch_first": True, "dropout": 0.5, "num_layers": 2}, (5, 3), None),  # unbatched
]


@pytest.mark.parametrize("kind,kw,shape,states", CONFIGS)
def test_rnn_modules(kind, kw, shape, states):
    inputs = [rand(*shape)] + [rand(*s) for s in states or []]

    def call(m, x, *st):
        if not st:
            return m(x)
        return m(x, tuple(st) if kind == "LSTM" else st[0])

    # dropout only acts in training mode between layers: compare in eval there
    module_parity(lambda T: getattr(T.nn, kind)(3, 4, **kw), *inputs, call=call,
                  train=not kw.get("dropout"))


def test_lstm_float64():
    module_parity(lambda T: T.nn.LSTM(3, 4, num_layers=2, bidirectional=True),
                  rand(4, 2, 3, dtype=np.float64), double=True, call=lambda m, x: m(x))


def test_dropout_one_between_layers():
    # p=1 zeroes the first layer's output in both libraries: training mode compares exactly
    module_parity(lambda T: T.nn.GRU(3, 4, num_layers=2, dropout=1.0), rand(4, 2, 3),
                  call=lambda m, x: m(x))


def test_dropout_between_layers_train():
    jtorch.manual_seed(0)
    m = jtorch.nn.LSTM(3, 4, num_layers=2, dropout=0.5)
    x = jtorch.randn(6, 2, 3)
    a, b = m(x)[0], m(x)[0]
    assert not np.allclose(a.detach().numpy(), b.detach().numpy())  # fresh mask per call
    m.eval()
    np.testing.assert_array_equal(m(x)[0].detach().numpy(), m(x)[0].detach().numpy())
    jtorch.manual_seed(1)
    c = m.train()(x)[0]
    jtorch.manual_seed(1)
    np.testing.assert_array_equal(c.detach().numpy(), m(x)[0].detach().numpy())


@pytest.mark.parametrize("kind,enforce_sorted", [("RNN", True), ("LSTM", False),
                                                 ("GRU", False)])
def test_packed_input(kind, enforce_sorted):
    lengths = [5, 3, 2] if enforce_sorted else [2, 5, 3]

    def call(m, x, h):
        T = _lib(m)
        p = T.nn.utils.rnn.pack_padded_sequence(x, lengths, enforce_sorted=enforce_sorted)
        out, hn = m(p, (h, h * 0.5) if kind == "LSTM" else h)
        assert isinstance(out, T.nn.utils.rnn.PackedSequence)
        pad, lens = T.nn.utils.rnn.pad_packed_sequence(out, batch_first=True)
        return out.data, out.batch_sizes, pad, lens, hn

    module_parity(lambda T: getattr(T.nn, kind)(3, 4, num_layers=2, bidirectional=True),
                  rand(5, 3, 3), rand(4, 3, 4), call=call)


def test_packed_lstm_proj_no_state():
    def call(m, a, b, c):
        T = _lib(m)
        out, (h, cc) = m(T.nn.utils.rnn.pack_sequence([a, b, c], enforce_sorted=False))
        return T.nn.utils.rnn.unpack_sequence(out), h, cc

    module_parity(lambda T: T.nn.LSTM(3, 4, proj_size=2, batch_first=True), rand(2, 3),
                  rand(4, 3), rand(1, 3), call=call)


# ------------------------------------------------------------------------------ cells
@pytest.mark.parametrize("kind,kw", [("RNNCell", {}), ("RNNCell", {"nonlinearity": "relu"}),
                                     ("LSTMCell", {}), ("GRUCell", {"bias": False})])
def test_cells(kind, kw):
    make = lambda T: getattr(T.nn, kind)(3, 4, **kw)  # noqa: E731
    lstm = kind == "LSTMCell"
    module_parity(make, rand(2, 3), rand(2, 4), rand(2, 4),
                  call=lambda m, x, h, c: m(x, (h, c) if lstm else h))
    module_parity(make, rand(3), call=lambda m, x: m(x))  # unbatched, no state


def test_functional_cells():
    parity(lambda T, x, h, wi, wh, bi, bh: T.rnn_tanh_cell(x, h, wi, wh, bi, bh),
           rand(2, 3), rand(2, 4), rand(4, 3), rand(4, 4), rand(4), rand(4))
    parity(lambda T, x, h, c, wi, wh: T.lstm_cell(x, (h, c), wi, wh),
           rand(2, 3), rand(2, 4), rand(2, 4), rand(16, 3), rand(16, 4))
    parity(lambda T, x, h, wi, wh, bi, bh: T.gru_cell(x, h, wi, wh, bi, bh),
           rand(2, 3, dtype=np.float64), rand(2, 4, dtype=np.float64),
           rand(12, 3, dtype=np.float64), rand(12, 4, dtype=np.float64),
           rand(12, dtype=np.float64), rand(12, dtype=np.float64))


# ------------------------------------------------------------------------------ torch.lstm & co
def test_functional_lstm_under_jit():
    # torch.lstm(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
    # batch_first): the whole recurrence is one kernel, checked under jax.jit by parity()
    w = [rand(16, 3), rand(16, 4), rand(16), rand(16), rand(16, 3), rand(16, 4), rand(16),
         rand(16)]
    parity(lambda T, x, h, c, w: T.lstm(x, (h, c), w, True, 1, 0.0, False, True, True),
           rand(2, 5, 3), rand(2, 2, 4), rand(2, 2, 4), w)


def test_functional_gru_packed():
    def fn(T, x, h, w):
        p = T.nn.utils.rnn.pack_padded_sequence(x, [4, 2])
        return T.gru(p.data, p.batch_sizes, h, w, False, 1, 0.0, False, False)

    parity(fn, rand(4, 2, 3), rand(1, 2, 4), [rand(12, 3), rand(12, 4)])


def test_module_under_jit():
    m = jtorch.nn.GRU(3, 4, num_layers=2, batch_first=True)
    x = rand(2, 5, 3)

    def f(a):
        p = jtorch.nn.utils.rnn.pack_padded_sequence(jtorch.Tensor._make(a), [5, 2],
                                                     batch_first=True)
        out, h = m(p)
        return out.data._value, h._value

    eager = f(x)
    traced = jax.jit(f)(x)
    for a, b in zip(traced, eager):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------------------ init, repr
def test_parameters_and_init():
    m = jtorch.nn.LSTM(3, 16, num_layers=2, bidirectional=True, proj_size=4)
    t = torch.nn.LSTM(3, 16, num_layers=2, bidirectional=True, proj_size=4)
    assert [(n, tuple(p.shape)) for n, p in m.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in t.named_parameters()]
    assert [[tuple(p.shape) for p in ws] for ws in m.all_weights] == \
        [[tuple(p.shape) for p in ws] for ws in t.all_weights]
    bound = 1 / math.sqrt(16)
    w = np.concatenate([p.detach().numpy().ravel() for p in m.parameters()])
    assert w.min() >= -bound and w.max() <= bound
    assert w.min() < -0.95 * bound and w.max() > 0.95 * bound
    assert abs(w.mean()) < 0.01 and abs(w.std() - bound / math.sqrt(3)) < 0.01
    m.flatten_parameters()
    c = jtorch.nn.GRUCell(3, 4)
    assert sorted(n for n, _ in c.named_parameters()) == \
        ["bias_hh", "bias_ih", "weight_hh", "weight_ih"]
    assert jtorch.nn.RNN(2, 3, dtype=jtorch.float64).weight_ih_l0.dtype == jtorch.float64


@pytest.mark.parametrize("make", [
    lambda T: T.nn.RNN(3, 4),
    lambda T: T.nn.RNN(3, 4, 2, nonlinearity="relu", bias=False, batch_first=True,
                       dropout=0.5, bidirectional=True),
    lambda T: T.nn.LSTM(3, 4, proj_size=2, num_layers=3),
    lambda T: T.nn.GRU(3, 4, bias=False),
    lambda T: T.nn.RNNCell(3, 4, nonlinearity="relu", bias=False),
    lambda T: T.nn.LSTMCell(3, 4),
    lambda T: T.nn.GRUCell(3, 4),
])
def test_repr(make):
    assert repr(make(jtorch)) == repr(make(torch))


# ------------------------------------------------------------------------------ nn.utils.rnn
def test_pack_pad_roundtrip():
    def u(T):
        return T.nn.utils.rnn

    x = rand(4, 3, 2)
    parity(lambda T, x: tuple(u(T).pack_padded_sequence(x, [2, 4, 3], enforce_sorted=False)),
           x)
    parity(lambda T, x: tuple(u(T).pack_padded_sequence(x, T.tensor([3, 3, 1]),
                                                        batch_first=True)), rand(3, 4, 2))
    parity(lambda T, x: u(T).pad_packed_sequence(
        u(T).pack_padded_sequence(x, [2, 4, 3], enforce_sorted=False), batch_first=True,
        padding_value=-1.5, total_length=6), x)
    parity(lambda T, x: u(T).pad_packed_sequence(u(T).pack_padded_sequence(x, [4, 2, 1])), x)


def test_pad_sequence_and_friends():
    def u(T):
        return T.nn.utils.rnn

    seqs = [rand(2, 3), rand(4, 3), rand(1, 3)]
    for kw in [{}, {"batch_first": True, "padding_value": 2.0},
               {"padding_side": "left", "batch_first": True}]:
        parity(lambda T, s, kw=kw: u(T).pad_sequence(s, **kw), seqs)
    parity(lambda T, s: u(T).pad_sequence(s), [rand(3, dtype=np.int64, low=0, high=9),
                                                  rand(1, dtype=np.int64, low=0, high=9)])
    parity(lambda T, s: tuple(u(T).pack_sequence(s, enforce_sorted=False)), seqs)
    parity(lambda T, s: u(T).unpack_sequence(u(T).pack_sequence(s, enforce_sorted=False)),
           seqs)
    parity(lambda T, x: u(T).unpad_sequence(x, T.tensor([2, 4, 1]), batch_first=True),
           rand(3, 4, 2))
    parity(lambda T, x: u(T).unpad_sequence(x.clone(), T.tensor([2, 4, 1])), rand(4, 3, 2))
    parity(lambda T: u(T).invert_permutation(T.tensor([2, 0, 3, 1])))
    t = torch.nn.utils.rnn.pack_sequence([torch.tensor([1, 2, 3]), torch.tensor([4, 5])])
    j = jtorch.nn.utils.rnn.pack_sequence([jtorch.tensor([1, 2, 3]), jtorch.tensor([4, 5])])
    assert repr(j) == repr(t)
    assert j._fields == t._fields
    assert j.double().data.dtype == jtorch.float64 and j.to(jtorch.int64) is j


# ------------------------------------------------------------------------------ errors
ERRORS = [
    lambda T: T.nn.RNN(10, 20)(_z(T, 5, 3, 7)),
    lambda T: T.nn.RNN(10, 20)(_z(T, 5, 3, 10), _z(T, 1, 2, 20)),
    lambda T: T.nn.RNN(10, 20)(_z(T, 5, 3, 10), _z(T, 3, 20)),
    lambda T: T.nn.RNN(10, 20)(_z(T, 3, 10), _z(T, 1, 3, 20)),
    lambda T: T.nn.RNN(10, 20)(_z(T, 5, 3, 10, dt=np.float64)),
    lambda T: T.nn.RNN(10, 20)(_z(T, 2, 5, 3, 10)),
    lambda T: T.nn.GRU(10, 20)(_z(T, 3, 5, 3, 10)),
    lambda T: T.nn.LSTM(10, 20)(_z(T, 10)),
    lambda T: T.nn.LSTM(10, 20)(_z(T, 5, 3, 10), (_z(T, 1, 3, 20), _z(T, 1, 2, 20))),
    lambda T: T.nn.LSTM(10, 20, proj_size=5)(_z(T, 5, 3, 10),
                                             (_z(T, 1, 3, 20), _z(T, 1, 3, 20))),
    lambda T: T.nn.LSTM(10, 20)(_z(T, 5, 3, 10), (_z(T, 3, 20), _z(T, 1, 3, 20))),
    lambda T: T.nn.LSTM(10, 20)(_z(T, 3, 10), (_z(T, 1, 3, 20), _z(T, 1, 3, 20))),
    lambda T: T.nn.RNN(10, 20, nonlinearity="x"),
    lambda T: T.nn.GRU(10, 20, proj_size=3),
    lambda T: T.nn.LSTM(10, 20, proj_size=20),
    lambda T: T.nn.LSTM(10, 20, proj_size=-1),
    lambda T: T.nn.LSTM(10, 20, dropout=2),
    lambda T: T.nn.LSTM(10, 20, bias=1),
    lambda T: T.nn.LSTM(0, 20),
    lambda T: T.nn.LSTM(10, 0),
    lambda T: T.nn.LSTM(10, 20, num_layers=0),
    lambda T: T.nn.RNNCell(10, 20)(_z(T, 3, 5)),
    lambda T: T.nn.RNNCell(10, 20)(_z(T, 3, 10), _z(T, 2, 20)),
    lambda T: T.nn.RNNCell(10, 20)(_z(T, 3, 10), _z(T, 3, 19)),
    lambda T: T.nn.RNNCell(10, 20)(_z(T, 3, 3, 10)),
    lambda T: T.nn.RNNCell(10, 20)(_z(T, 10), _z(T, 3, 20)),
    lambda T: T.nn.GRUCell(10, 20)(_z(T, 3, 10), _z(T, 3, 3, 20)),
    lambda T: T.nn.LSTMCell(10, 20)(_z(T, 3, 10), (_z(T, 3, 20), _z(T, 2, 20))),
    lambda T: T.nn.LSTMCell(10, 20)(_z(T, 3, 10), (_z(T, 3, 20), _z(T, 3, 3, 20))),
    lambda T: T.nn.RNNCell(10, 20)(_z(T, 3, 10, dt=np.float64)),
    lambda T: T.nn.utils.rnn.pack_padded_sequence(_z(T, 4, 3, 2), [2, 4, 3]),
    lambda T: T.nn.utils.rnn.pack_padded_sequence(_z(T, 4, 3, 2), [4, 0, 0]),
    lambda T: T.nn.utils.rnn.pack_padded_sequence(_z(T, 4, 3, 2), [4, 3]),
    lambda T: T.nn.utils.rnn.pack_padded_sequence(_z(T, 4, 3, 2), T.tensor([[4, 3, 3]])),
    lambda T: T.nn.utils.rnn.pad_packed_sequence(
        T.nn.utils.rnn.pack_sequence([_z(T, 3), _z(T, 2)]), total_length=2),
    lambda T: T.nn.utils.rnn.pad_sequence([_z(T, 2, 3), _z(T, 3, 4)]),
    lambda T: T.nn.utils.rnn.pad_sequence([]),
    lambda T: T.nn.utils.rnn.pad_sequence([_z(T, 2)], padding_side="up"),
    lambda T: T.nn.utils.rnn.pad_sequence(3),
    lambda T: T.lstm_cell(_z(T, 3, 10), (_z(T, 3, 20),), _z(T, 80, 10),
                          _z(T, 80, 20)),
]


@pytest.mark.parametrize("make", ERRORS)
def test_errors(make):
    raises_like(lambda: make(torch), lambda: make(jtorch))
