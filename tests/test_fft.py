"""Parity of torch.fft with PyTorch: every transform's values, dtypes and gradients (real inputs,
complex inputs built from real leaves, real-valued losses), the ``n``/``s``/``dim``/``norm``
arguments, dtype promotion, autocast, ``out=``, fftfreq/rfftfreq, fftshift/ifftshift and
PyTorch's errors."""

import numpy as np
import pytest
import torch
from helpers import assert_close, parity, raises_like, rand

import jtorch

F32, F64 = np.float32, np.float64
NORMS = (None, "ortho", "forward")
# every transform, called with its default sizes and dims
TRANSFORMS = ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2",
              "irfft2", "hfft2", "ihfft2", "fftn", "ifftn", "rfftn", "irfftn", "hfftn",
              "ihfftn")
REAL_ONLY = ("rfft", "ihfft", "rfft2", "ihfft2", "rfftn", "ihfftn")


def _all_transforms(T, x, names=TRANSFORMS, norms=NORMS):
    return [getattr(T.fft, name)(x, norm=norm) for name in names for norm in norms]


def test_every_transform_of_a_real_input():
    parity(lambda T, x: _all_transforms(T, x, norms=("backward",)), rand(3, 4, 6, seed=0),
           atol=2e-4, rtol=2e-4)


def test_norm_modes():
    # each kind of transform (c2c, r2c, c2r, the Hermitian pair, 1-D and n-D) in both
    # non-default modes
    names = ("ifft", "rfft", "irfft", "hfft", "ihfft", "fftn", "irfft2", "ihfftn")
    parity(lambda T, x: _all_transforms(T, x, names, ("ortho", "forward")),
           rand(4, 6, seed=13), atol=2e-4, rtol=2e-4)


def test_every_transform_in_float64():
    parity(lambda T, x: _all_transforms(T, x, norms=("backward",)),
           rand(3, 4, 6, dtype=F64, seed=0), atol=1e-9, rtol=1e-9, jit=False)


def test_every_transform_and_norm_of_a_complex_input():
    # complex inputs built from real leaves: the gradients reach real tensors
    def fn(T, re, im):
        names = [n for n in TRANSFORMS if n not in REAL_ONLY]
        return _all_transforms(T, T.complex(re, im), names)

    parity(fn, rand(4, 5, seed=1), rand(4, 5, seed=2), atol=2e-4, rtol=2e-4)


def test_sizes_and_dims():
    def fn(T, x, y):
        return [T.fft.fft(x, n=9), T.fft.fft(x, n=3, dim=0), T.fft.ifft(x, 5, 1, "ortho"),
                T.fft.rfft(x, n=5), T.fft.rfft(x, n=11, dim=-2),
                T.fft.irfft(x, n=7), T.fft.irfft(x, n=4, dim=0), T.fft.hfft(x, n=5),
                T.fft.ihfft(x, n=7, norm="forward"),
                T.fft.fftn(x, s=(3, 8), dim=(1, 0)), T.fft.fftn(x, s=(5,)),
                T.fft.fft2(x, s=(2, -1)), T.fft.rfftn(x, s=(5, -1)),
                T.fft.irfftn(x, s=(3, 9)), T.fft.irfftn(x, s=(3, -1)), T.fft.irfft2(x, dim=(1, 0)),
                T.fft.hfftn(x, s=(4, 7), norm="ortho"), T.fft.ihfftn(x, dim=(0,)),
                T.fft.fftn(y), T.fft.ifftn(y, dim=(0, 1, 2, 3), norm="ortho"),
                T.fft.rfftn(y, dim=(3, 1, 0, 2)), T.fft.irfftn(y),
                T.fft.fftn(x, dim=0), T.fft.fftn(x, dim=())]

    parity(fn, rand(4, 6, seed=3), rand(2, 3, 2, 4, seed=4), atol=2e-4, rtol=2e-4)


@pytest.mark.parametrize("loss", ["abs", "real", "imag", "angle"])
def test_real_valued_losses(loss):
    def fn(T, x):
        y = T.fft.rfft(x) * T.fft.fft(x)[..., :4] + T.fft.ifft2(x)[..., :4]
        if loss == "abs":
            return y.abs().sum()
        if loss == "angle":
            return y.angle().sum()
        return getattr(y, loss).sum()

    parity(fn, rand(3, 6, seed=5), atol=1e-4, rtol=1e-4)


