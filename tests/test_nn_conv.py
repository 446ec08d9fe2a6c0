"""Convolution, transposed convolution, fold/unfold, pixel/channel shuffle: functionals and
modules against PyTorch."""

import math

import numpy as np
import pytest
import torch

import jtorch
from tests.helpers import NonContig, parity, raises_like, rand
from tests.nn_helpers import module_parity

F64 = np.float64


def F(T):
    return T.nn.functional


# ---------------------------------------------------------------------------- conv functionals
CONV_CASES = [
    # (n, batched, dtype, kwargs, in_channels, weight in/groups, kernel)
    (1, True, np.float32, {}, 4, 4, 3),
    (1, False, F64, {"stride": 2, "padding": 2, "dilation": 2, "groups": 2}, 4, 2, 3),
    (1, True, np.float32, {"padding": "same", "dilation": 3}, 2, 2, 4),
    (1, True, F64, {"padding": "valid"}, 3, 3, 2),
    (2, True, np.float32, {"stride": (2, 1), "padding": (1, 0), "dilation": (1, 2)}, 3, 3, (3, 2)),
    (2, False, np.float32, {"padding": 1}, 3, 3, 3),
    (2, True, F64, {"groups": 3, "padding": "same"}, 6, 2, (2, 3)),
    (2, True, np.float32, {"groups": 4, "stride": 3}, 4, 1, 3),            # depthwise
    (2, True, F64, {"padding": "same", "dilation": 2}, 2, 2, 3),
    (3, True, np.float32, {"stride": (1, 2, 1), "padding": (0, 1, 1)}, 2, 2, (2, 3, 2)),
    (3, False, F64, {"groups": 2, "dilation": (2, 1, 1)}, 4, 2, 2),
]


@pytest.mark.parametrize("case", CONV_CASES)
def test_conv_functional(case):
    n, batched, dt, kw, cin, wcin, k = case
    groups = kw.get("groups", 1)
    ks = (k,) * n if isinstance(k, int) else k
    x = rand(*((2,) if batched else ()), cin, *[7, 6, 5][:n], dtype=dt)
    w = rand(2 * groups, wcin, *ks, dtype=dt)
    b = rand(2 * groups, dtype=dt)
    fn = lambda T, x, w, b: getattr(F(T), f"conv{n}d")(x, w, b, **kw)  # noqa: E731
    parity(fn, x, w, b)


def test_conv_forms():
    # torch.conv2d alias, no bias, non-contiguous input, empty batch, integer inputs
    parity(lambda T, x, w: T.conv2d(x, w), NonContig(rand(2, 3, 6, 5)), rand(4, 3, 2, 2))
    parity(lambda T, x, w: T.conv1d(x, w, None, 1, 1), rand(0, 3, 6), rand(4, 3, 2))
    parity(lambda T, x, w: T.conv2d(x, w), rand(1, 2, 5, 5, dtype=np.int64, low=-3, high=3),
           rand(3, 2, 2, 2, dtype=np.int64, low=-3, high=3))
    out = jtorch.conv2d(jtorch.randn(1, 2, 5, 5, requires_grad=True), jtorch.randn(3, 2, 2, 2))
    assert out.grad_fn.name() == "ConvolutionBackward0"


TRANSPOSE_CASES = [
    (1, True, np.float32, {}),
    (1, False, F64, {"stride": 2, "padding": 1, "output_padding": 1}),
    (2, True, np.float32, {"stride": (2, 3), "padding": (1, 0), "output_padding": (1, 2)}),
    (2, True, F64, {"stride": 2, "groups": 2, "dilation": 2, "output_padding": 1}),
    (2, False, np.float32, {"padding": 2}),
    (3, True, F64, {"stride": (2, 1, 1), "padding": (0, 1, 0), "groups": 2}),
]


