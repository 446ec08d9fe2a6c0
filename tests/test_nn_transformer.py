"""scaled_dot_product_attention, MultiheadAttention and the Transformer modules."""

import math

import numpy as np
import pytest
import torch

import jtorch
from tests.helpers import NoGrad, parity, raises_like, rand, warns_like
from tests.nn_helpers import module_parity


def _z(T, *shape, dt=np.float32):  # noqa: N803
    """A tensor built from host data (no per-shape kernel to compile: error tests stay fast)."""
    return T.tensor(np.ones(shape, dt))


def _mask(*shape, seed=0):
    m = rand(*shape, seed=seed) > 0
    m[..., 0] = True  # every row attends somewhere
    return m


# ------------------------------------------------------------------------------ sdpa
def _sdpa(**kw):
    return lambda T, *a: T.nn.functional.scaled_dot_product_attention(*a, **kw)


SDPA = [
    (_sdpa(), (rand(2, 3, 4, 8), rand(2, 3, 5, 8), rand(2, 3, 5, 6))),
    (_sdpa(), (rand(2, 3, 4, 8), rand(2, 3, 5, 8), rand(2, 3, 5, 6), _mask(4, 5))),
    (_sdpa(), (rand(2, 3, 4, 8), rand(1, 5, 8), rand(1, 5, 6), rand(3, 4, 5))),  # float, bcast
    (_sdpa(is_causal=True, scale=0.3), (rand(3, 5, 8), rand(3, 4, 8), rand(3, 4, 6))),
    (_sdpa(enable_gqa=True), (rand(2, 6, 4, 8), rand(2, 3, 5, 8), rand(2, 2, 5, 6))),
    (_sdpa(), (rand(4, 8, dtype=np.float64), rand(5, 8, dtype=np.float64),
               rand(5, 6, dtype=np.float64), rand(4, 5, dtype=np.float64))),
    (_sdpa(), (rand(2, 4, 8, dtype=np.float64), rand(2, 5, 8, dtype=np.float64),
               rand(2, 5, 6, dtype=np.float64), NoGrad(rand(4, 5)))),  # float32 mask
]


@pytest.mark.parametrize("fn,args", SDPA)
def test_sdpa(fn, args):
    parity(fn, *args)


def test_sdpa_fully_masked_rows_and_empty():
    m = _mask(4, 5)
    m[1] = False  # PyTorch's math backend: zeros, zero gradient
    parity(_sdpa(), rand(2, 4, 8), rand(2, 5, 8), rand(2, 5, 6), m)
    mf = np.where(m, 0.0, -np.inf).astype(np.float32)
    parity(_sdpa(), rand(2, 4, 8), rand(2, 5, 8), rand(2, 5, 6), NoGrad(mf))
    parity(_sdpa(), rand(2, 4, 8), rand(2, 0, 8), rand(2, 0, 6))
    parity(_sdpa(), rand(0, 4, 8), rand(0, 5, 8), rand(0, 5, 6))


def test_sdpa_dropout():
    jtorch.manual_seed(0)
    S, p = 50, 0.4
    q = jtorch.zeros(2, 64, 8)  # uniform weights 1/S; v = eye: the output IS the weights
    k = jtorch.randn(2, S, 8)
    v = jtorch.eye(S).expand(2, S, S).clone().requires_grad_()
    out = jtorch.nn.functional.scaled_dot_product_attention(q, k, v, dropout_p=p)
    o = out.detach().numpy()
    kept = o != 0
    assert abs(1 - kept.mean() - p) < 0.03
    np.testing.assert_allclose(o[kept], 1 / S / (1 - p), rtol=1e-5)
    out.sum().backward()  # dv = sum over queries of the dropped weights
    np.testing.assert_allclose(v.grad.numpy(), np.broadcast_to(o.sum(1)[:, :, None],
                                                               (2, S, S)), rtol=1e-5)
    again = jtorch.nn.functional.scaled_dot_product_attention(q, k, v, dropout_p=p)
    assert not np.array_equal(again.detach().numpy(), o)