def test_gradient_of_a_complex_leaf():
    z = rand(5, dtype=np.complex64, seed=6)
    grads = []
    for T in (torch, jtorch):
        t = T.tensor(z, requires_grad=True)
        T.fft.fft(t).abs().sum().backward()
        grads.append(t.grad)
    assert_close(grads[1], grads[0], atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.bool_, F64])
def test_dtypes(dtype):
    x = rand(2, 4, dtype=dtype, low=-3, high=4, seed=7)
    outs = []
    for T in (torch, jtorch):
        t = T.tensor(x)
        outs.append([T.fft.fft(t), T.fft.rfft(t), T.fft.irfft(t), T.fft.hfft(t),
                     T.fft.ihfft(t), T.fft.fftn(t), T.fft.irfftn(t), T.fft.fftshift(t)])
    assert_close(outs[1], outs[0], atol=1e-5, rtol=1e-5)


def test_complex128_and_grad_fn_names():
    z = rand(3, 4, dtype=np.complex128, seed=8)
    for name in ("fft", "ifft", "irfft", "hfft", "fft2", "irfftn"):
        t, j = getattr(torch.fft, name)(torch.tensor(z)), getattr(jtorch.fft, name)(
            jtorch.tensor(z))
        assert_close(j, t)
    for name, node in (("fft", "FftR2CBackward0"), ("rfft", "FftR2CBackward0"),
                       ("irfft", "FftC2RBackward0"), ("fftn", "FftC2CBackward0"),
                       ("fftshift", "RollBackward0")):
        for T in (torch, jtorch):
            out = getattr(T.fft, name)(T.ones(2, 4, requires_grad=True))
            assert out.grad_fn.name() == node, (T.__name__, name)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_types(dtype):
    for name in ("fft", "rfft", "irfft", "fft2", "rfftn", "ihfft"):
        t_fn, j_fn = getattr(torch.fft, name), getattr(jtorch.fft, name)
        raises_like(lambda f=t_fn: f(torch.ones(4, dtype=getattr(torch, dtype))),
                    lambda f=j_fn: f(jtorch.ones(4, dtype=getattr(jtorch, dtype))))


def test_autocast_runs_fft_in_float32():
    x = rand(4, 8, seed=9)
    outs = []
    for T in (torch, jtorch):
        with T.autocast("cpu", dtype=T.bfloat16):
            t = T.tensor(x).bfloat16()
            outs.append([T.fft.fft(t), T.fft.rfft2(t), T.fft.irfft(t), T.fft.ihfft(t)])
    assert_close(outs[1], outs[0], atol=1e-5, rtol=1e-5)


def test_out():
    x = rand(8, seed=10)
    for T in (torch, jtorch):
        o = T.empty(8, dtype=T.complex64)
        assert T.fft.fft(T.tensor(x), out=o) is o
        o2 = T.empty(0)
        T.fft.irfft(T.fft.rfft(T.tensor(x)), out=o2)
        if T is torch:
            expected = (o, o2)
    assert_close(o, expected[0], atol=1e-5, rtol=1e-5)
    assert_close(o2, expected[1], atol=1e-5, rtol=1e-5)


def test_shifts():
    def fn(T, x):
        return [T.fft.fftshift(x), T.fft.ifftshift(x), T.fft.fftshift(x, dim=1),
                T.fft.ifftshift(x, dim=(-1, 0)), T.fft.fftshift(x, dim=(0, 0)),
                T.fft.ifftshift(T.fft.fftshift(x))]

    parity(fn, rand(5, 4, 3, seed=11))
    raises_like(lambda: torch.fft.fftshift(torch.tensor(1.0)),
                lambda: jtorch.fft.fftshift(jtorch.tensor(1.0)))


@pytest.mark.parametrize("kwargs", [{}, {"d": 0.3}, {"d": 2}, {"dtype": "float64"},
                                    {"dtype": "float16"}, {"dtype": "bfloat16"},
                                    {"d": 0.0}, {"d": -0.5, "dtype": "float64"}])