@pytest.mark.parametrize("case", TRANSPOSE_CASES)
def test_conv_transpose_functional(case):
    n, batched, dt, kw = case
    groups = kw.get("groups", 1)
    x = rand(*((2,) if batched else ()), 4, *[5, 4, 3][:n], dtype=dt)
    w = rand(4, 3, *[3, 2, 2][:n], dtype=dt)
    b = rand(3 * groups, dtype=dt)
    fn = lambda T, x, w, b: getattr(F(T), f"conv_transpose{n}d")(x, w, b, **kw)  # noqa: E731
    if kw:
        parity(fn, x, w, b)
    else:   # torch.conv_transpose1d alias, without bias
        parity(lambda T, x, w: getattr(T, f"conv_transpose{n}d")(x, w, None, **kw), x, w)


def _errs(T):
    f = F(T)
    x, w = T.zeros(2, 3, 8, 8), T.zeros(4, 3, 3, 3)
    wt = T.zeros(3, 4, 3, 3)
    return [
        lambda: f.conv2d(x[0, 0], w),
        lambda: f.conv2d(x[:, :1], w),
        lambda: f.conv2d(x[0, :1], w),
        lambda: f.conv2d(x, w, groups=2),
        lambda: f.conv2d(x, w[:, :1], groups=3),
        lambda: f.conv2d(x, T.zeros(2, 1, 3, 3), groups=4),
        lambda: f.conv2d(x, w, T.zeros(3)),
        lambda: f.conv2d(x, w[0]),
        lambda: f.conv2d(x[:, :, :2], w),
        lambda: f.conv2d(x, w, stride=2, padding="same"),
        lambda: f.conv2d(x, w, padding="foo"),
        lambda: f.conv2d(x, w, stride=0),
        lambda: f.conv2d(x, w, padding=-1),
        lambda: f.conv2d(x, w, dilation=0),
        lambda: f.conv2d(x, w, groups=0),
        lambda: f.conv2d(x.double(), w),
        lambda: f.conv2d(x, w.double()),
        lambda: f.conv2d(x, w, T.zeros(4).double()),
        lambda: f.conv2d(x, w, stride=(1, 1, 1)),
        lambda: f.conv2d(x, w, padding=(1, 2, 3)),
        lambda: f.conv1d(x, w),
        lambda: f.conv3d(x, w),
        lambda: f.conv_transpose2d(x, w),
        lambda: f.conv_transpose2d(x[0, 0], w),
        lambda: f.conv_transpose2d(x, wt, output_padding=1),
        lambda: f.conv_transpose1d(T.zeros(2, 3, 5), wt[:, :, 0], output_padding=1),
        lambda: f.conv_transpose3d(T.zeros(2, 3, 4, 4, 4), wt[..., None], output_padding=1),
        lambda: f.conv_transpose2d(x, wt, groups=2),
        lambda: f.conv_transpose2d(x, wt, T.zeros(3)),
    ]


@pytest.mark.parametrize("i", range(len(_errs(torch))))
def test_conv_errors(i):
    raises_like(lambda: _errs(torch)[i](), lambda: _errs(jtorch)[i]())


# ---------------------------------------------------------------------------- fold / unfold
def test_unfold_fold():
    parity(lambda T, x: F(T).unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)),
           rand(2, 3, 7, 8))
    parity(lambda T, x: F(T).unfold(x, 2), rand(3, 5, 6, dtype=F64))
    parity(lambda T, x: F(T).fold(x, (7, 8), (2, 3), dilation=(1, 2), padding=1,
                                  stride=(2, 1)), rand(2, 18, 24))
    parity(lambda T, x: F(T).fold(x, 5, 2, stride=2), rand(12, 4, dtype=F64))
    parity(lambda T, x: F(T).fold(x, (4, 5), 2), rand(0, 8, 12))


def _fold_errs(T):
    f = F(T)
    x = T.zeros(2, 3, 8, 8)
    return [
        lambda: f.unfold(x[None], 2),
        lambda: f.unfold(x, 9),
        lambda: f.unfold(x, 2, stride=0),
        lambda: f.unfold(x, 0),
        lambda: f.unfold(T.zeros(2, 0, 4, 4), 2),
        lambda: f.unfold(x.long(), 2),
        lambda: f.fold(x[0], 2, 2),
        lambda: f.fold(T.zeros(2, 12, 5), 3, 2),
        lambda: f.fold(T.zeros(2, 13, 4), 3, 2),
        lambda: f.fold(T.zeros(2, 13, 4, 3), 3, 2),
        lambda: f.fold(T.zeros(2, 12, 4), 3, 2, stride=0),
        lambda: f.fold(T.zeros(2, 12, 4), (3, 3, 3), 2),
    ]