SDPA_ERRORS = [
    lambda T: T.nn.functional.scaled_dot_product_attention(
        _z(T, 2, 4, 8), _z(T, 2, 5, 8), _z(T, 2, 5, 6), _z(T, 4, 5, dt=bool),
        is_causal=True),
    lambda T: T.nn.functional.scaled_dot_product_attention(_z(T, 6, 4, 8), _z(T, 6, 5, 7),
                                                           _z(T, 6, 5, 6)),
    lambda T: T.nn.functional.scaled_dot_product_attention(_z(T, 6, 4, 8), _z(T, 6, 5, 8),
                                                           _z(T, 6, 4, 6)),
    lambda T: T.nn.functional.scaled_dot_product_attention(
        _z(T, 2, 3, 4, 8), _z(T, 2, 2, 5, 8), _z(T, 2, 2, 5, 6), enable_gqa=True),
    lambda T: T.nn.functional.scaled_dot_product_attention(
        _z(T, 2, 3, 4, 8), _z(T, 2, 2, 5, 8), _z(T, 2, 2, 5, 6)),
    lambda T: T.nn.functional.scaled_dot_product_attention(
        _z(T, 4, 8, dt=np.float64), _z(T, 5, 8), _z(T, 5, 6)),
    lambda T: T.nn.functional.scaled_dot_product_attention(
        _z(T, 4, 8), _z(T, 5, 8), _z(T, 5, 6), attn_mask=_z(T, 4, 5, dt=np.int64)),
    lambda T: T.nn.functional.scaled_dot_product_attention(
        _z(T, 4, 8), _z(T, 5, 8), _z(T, 5, 6), attn_mask=_z(T, 4, 5, dt=np.float64)),
    lambda T: T.nn.functional.scaled_dot_product_attention(
        _z(T, 4, 8), _z(T, 5, 8), _z(T, 5, 6), attn_mask=_z(T, 3, 5)),
    lambda T: T.nn.functional.scaled_dot_product_attention(
        _z(T, 4, 8), _z(T, 5, 8), _z(T, 5, 6), attn_mask=_z(T, 2, 4, 5)),
    lambda T: T.nn.functional.scaled_dot_product_attention(_z(T, 8), _z(T, 8), _z(T, 8)),
    lambda T: T.nn.functional.scaled_dot_product_attention(
        _z(T, 4, 8), _z(T, 5, 8), _z(T, 5, 6), dropout_p=1.5),
]


@pytest.mark.parametrize("make", SDPA_ERRORS)
def test_sdpa_errors(make):
    raises_like(lambda: make(torch), lambda: make(jtorch))


# ------------------------------------------------------------------------------ MHA
KPM = np.zeros((3, 6), bool)
KPM[1, 4:] = True

MHA = [  # (constructor kwargs, input shapes (q, k, v), call kwargs: masks as arrays)
    ({}, ((5, 3, 8), (6, 3, 8), (6, 3, 8)), {}),
    ({"batch_first": True}, ((3, 5, 8), (3, 6, 8), (3, 6, 8)),
     {"attn_mask": _mask(5, 6), "key_padding_mask": KPM, "average_attn_weights": False}),
    ({"kdim": 5, "vdim": 7, "add_bias_kv": True, "add_zero_attn": True},
     ((5, 3, 8), (6, 3, 5), (6, 3, 7)), {"attn_mask": rand(6, 5, 6), "need_weights": False}),
    ({"bias": False, "batch_first": True}, ((5, 8), (6, 8), (6, 8)),  # unbatched
     {"key_padding_mask": KPM[1]}),
    ({}, ((5, 3, 8), (5, 3, 8), (5, 3, 8)),
     {"attn_mask": np.triu(np.ones((5, 5), bool), 1), "is_causal": True,
      "need_weights": False}),
    ({"dropout": 0.5}, ((5, 3, 8), (6, 3, 8), (6, 3, 8)),
     {"key_padding_mask": rand(3, 6), "need_weights": False}),  # float kpm; eval below
]