@pytest.mark.parametrize("n", [0, 1, 4, 7])
def test_frequencies(n, kwargs):
    for name in ("fftfreq", "rfftfreq"):
        res = []
        for T in (torch, jtorch):
            kw = dict(kwargs)
            if "dtype" in kw:
                kw["dtype"] = getattr(T, kw["dtype"])
            res.append(getattr(T.fft, name)(n, **kw))
        assert_close(res[1], res[0], atol=0, rtol=0)


def test_frequency_keywords_and_errors():
    f = jtorch.fft.fftfreq(4, requires_grad=True)
    assert f.requires_grad and f.is_leaf
    o = jtorch.empty(0, dtype=jtorch.float64)
    assert jtorch.fft.rfftfreq(6, out=o) is o and o.shape == (4,) and o.dtype == jtorch.float64
    calls = (lambda T: T.fft.fftfreq(5, dtype=T.int64),
             lambda T: T.fft.rfftfreq(5, dtype=T.int32),
             lambda T: T.fft.fftfreq(5, dtype=T.complex64),
             lambda T: T.fft.fftfreq(-1))
    for call in calls:
        raises_like(lambda c=call: c(torch), lambda c=call: c(jtorch))


ERRORS = [
    lambda T, x: T.fft.fft(x, n=0),
    lambda T, x: T.fft.fft(x, n=-1),
    lambda T, x: T.fft.fft(x, n=2.5),
    lambda T, x: T.fft.fft(x, dim=2),
    lambda T, x: T.fft.fft(x, dim=(0,)),
    lambda T, x: T.fft.fft(x, norm="bad"),
    lambda T, x: T.fft.fft(x, norm=1),
    lambda T, x: T.fft.fft(x[0, 0]),
    lambda T, x: T.fft.rfft(x.to(T.complex64)),
    lambda T, x: T.fft.ihfft(x.to(T.complex64)),
    lambda T, x: T.fft.rfft2(x.to(T.complex64)),
    lambda T, x: T.fft.ihfft2(x.to(T.complex64)),
    lambda T, x: T.fft.irfft(x[:, :1]),
    lambda T, x: T.fft.irfftn(x[:, :1]),
    lambda T, x: T.fft.fft2(x[0]),
    lambda T, x: T.fft.fftn(x, s=(4, 4, 4)),
    lambda T, x: T.fft.fftn(x, s=(4,), dim=(0, 1)),
    lambda T, x: T.fft.fftn(x, dim=(0, 0)),
    lambda T, x: T.fft.fftn(x, dim=(0, -2)),
    lambda T, x: T.fft.fftn(x, s=(0, 3)),
    lambda T, x: T.fft.fftn(x, dim=5),
    lambda T, x: T.fft.rfftn(x, dim=()),
    lambda T, x: T.fft.irfftn(x, dim=()),
    lambda T, x: T.fft.hfftn(x, dim=()),
    lambda T, x: T.fft.ihfftn(x, dim=()),
    lambda T, x: T.fft.irfftn(x, s=(3, 0)),
    lambda T, x: T.fft.fft(T.zeros(0)),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors(i):
    x = rand(3, 4, seed=12)
    raises_like(lambda: ERRORS[i](torch, torch.tensor(x)),
                lambda: ERRORS[i](jtorch, jtorch.tensor(x)))


# ------------------------------------------------------------------ stft / istft
def _hann(n, dt=F32):
    return np.hanning(n + 2)[1:-1].astype(dt)


def test_stft():
    def fn(T, x, w, w10, x1):
        return [T.stft(x, 16, window=w, return_complex=True),
                x.stft(16, hop_length=3, window=w, return_complex=True, normalized=True),
                T.stft(x, 16, window=w10, win_length=10, return_complex=True, center=False),
                T.stft(x, 16, window=w10, win_length=10, return_complex=True, center=False,
                       align_to_window=True),
                T.stft(x, 16, window=w, return_complex=True, onesided=False,
                       pad_mode="constant"),
                T.stft(x, 16, window=w, return_complex=True, pad_mode="replicate"),
                T.stft(x1, 8, window=w[:8], return_complex=True, pad_mode="circular"),
                T.stft(T.complex(x, x * 0.5), 16, window=w, return_complex=True)]

    parity(fn, rand(2, 40, seed=20), _hann(16), _hann(10), rand(30, seed=21),
           atol=2e-4, rtol=2e-4)


def test_stft_float64_and_real_output():
    with pytest.warns(UserWarning, match="return_complex=False is deprecated"):
        parity(lambda T, x, w: [T.stft(x, 12, 5, window=w, return_complex=True),
                                T.stft(x, 12, 5, window=w.float(), return_complex=False)],
               rand(33, dtype=F64, seed=22), _hann(12, F64), atol=1e-9, rtol=1e-9)


def test_istft():
    def fn(T, x, w):
        spec = T.stft(x, 16, window=w, return_complex=True)
        full = T.stft(x, 16, window=w, return_complex=True, onesided=False, normalized=True)
        return [T.istft(spec, 16, window=w), T.istft(spec, 16, window=w, length=45),
                spec.istft(16, window=w, length=30),
                T.istft(full, 16, window=w, return_complex=True, normalized=True),
                T.istft(full, 16, window=w, normalized=True),
                T.istft(spec[0], 16, hop_length=2, win_length=12, window=w[:12])]

    parity(fn, rand(2, 40, seed=23), _hann(16), atol=2e-4, rtol=2e-4)


def test_stft_istft_round_trip_and_warnings():
    x = jtorch.tensor(rand(3, 50, seed=24))
    with pytest.warns(UserWarning, match="A window was not provided"):
        spec = jtorch.stft(x, 10, return_complex=True)
    with pytest.warns(UserWarning, match="A window was not provided"):
        back = jtorch.istft(spec, 10, length=50)
    assert_close(back, torch.tensor(x.numpy()), atol=1e-5)
    w = jtorch.hann_window(16)
    spec = jtorch.stft(x, 16, window=w, return_complex=True)
    with pytest.warns(UserWarning, match="Result is being padded with zeros"):
        y = jtorch.istft(spec, 16, window=w, length=80)
    assert tuple(y.shape) == (3, 80)


_X, _W = "T.tensor(np.linspace(-1, 1, 40, dtype=np.float32)).reshape(2, 20)", "T.hann_window(8)"
STFT_ERRORS = [
    f"T.stft({_X}, 8, window={_W})",
    f"T.stft({_X}, 32, window=T.hann_window(32), return_complex=True, center=False)",
    f"T.stft({_X}, 8, hop_length=0, window={_W}, return_complex=True)",
    f"T.stft({_X}, 8, win_length=10, window={_W}, return_complex=True)",
    f"T.stft({_X}, 8, window=T.ones(5), return_complex=True)",
    f"T.stft({_X}.long(), 8, window={_W}, return_complex=True)",
    f"T.stft({_X}[None], 8, window={_W}, return_complex=True)",
    f"T.stft({_X}.cfloat(), 8, window={_W}, return_complex=True, onesided=True)",
    f"T.stft({_X}, 8, window={_W}, return_complex=True, align_to_window=True)",
    f"T.stft({_X}[0, :3], 8, window={_W}, return_complex=True)",
    f"T.istft(T.stft({_X}, 8, window={_W}, return_complex=True).real, 8, window={_W})",
    f"T.istft(T.stft({_X}, 8, window={_W}, return_complex=True), 8, window={_W}, onesided=False)",
    f"T.istft(T.stft({_X}, 8, window={_W}, return_complex=True), 8, hop_length=9, window={_W})",
    f"T.istft(T.stft({_X}, 8, window={_W}, return_complex=True), 8, win_length=9, window={_W})",
    f"T.istft(T.stft({_X}, 8, window={_W}, return_complex=True), 8, window=T.ones(5))",
    f"T.istft(T.stft({_X}, 8, window={_W}, return_complex=True), 8, window=T.zeros(8))",
    f"T.istft(T.stft({_X}, 8, window={_W}, return_complex=True), 8, window={_W}, center=False)",
    f"T.istft(T.stft({_X}, 8, window={_W}, return_complex=True)[None], 8, window={_W})",
    f"T.istft(T.stft({_X}, 8, window={_W}, return_complex=True)[..., :0], 8, window={_W})",
    f"T.istft(T.stft({_X}, 8, window={_W}, return_complex=True), 8, window={_W}, "
    "return_complex=True)",
]


@pytest.mark.parametrize("expr", STFT_ERRORS)
def test_stft_errors(expr):
    raises_like(lambda: eval(expr, {"T": torch, "np": np}),
                lambda: eval(expr, {"T": jtorch, "np": np}))