@pytest.mark.parametrize("i", range(len(_fold_errs(torch))))
def test_fold_errors(i):
    raises_like(lambda: _fold_errs(torch)[i](), lambda: _fold_errs(jtorch)[i]())


# ---------------------------------------------------------------------------- shuffles
def test_shuffles():
    parity(lambda T, x: T.pixel_shuffle(x, 2), rand(2, 8, 3, 4))
    parity(lambda T, x: F(T).pixel_shuffle(x, 3), rand(9, 2, 3, dtype=F64))
    parity(lambda T, x: F(T).pixel_shuffle(x, 2), rand(2, 3, 4, 2, 2))
    parity(lambda T, x: T.pixel_unshuffle(x, 2), rand(2, 3, 4, 6))
    parity(lambda T, x: F(T).pixel_unshuffle(x, 3), NonContig(rand(2, 6, 3)))
    parity(lambda T, x: F(T).channel_shuffle(x, 2), rand(2, 4, 3))
    parity(lambda T, x: T.channel_shuffle(x, 3), rand(1, 6, 2, 2, dtype=F64))
    parity(lambda T, x: T.native_channel_shuffle(x, 2), rand(2, 4, 3), grad=False)
    parity(lambda T, x: T.pixel_shuffle(x, 2), rand(1, 4, 2, 2, dtype=np.int64))


def _shuffle_errs(T):
    f = F(T)
    x = T.zeros(2, 3, 8, 8)
    return [
        lambda: f.pixel_shuffle(x, 2),
        lambda: f.pixel_shuffle(x[0, 0], 2),
        lambda: f.pixel_shuffle(x, 0),
        lambda: f.pixel_unshuffle(x, 3),
        lambda: f.pixel_unshuffle(T.zeros(2, 4, 4, 5), 2),
        lambda: f.pixel_unshuffle(x, 0),
        lambda: f.pixel_unshuffle(x[0, 0], 2),
        lambda: f.channel_shuffle(x, 2),
        lambda: f.channel_shuffle(x[0, 0], 2),
        lambda: f.channel_shuffle(x, 0),
    ]


@pytest.mark.parametrize("i", range(len(_shuffle_errs(torch))))
def test_shuffle_errors(i):
    raises_like(lambda: _shuffle_errs(torch)[i](), lambda: _shuffle_errs(jtorch)[i]())


# ---------------------------------------------------------------------------- modules
MODULES = [
    (lambda T: T.nn.Conv1d(4, 6, 3, stride=2, padding=1, groups=2), (2, 4, 9)),
    (lambda T: T.nn.Conv1d(3, 2, 3, padding="same", padding_mode="reflect"), (3, 7)),
    (lambda T: T.nn.Conv2d(3, 4, 3), (2, 3, 6, 5)),
    (lambda T: T.nn.Conv2d(3, 4, (2, 3), padding=(1, 2), padding_mode="circular",
                           bias=False), (2, 3, 6, 5)),
    (lambda T: T.nn.Conv2d(2, 4, 3, padding=1, padding_mode="replicate", dilation=2),
     (2, 5, 5)),
    (lambda T: T.nn.Conv2d(2, 2, 4, padding="same", dilation=(1, 2)), (1, 2, 6, 7)),
    (lambda T: T.nn.Conv3d(2, 3, 2, stride=(1, 2, 1)), (2, 2, 4, 5, 3)),
    (lambda T: T.nn.ConvTranspose1d(4, 2, 3, stride=2, output_padding=1), (2, 4, 5)),
    (lambda T: T.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, groups=2, dilation=2),
     (2, 4, 4, 3)),
    (lambda T: T.nn.ConvTranspose3d(2, 3, 2, bias=False), (2, 3, 3, 2)),
    (lambda T: T.nn.Fold((4, 5), 2), (2, 8, 12)),
    (lambda T: T.nn.Unfold(2, dilation=2, padding=1, stride=2), (2, 3, 5, 6)),
    (lambda T: T.nn.PixelShuffle(2), (2, 8, 3, 3)),
    (lambda T: T.nn.PixelUnshuffle(2), (2, 2, 4, 6)),
    (lambda T: T.nn.ChannelShuffle(2), (2, 4, 3, 3)),
]