@pytest.mark.parametrize("ctor,shapes,kw", MHA)
def test_multihead_attention(ctor, shapes, kw):
    names = [k for k, v in kw.items() if isinstance(v, np.ndarray)]
    static = {k: v for k, v in kw.items() if k not in names}

    def call(m, q, k, v, *masks):
        return m(q, k, v, **static, **dict(zip(names, masks)))

    masks = [NoGrad(kw[n]) if kw[n].dtype != bool else kw[n] for n in names]
    module_parity(lambda T: T.nn.MultiheadAttention(8, 2, **ctor), *[rand(*s) for s in shapes],
                  *masks, call=call, train=not ctor.get("dropout"))


def test_multihead_attention_float64_self():
    def call(m, x):
        return m(x, x, x)

    module_parity(lambda T: T.nn.MultiheadAttention(6, 3), rand(4, 2, 6, dtype=np.float64),
                  double=True, call=call)


def test_mha_functional_under_jit():
    def fn(T, q, k, v, w, b, wo, bo, bk, bv):
        return T.nn.functional.multi_head_attention_forward(
            q, k, v, 8, 2, w, b, bk, bv, True, 0.0, wo, bo, training=True,
            need_weights=True, average_attn_weights=False)

    w = [rand(24, 8, low=-0.5, high=0.5), rand(24), rand(8, 8, low=-0.5, high=0.5), rand(8)]
    parity(fn, rand(5, 3, 8), rand(6, 3, 8), rand(6, 3, 8), *w, rand(1, 1, 8), rand(1, 1, 8))


def test_mha_dropout_weights():
    jtorch.manual_seed(0)
    m = jtorch.nn.MultiheadAttention(8, 2, dropout=0.5)
    x = jtorch.randn(40, 3, 8)
    _, w = m(x, x, x, average_attn_weights=False)
    w = w.detach().numpy()
    assert abs((w == 0).mean() - 0.5) < 0.05
    m.eval()
    _, w = m(x, x, x)
    np.testing.assert_allclose(w.detach().numpy().sum(-1), 1, rtol=1e-5)


def test_mha_init_and_repr():
    m = jtorch.nn.MultiheadAttention(64, 4, kdim=32, vdim=16, add_bias_kv=True)
    t = torch.nn.MultiheadAttention(64, 4, kdim=32, vdim=16, add_bias_kv=True)
    assert [(n, tuple(p.shape)) for n, p in m.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in t.named_parameters()]
    assert repr(m) == repr(t)
    w = m.k_proj_weight.detach().numpy()
    bound = math.sqrt(6 / (64 + 32))
    assert w.min() >= -bound and w.max() <= bound and w.max() > 0.9 * bound
    assert not m.in_proj_bias.detach().numpy().any()
    assert not m.out_proj.bias.detach().numpy().any()
    assert type(m.out_proj).__name__ == "NonDynamicallyQuantizableLinear"
    assert isinstance(m.out_proj, jtorch.nn.Linear)
    m = jtorch.nn.MultiheadAttention(8, 2, bias=False)
    assert m.in_proj_bias is None and m.out_proj.bias is None
    assert repr(m) == repr(torch.nn.MultiheadAttention(8, 2, bias=False))


MHA_ERRORS = [
    lambda T: T.nn.MultiheadAttention(0, 2),
    lambda T: T.nn.MultiheadAttention(8, 3),
    lambda T: T.nn.MultiheadAttention(8, 2)(_z(T, 5, 3, 8), _z(T, 6, 8), _z(T, 6, 8)),
    lambda T: T.nn.MultiheadAttention(8, 2)(_z(T, 5, 8), _z(T, 6, 3, 8), _z(T, 6, 8)),
    lambda T: T.nn.MultiheadAttention(8, 2)(_z(T, 5, 3, 7), _z(T, 6, 3, 7),
                                            _z(T, 6, 3, 7)),
    lambda T: T.nn.MultiheadAttention(8, 2)(_z(T, 5, 3, 8), _z(T, 6, 3, 8),
                                            _z(T, 5, 3, 8)),
    lambda T: T.nn.MultiheadAttention(8, 2)(_z(T, 5, 3, 8), _z(T, 6, 3, 8),
                                            _z(T, 6, 3, 8), attn_mask=_z(T, 5, 5)),
    lambda T: T.nn.MultiheadAttention(8, 2)(_z(T, 5, 3, 8), _z(T, 6, 3, 8),
                                            _z(T, 6, 3, 8), attn_mask=_z(T, 3, 5, 6)),
    lambda T: T.nn.MultiheadAttention(8, 2)(_z(T, 5, 3, 8), _z(T, 6, 3, 8),
                                            _z(T, 6, 3, 8), attn_mask=_z(T, 1, 1, 5, 6)),
    lambda T: T.nn.MultiheadAttention(8, 2)(_z(T, 5, 3, 8), _z(T, 6, 3, 8),
                                            _z(T, 6, 3, 8), key_padding_mask=_z(T, 3, 5)),
    lambda T: T.nn.MultiheadAttention(8, 2)(_z(T, 5, 3, 8), _z(T, 6, 3, 8),
                                            _z(T, 6, 3, 8),
                                            key_padding_mask=_z(T, 3, 6, dt=np.int64)),
    lambda T: T.nn.MultiheadAttention(8, 2)(_z(T, 5, 3, 8), _z(T, 6, 3, 8),
                                            _z(T, 6, 3, 8), is_causal=True),
    lambda T: T.nn.MultiheadAttention(8, 2)(_z(T, 5, 3, 8), _z(T, 6, 3, 8),
                                            _z(T, 6, 3, 8), key_padding_mask=_z(T, 3)),
    lambda T: T.nn.MultiheadAttention(8, 2)(_z(T, 5, 8), _z(T, 6, 8), _z(T, 6, 8),
                                            attn_mask=_z(T, 3, 5, 6)),
    lambda T: T.nn.MultiheadAttention(8, 2)(_z(T, 2, 5, 3, 8), _z(T, 6, 3, 8),
                                            _z(T, 6, 3, 8)),
]


@pytest.mark.parametrize("make", MHA_ERRORS)
def test_mha_errors(make):
    raises_like(lambda: make(torch), lambda: make(jtorch))


# ------------------------------------------------------------------------------ Transformer
LAYERS = [  # (constructor, input shapes, call kwargs with masks as arrays, train)
    (lambda T: T.nn.TransformerEncoderLayer(8, 2, 16), [(5, 3, 8)], {}, False),
    (lambda T: T.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, norm_first=True,
                                            activation="gelu", batch_first=True),
     [(3, 5, 8)], {"src_key_padding_mask": KPM[:, :5]}, True),
    (lambda T: T.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0,
                                            activation=T.nn.functional.gelu, bias=False),
     [(5, 8)], {"src_mask": np.triu(np.ones((5, 5), bool), 1)}, True),
    (lambda T: T.nn.TransformerDecoderLayer(8, 2, 16), [(4, 3, 8), (5, 3, 8)],
     {"tgt_mask": np.triu(np.full((4, 4), -np.inf, np.float32), 1)}, False),
    (lambda T: T.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, norm_first=True,
                                            batch_first=True, activation=T.nn.GELU()),
     [(3, 4, 8), (3, 5, 8)], {"memory_key_padding_mask": KPM[:, :5]}, True),
    (lambda T: T.nn.TransformerEncoder(T.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0),
                                       2, T.nn.LayerNorm(8), enable_nested_tensor=False),
     [(5, 3, 8)], {"mask": np.triu(np.full((5, 5), -np.inf, np.float32), 1),
                   "is_causal": True}, True),
    (lambda T: T.nn.TransformerDecoder(T.nn.TransformerDecoderLayer(8, 2, 16), 2),
     [(4, 3, 8), (5, 3, 8)], {}, False),
]