@pytest.mark.parametrize("i", range(len(MODULES)))
def test_module_parity(i):
    make, shape = MODULES[i]
    if i % 2:
        module_parity(make, rand(*shape, dtype=F64), double=True)
    else:
        module_parity(make, rand(*shape))
    assert repr(make(jtorch)) == repr(make(torch))


def test_conv_transpose_output_size():
    make = lambda T: T.nn.ConvTranspose2d(3, 2, 3, stride=2)  # noqa: E731
    for size in [(11, 11), (12, 11), (2, 2, 12, 12)]:
        module_parity(make, rand(2, 3, 5, 5), call=lambda m, x, s=size: m(x, output_size=s))
    module_parity(lambda T: T.nn.ConvTranspose1d(3, 2, 3, stride=3), rand(3, 4),
                  call=lambda m, x: m(x, output_size=[12]))
    for size in [(14, 14), (1, 2, 3)]:
        raises_like(lambda s=size: make(torch)(torch.zeros(2, 3, 5, 5), output_size=s),
                    lambda s=size: make(jtorch)(jtorch.zeros(2, 3, 5, 5), output_size=s))


REPRS = [   # options module_parity below does not cover (it checks repr too)
    lambda T: T.nn.Conv2d(4, 4, 3, stride=2, padding=1, dilation=2, groups=2, bias=False,
                          padding_mode="reflect"),
    lambda T: T.nn.Conv1d(4, 4, 3, padding="valid"),
    lambda T: T.nn.ConvTranspose2d(4, 2, 3, output_padding=(0, 1), stride=2, groups=2),
    lambda T: T.nn.Fold(output_size=(4, 5), kernel_size=(2, 2), stride=(1, 2)),
    lambda T: T.nn.Unfold(kernel_size=3, padding=1),
    lambda T: T.nn.PixelShuffle(3),
]


def test_reprs_and_params():
    for make in REPRS:
        tm, jm = make(torch), make(jtorch)
        assert repr(jm) == repr(tm)
        assert [(k, tuple(v.shape)) for k, v in jm.named_parameters()] == \
            [(k, tuple(v.shape)) for k, v in tm.named_parameters()]
    m = jtorch.nn.Conv2d(2, 3, 3, dtype=jtorch.float64)
    assert m.weight.dtype == jtorch.float64 and m.bias.dtype == jtorch.float64
    for padding in [(1, 2), "same", "valid", 0]:  # a tuple for numbers, a list for strings
        got = jtorch.nn.Conv2d(2, 3, (3, 4), padding=padding)._reversed_padding_repeated_twice
        want = torch.nn.Conv2d(2, 3, (3, 4), padding=padding)._reversed_padding_repeated_twice
        assert (type(got), got) == (type(want), want)


@pytest.mark.parametrize("make,fan_in", [
    (lambda T: T.nn.Conv2d(16, 32, 3), 16 * 9),
    (lambda T: T.nn.Conv1d(8, 64, 5, groups=4), 2 * 5),
    (lambda T: T.nn.ConvTranspose2d(16, 24, 3, groups=2), 12 * 9),
])
def test_default_init(make, fan_in):
    jtorch.manual_seed(0)
    m = make(jtorch)
    bound = 1 / math.sqrt(fan_in)   # kaiming_uniform(a=sqrt(5)) and the bias share this bound
    for p in (m.weight, m.bias):
        v = p.detach().numpy().ravel()
        assert np.all(np.abs(v) <= bound)
        assert np.abs(v).max() > 0.9 * bound
        assert abs(v.std() - bound / math.sqrt(3)) < 0.15 * bound
    w = m.weight.detach().numpy().ravel()
    assert abs(w.mean()) < 0.05 * bound


def _module_errs(T):
    return [
        lambda: T.nn.Conv2d(3, 4, 3, groups=2),
        lambda: T.nn.Conv2d(4, 3, 3, groups=2),
        lambda: T.nn.Conv2d(4, 4, 3, groups=0),
        lambda: T.nn.Conv2d(4, 4, 3, padding="full"),
        lambda: T.nn.Conv2d(4, 4, 3, stride=2, padding="same"),
        lambda: T.nn.ConvTranspose2d(4, 4, 3, padding_mode="reflect"),
        lambda: T.nn.Conv2d(3, 4, 3)(T.zeros(2, 2, 5, 5)),
    ]


@pytest.mark.parametrize("i", range(len(_module_errs(torch))))
def test_module_errors(i):
    raises_like(lambda: _module_errs(torch)[i](), lambda: _module_errs(jtorch)[i]())


def test_padding_mode_error():
    # PyTorch formats a set literal: its element order depends on how its .pyc was compiled
    with pytest.raises(ValueError, match="padding_mode must be one of .*, but got "
                                         "padding_mode='mirror'"):
        jtorch.nn.Conv2d(4, 4, 3, padding_mode="mirror")


@pytest.mark.parametrize("dims", [2, 3])
def test_convert_conv_weight_memory_format_matches_torch(dims):
    """nn.utils.convert_conv{2,3}d_weight_memory_format converts the convolutions (nested ones
    too) in place and returns the model, which computes the same values (jtorch accepts memory
    formats and keeps its layout: the strides are not compared)."""
    fmt = "channels_last" if dims == 2 else "channels_last_3d"
    shape = (2, 3) + (6,) * dims
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    results = []
    for T in (torch, jtorch):
        conv = getattr(T.nn, f"Conv{dims}d")
        convt = getattr(T.nn, f"ConvTranspose{dims}d")
        model = T.nn.Sequential(conv(3, 4, 3), T.nn.Sequential(convt(4, 2, 2)), T.nn.Linear(5, 2))
        if T is jtorch:
            model.load_state_dict({k: jtorch.tensor(v.detach().numpy())
                                   for k, v in results[0][0].state_dict().items()})
        before = [p.detach().numpy().copy() for p in model.parameters()]
        convert = getattr(T.nn.utils, f"convert_conv{dims}d_weight_memory_format")
        assert convert(model, getattr(T, fmt)) is model
        assert all(isinstance(p, T.nn.Parameter) for p in model.parameters())
        for p, b in zip(model.parameters(), before):
            np.testing.assert_array_equal(p.detach().numpy(), b)
        results.append((model, model(T.tensor(x)).detach().numpy()))
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("fn, shapes", [
    ("conv1d", ((3, 8, 20), (16, 8, 3))),
    ("conv2d", ((4, 8, 14, 14), (16, 8, 3, 3))),
    ("conv3d", ((2, 4, 6, 6, 6), (8, 4, 3, 3, 3))),
])
def test_bfloat16_convolution_adds_its_bias_before_rounding(fn, shapes):
    """PyTorch's CPU convolution in bfloat16 adds the bias to its float32 accumulator and rounds
    once; jtorch rounded the convolution to bfloat16, then added the bias (a second rounding:
    a quarter of the outputs one ulp off, which bf16-mixed training in PyTorch Lightning showed
    as accuracies off by a few samples)."""
    rng = np.random.default_rng(0)
    (xs, ws), bs = shapes, (shapes[1][0],)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in (xs, ws, bs)]
    outs = []
    for T in (torch, jtorch):
        x, w, b = (T.tensor(a).to(T.bfloat16) for a in arrays)
        out = getattr(T.nn.functional, fn)(x, w, b, padding=1)
        assert out.dtype == T.bfloat16
        outs.append(out.float().numpy())
    np.testing.assert_array_equal(outs[1], outs[0])