@pytest.mark.parametrize("make,shapes,kw,train", LAYERS)
def test_transformer_layers(make, shapes, kw, train):
    names = [k for k, v in kw.items() if isinstance(v, np.ndarray)]
    static = {k: v for k, v in kw.items() if k not in names}

    def call(m, *args):
        n = len(shapes)
        return m(*args[:n], **static, **dict(zip(names, args[n:])))

    masks = [NoGrad(kw[n]) if kw[n].dtype != bool else kw[n] for n in names]
    module_parity(make, *[rand(*s) for s in shapes], *masks, call=call, train=train)


def test_transformer():
    def call(m, src, tgt):
        T = torch if isinstance(m, torch.nn.Module) else jtorch
        mask = T.nn.Transformer.generate_square_subsequent_mask(4)
        return m(src, tgt, tgt_mask=mask, tgt_is_causal=True)

    module_parity(lambda T: T.nn.Transformer(8, 2, 2, 1, 16, batch_first=True), rand(3, 5, 8),
                  rand(3, 4, 8), train=False, call=call)


def test_square_subsequent_mask():
    parity(lambda T: T.nn.Transformer.generate_square_subsequent_mask(5))
    parity(lambda T: T.nn.Transformer.generate_square_subsequent_mask(3, dtype=T.float64))


@pytest.mark.parametrize("make", [
    lambda T: T.nn.TransformerEncoderLayer(8, 2, 16),
    lambda T: T.nn.TransformerDecoderLayer(8, 2, 16, activation=T.nn.GELU(), bias=False),
    lambda T: T.nn.Transformer(8, 2, 1, 1, 16),
])
def test_transformer_repr(make):
    t, j = warns_like(lambda: make(torch), lambda: make(jtorch))  # enable_nested_tensor warning
    assert repr(j) == repr(t)


def test_transformer_structure():
    t, j = warns_like(lambda: torch.nn.Transformer(8, 2, 2, 1, 16),
                      lambda: jtorch.nn.Transformer(8, 2, 2, 1, 16))
    assert [(n, tuple(p.shape)) for n, p in j.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in t.named_parameters()]
    a, b = j.encoder.layers[0], j.encoder.layers[1]  # deep copies, not shared
    assert a is not b and a.linear1.weight is not b.linear1.weight
    w = j.encoder.layers[0].linear1.weight.detach().numpy()  # xavier_uniform on dim > 1
    bound = math.sqrt(6 / (8 + 16))
    assert w.min() >= -bound and w.max() <= bound and w.max() > 0.8 * bound
    with pytest.warns(UserWarning, match="enable_nested_tensor is True"):
        jtorch.nn.TransformerEncoder(jtorch.nn.TransformerEncoderLayer(8, 2, 16), 1)


TRANSFORMER_ERRORS = [
    lambda T: T.nn.TransformerEncoderLayer(8, 2, activation="tanh"),
    lambda T: T.nn.Transformer(8, 2, 1, 1, 16)(_z(T, 5, 3, 8), _z(T, 4, 2, 8)),
    lambda T: T.nn.Transformer(8, 2, 1, 1, 16)(_z(T, 5, 3, 8), _z(T, 4, 3, 6)),
    lambda T: T.nn.TransformerEncoderLayer(8, 2, 16)(
        _z(T, 5, 3, 8), src_key_padding_mask=_z(T, 3, 5, dt=np.int64)),
]


@pytest.mark.parametrize("make", TRANSFORMER_ERRORS)
def test_transformer_errors(make):
    raises_like(lambda: make(torch), lambda: make(jtorch))
