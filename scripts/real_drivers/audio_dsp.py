"""Driver of three pure-PyTorch audio DSP libraries (docs/real-programs.md): nnAudio 0.3.4
(spectrograms as nn.Modules), julius 0.2.8 (resampling, FIR filters, FFT convolution) and
auraloss 0.4.0 (audio losses), the installed packages, unchanged, run on short synthetic
signals (batch 2, 0.25 s at 16 kHz: sums of sines plus noise from ``torch.randn``), printing
each result's checksum (sums and largest magnitude) and a few entries at full precision, and
the gradients of losses to the input signals and to the trainable kernels.

    python scripts/shared_rng_run.py drive_audio.py [VARIANT ... | all]             # real PyTorch
    python -m jtorch scripts/shared_rng_run.py drive_audio.py [VARIANT ... | all]   # jtorch

Without arguments it runs every variant (``all`` too). Each variant reseeds
(``torch.manual_seed``; ``np.random.seed`` for auraloss's RandomResolutionSTFTLoss), so a
subset prints what the full run prints for it. ``AUDIO_FLOAT64=1`` runs everything in float64
(the default dtype; nnAudio's float32 kernels are cast with ``.double()``), to tell float32
rounding from a bug.

librosa is not installed: auraloss imports ``librosa.filters.mel`` for its mel-scaled losses,
so the driver puts in a stand-in ``librosa`` whose ``filters.mel`` is nnAudio's
``get_mel`` (nnAudio's copy of librosa 0.7's filter bank).
"""

import math
import os
import sys
import time
import types

import numpy as np
import torch

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import auraloss  # noqa: E402
import julius  # noqa: E402
import nnAudio.features as nf  # noqa: E402
from nnAudio import librosa_functions  # noqa: E402

_librosa = types.ModuleType("librosa")
_librosa.filters = types.ModuleType("librosa.filters")
_librosa.filters.mel = librosa_functions.get_mel
_librosa.filters.chroma = librosa_functions.chroma
sys.modules.setdefault("librosa", _librosa)
sys.modules.setdefault("librosa.filters", _librosa.filters)

SR, N, B = 16000, 4000, 2
F64 = bool(os.environ.get("AUDIO_FLOAT64"))

VARIANTS = {}


def variant(name):
    def register(build):
        VARIANTS[name] = build
        return build
    return register


def signal(batch=B, length=N, sr=SR, freqs=(220.0, 440.0, 1250.0, 3100.0), noise=0.05):
    """A batch of sums of sines (different amplitudes and phases per row) plus noise."""
    t = torch.arange(length, dtype=torch.get_default_dtype()) / sr
    amps = torch.rand(batch, len(freqs)) * 0.5 + 0.1
    phases = torch.rand(batch, len(freqs)) * 2 * math.pi
    x = sum(amps[:, i:i + 1] * torch.sin(2 * math.pi * f * t + phases[:, i:i + 1])
            for i, f in enumerate(freqs))
    return x + noise * torch.randn(batch, length)


def mod(m):
    """nnAudio, julius's modules and auraloss's FIR filters make their kernels float32 whatever
    the default dtype: cast them in float64."""
    return m.double() if F64 else m


def checksum(t):
    """The sum of the magnitudes, a weighted sum (weights 1 to 2 in a period of 7 elements, so
    that values summing to zero by construction give no cancellation noise), the largest
    magnitude and the first three entries, in float64."""
    t = t.detach()
    if t.is_complex():
        t = torch.view_as_real(t)
    t = t.double().flatten()
    w = 1.0 + (torch.arange(t.numel(), dtype=torch.float64) % 7) / 6
    head = [float(v) for v in t[:3].tolist()]
    return (f"sum {t.sum().item()!r} abssum {t.abs().sum().item()!r} "
            f"wsum {(t * w).sum().item()!r} absmax {t.abs().max().item()!r} head {head!r}")


def grads(label, loss, named):
    """``loss`` and the gradients of it to each named tensor (inputs and trainable kernels)."""
    tensors = [t for _, t in named]
    gs = torch.autograd.grad(loss, tensors, allow_unused=True)
    out = [(f"{label} loss", f"{loss.item()!r}")]
    for (name, _), g in zip(named, gs):
        out.append((f"{label} grad {name}", g if g is not None else "None"))
    return out


# each variant returns [(label, tensor or text)]; a tensor is printed as its checksum


@variant("stft")
def _():
    x = signal()
    out = []
    for window, center, pad_mode, scale in [("hann", True, "reflect", "no"),
                                            ("hamming", True, "constant", "no"),
                                            ("blackman", False, "reflect", "no"),
                                            (("tukey", 0.5), True, "reflect", "linear"),
                                            ("hann", True, "reflect", "log"),
                                            ("bartlett", True, "constant", "log2")]:
        stft = mod(nf.STFT(n_fft=256, hop_length=64, window=window, center=center,
                           pad_mode=pad_mode, freq_scale=scale, fmin=100, fmax=7000, sr=SR,
                           verbose=False))
        tag = f"{window}-{center}-{pad_mode}-{scale}"
        out.append((f"kernels {tag}", stft.wcos))
        for fmt in ("Complex", "Magnitude", "Phase"):
            out.append((f"{fmt} {tag}", stft(x, output_format=fmt)))
    # win_length < n_fft, freq_bins, 3-D and 1-D inputs
    stft = mod(nf.STFT(n_fft=128, win_length=96, hop_length=32, freq_bins=40, sr=SR,
                       verbose=False, output_format="Magnitude"))
    out += [("win96 bins40", stft(x)), ("3d input", stft(x.unsqueeze(1))),
            ("1d input", stft(x[0]))]
    return out


@variant("stft_grad")
def _():
    x = signal().requires_grad_()
    stft = mod(nf.STFT(n_fft=128, hop_length=32, sr=SR, trainable=True,
                       output_format="Magnitude", verbose=False))
    spec = stft(x)
    loss = (spec + 1e-3).log().mean() + spec.pow(2).mean() * 1e-3
    out = [("trainable magnitude", spec)]
    out += grads("magnitude", loss, [("x", x), ("wsin", stft.wsin), ("wcos", stft.wcos)])
    c = stft(x, output_format="Complex")
    out += grads("complex", c.pow(2).sum(-1).sqrt().mean() + c[..., 1].mean(),
                 [("x", x), ("wsin", stft.wsin)])
    p = stft(x, output_format="Phase")
    out += grads("phase", (p.sin() * p.cos()).mean(), [("x", x)])
    return out


@variant("istft")
def _():
    x = signal()
    out = []
    for center, window in [(True, "hann"), (False, "hann"), (True, "hamming")]:
        stft = mod(nf.STFT(n_fft=256, hop_length=64, window=window, center=center, iSTFT=True,
                           verbose=False))
        X = stft(x)
        y = stft.inverse(X, onesided=True, length=N)
        n = y.shape[-1]  # without centring the frames stop short of the end
        out += [(f"inverse {center} {window}", y),
                (f"roundtrip err < 1e-3 {center} {window}",
                 str(bool((y - x[:, :n])[:, 256:-256].abs().max() < 1e-3)))]
        y2 = stft.inverse(X, onesided=True)
        out.append((f"inverse nolength {center} {window}", y2))
    # the iSTFT module, with trainable kernels and window, and a gradient through it
    stft = mod(nf.STFT(n_fft=128, hop_length=32, verbose=False, freq_bins=None))
    ist = mod(nf.iSTFT(n_fft=128, hop_length=32, trainable_kernels=True, trainable_window=True,
                       verbose=False))
    X = stft(x).requires_grad_()
    y = ist(X, onesided=True, length=N)
    out.append(("iSTFT module", y))
    named = [("X", X)] + [(n, p) for n, p in ist.named_parameters()]
    out += grads("iSTFT", (y - x).pow(2).mean() + y.abs().mean(), named)
    return out


@variant("mel")
def _():
    x = signal()
    out = []
    for kw in [{"n_mels": 40},
               {"n_mels": 32, "htk": True, "fmin": 50.0, "fmax": 7000.0, "power": 1.0},
               {"n_mels": 24, "norm": None, "center": False},
               {"n_mels": 40, "pad_mode": "constant", "window": "hamming"}]:
        mel = mod(nf.MelSpectrogram(sr=SR, n_fft=512, hop_length=128, verbose=False, **kw))
        tag = " ".join(f"{k}={v}" for k, v in kw.items())
        out += [(f"melbank {tag}", mel.mel_basis), (f"mel {tag}", mel(x))]
    for kw in [{"n_mfcc": 13}, {"n_mfcc": 20, "norm": None, "top_db": None},
               {"n_mfcc": 16, "ref": 2.0, "amin": 1e-6, "top_db": 60.0, "n_mels": 48}]:
        mfcc = mod(nf.MFCC(sr=SR, n_fft=512, hop_length=128, verbose=False, **kw))
        tag = " ".join(f"{k}={v}" for k, v in kw.items())
        out.append((f"mfcc {tag}", mfcc(x)))
    return out


@variant("mel_grad")
def _():
    x = signal().requires_grad_()
    mel = mod(nf.MelSpectrogram(sr=SR, n_fft=256, hop_length=64, n_mels=32,
                                trainable_mel=True, trainable_STFT=True, verbose=False))
    m = mel(x)
    named = [("x", x)] + list(mel.named_parameters())
    out = [("trainable mel", m)]
    out += grads("mel", (m + 1e-4).log().mean(), named)
    mfcc = mod(nf.MFCC(sr=SR, n_fft=256, hop_length=64, n_mfcc=13, n_mels=32, verbose=False,
                       top_db=None))
    c = mfcc(x)
    out.append(("mfcc", c))
    out += grads("mfcc", c.pow(2).mean() * 1e-3, [("x", x)])
    return out


@variant("cqt")
def _():
    x = signal()
    out = []
    specs = [("CQT1992v2", nf.CQT1992v2, {"fmin": 220.0, "n_bins": 48, "bins_per_octave": 12}),
             ("CQT1992v2 nocenter", nf.CQT1992v2,
              {"fmin": 220.0, "n_bins": 30, "bins_per_octave": 12, "center": False, "norm": 2,
               "window": "hamming"}),
             ("CQT2010v2", nf.CQT2010v2, {"fmin": 55.0, "n_bins": 48, "bins_per_octave": 12}),
             ("CQT2010v2 noearly", nf.CQT2010v2,
              {"fmin": 110.0, "n_bins": 36, "bins_per_octave": 12, "earlydownsample": False}),
             ("VQT gamma0", nf.VQT, {"fmin": 55.0, "n_bins": 48, "bins_per_octave": 12}),
             ("VQT gamma5", nf.VQT,
              {"fmin": 55.0, "n_bins": 48, "bins_per_octave": 12, "gamma": 5})]
    for tag, cls, kw in specs:
        cqt = mod(cls(sr=SR, hop_length=128, verbose=False, **kw))
        for fmt in ("Magnitude", "Complex", "Phase"):
            out.append((f"{tag} {fmt}", cqt(x, output_format=fmt)))
        for norm in ("convolutional", "wrap"):
            out.append((f"{tag} norm={norm}", cqt(x, normalization_type=norm)))
    return out


@variant("cqt_old")
def _():
    # the older CQT1992/CQT2010 (STFT then a CQT kernel product)
    x = signal()
    out = []
    for tag, cls, kw in [("CQT1992", nf.CQT1992, {"fmin": 220.0, "n_bins": 36}),
                         ("CQT2010", nf.CQT2010, {"fmin": 220.0, "n_bins": 36, "verbose": False})]:
        cqt = mod(cls(sr=SR, hop_length=128, **kw))
        for fmt in ("Magnitude", "Complex"):
            out.append((f"{tag} {fmt}", cqt(x, output_format=fmt)))
    return out


@variant("cqt_grad")
def _():
    x = signal().requires_grad_()
    cqt = mod(nf.CQT1992v2(sr=SR, hop_length=128, fmin=220.0, n_bins=24, trainable=True,
                           verbose=False))
    c = cqt(x)
    out = [("trainable CQT1992v2", c)]
    out += grads("cqt1992v2", (c + 1e-3).log().mean(), [("x", x)] + list(cqt.named_parameters()))
    cqt = mod(nf.CQT2010v2(sr=SR, hop_length=128, fmin=55.0, n_bins=36, trainable=True,
                           verbose=False))
    c = cqt(x)
    out.append(("trainable CQT2010v2", c))
    out += grads("cqt2010v2", c.pow(2).mean(), [("x", x)] + list(cqt.named_parameters()))
    vqt = mod(nf.VQT(sr=SR, hop_length=128, fmin=55.0, n_bins=36, gamma=3, verbose=False))
    c = vqt(x)
    out += grads("vqt", c.mean(), [("x", x)])
    return out


@variant("gammatone")
def _():
    x = signal()
    out = []
    for kw in [{"n_bins": 32},
               {"n_bins": 24, "power": 1.0, "fmin": 100.0, "fmax": 6000.0, "center": False}]:
        g = mod(nf.Gammatonegram(sr=SR, n_fft=512, hop_length=128, verbose=False, **kw))
        tag = " ".join(f"{k}={v}" for k, v in kw.items())
        out += [(f"bank {tag}", g.gammatone_basis), (f"gammatonegram {tag}", g(x))]
    xg = x.clone().requires_grad_()
    g = mod(nf.Gammatonegram(sr=SR, n_fft=256, hop_length=64, n_bins=16, trainable_bins=True,
                             trainable_STFT=True, verbose=False))
    y = g(xg)
    out += grads("gammatone", (y + 1e-4).log().mean(), [("x", xg)] + list(g.named_parameters()))
    return out


@variant("griffin_lim")
def _():
    x = signal()
    stft = mod(nf.STFT(n_fft=256, hop_length=64, output_format="Magnitude", verbose=False))
    S = stft(x)
    gl = nf.Griffin_Lim(n_fft=256, hop_length=64, n_iter=8)
    try:
        y = gl(S)
    except Exception as e:  # torch.istft of a real tensor with a last dim of 2 (pre-1.8 API)
        return [("griffin_lim", f"{type(e).__name__}: {str(e).splitlines()[0]}")]
    return [("griffin_lim", y)]


@variant("julius_resample")
def _():
    x = signal()
    out = []
    for old, new, kw in [(16000, 8000, {}), (16000, 22050, {}), (4, 5, {"zeros": 12}),
                         (3, 2, {"rolloff": 0.9}), (16000, 11025, {"full": True}),
                         (2, 3, {"output_length": 5000})]:
        y = julius.resample_frac(x, old, new, **kw)
        out.append((f"resample_frac {old}->{new} {kw}", y))
    r = mod(julius.ResampleFrac(5, 7))
    out.append(("ResampleFrac 5->7", r(x.unsqueeze(1))))
    out.append(("ResampleFrac 5->7 kernel", r.kernel))
    out.append(("resample identity", julius.resample_frac(x, 3, 3) - x))
    xg = x.clone().requires_grad_()
    y = julius.resample_frac(xg, 16000, 12000)
    out += grads("resample", y.pow(2).mean() + y[:, ::7].sum() * 1e-2, [("x", xg)])
    return out


@variant("julius_filters")
def _():
    x = signal()
    out = []
    for fft in (False, True):
        out += [(f"lowpass fft={fft}", julius.lowpass_filter(x, 0.05, fft=fft)),
                (f"highpass fft={fft}", julius.highpass_filter(x, 0.1, fft=fft)),
                (f"bandpass fft={fft}", julius.bandpass_filter(x, 0.02, 0.08, fft=fft)),
                (f"lowpass_filters fft={fft}", julius.lowpass_filters(x, [0.01, 0.1, 0.3],
                                                                       fft=fft)),
                (f"highpass_filters fft={fft}", julius.highpass_filters(x, [0.0, 0.2],
                                                                         fft=fft)),
                (f"split_bands fft={fft}", julius.split_bands(x, SR, n_bands=4, fft=fft))]
    out += [("lowpass stride2 nopad", mod(julius.LowPassFilter(0.1, stride=2, pad=False))(x)),
            ("lowpass zeros4", mod(julius.LowPassFilter(0.15, zeros=4))(x)),
            ("lowpass filters kernel", mod(julius.LowPassFilters([0.05, 0.2])).filters),
            ("highpass module", mod(julius.HighPassFilter(0.25))(x)),
            ("highpass modules", mod(julius.HighPassFilters([0.1, 0.3], stride=3))(x)),
            ("bandpass module", mod(julius.BandPassFilter(0.1, 0.2))(x)),
            ("split cutoffs", mod(julius.SplitBands(SR, cutoffs=[300, 1000, 4000]))(x)),
            ("split mel bands", mod(julius.SplitBands(SR, n_bands=6))(x))]
    bands = julius.split_bands(x, SR, n_bands=5)
    out.append(("split_bands sum err < 1e-4",
                str(bool((bands.sum(0) - x).abs().max() < 1e-4))))
    xg = x.clone().requires_grad_()
    y = julius.bandpass_filter(xg, 0.05, 0.12)
    z = julius.split_bands(xg, SR, n_bands=3, fft=True)
    out += grads("filters", y.pow(2).mean() + (z[0] * z[2]).mean(), [("x", xg)])
    return out


@variant("julius_fftconv")
def _():
    x = signal().reshape(B, 2, N // 2)
    w = torch.randn(3, 2, 33) * 0.1
    b = torch.randn(3) * 0.1
    out = []
    for stride, padding in [(1, 0), (2, 16), (3, 5)]:
        y = julius.fft_conv1d(x, w, b, stride=stride, padding=padding)
        ref = torch.nn.functional.conv1d(x, w, b, stride=stride, padding=padding)
        out += [(f"fft_conv1d s{stride} p{padding}", y),
                (f"fft vs conv close s{stride} p{padding}",
                 str(bool(torch.allclose(y, ref, atol=1e-4))))]
    out.append(("fft_conv1d block_ratio 2", julius.fft_conv1d(x, w, None, block_ratio=2)))
    conv = julius.FFTConv1d(2, 4, 17, stride=2, padding=4)
    out += [("FFTConv1d weight", conv.weight), ("FFTConv1d", conv(x))]
    xg = x.clone().requires_grad_()
    wg = w.clone().requires_grad_()
    y = julius.fft_conv1d(xg, wg, None, stride=2, padding=3)
    out += grads("fft_conv1d", y.pow(2).mean() + y[..., :5].sum(), [("x", xg), ("w", wg)])
    # helpers: mel scale, pure tone, sinc, unfold, pad_to, volume
    core = julius.core
    freqs = torch.tensor([0.0, 100.0, 440.0, 1000.0, 8000.0])
    out += [("hz_to_mel", core.hz_to_mel(freqs)),
            ("mel_to_hz", core.mel_to_hz(core.hz_to_mel(freqs))),
            ("mel_frequencies", core.mel_frequencies(10, 20.0, 8000.0)),
            ("pure_tone", core.pure_tone(440.0, sr=SR, dur=0.01)),
            ("sinc", core.sinc(torch.linspace(-6, 6, 25))),
            ("unfold", core.unfold(x, 64, 32)),
            ("pad_to", core.pad_to(x, N + 17)),
            ("volume", core.volume(x))]
    return out


@variant("julius_float64_grad")
def _():
    # gradients of julius's resampler and filters in float64 whatever the default dtype
    x = signal().double().requires_grad_()
    y = julius.resample_frac(x, 5, 3)
    z = julius.lowpass_filters(x, [0.05, 0.2], fft=True)
    return [("resample f64", y), ("lowpass_filters f64", z)] + grads(
        "f64", y.pow(2).mean() + z.abs().mean(), [("x", x)])


def pair():
    """A target (the clean sines with noise) and an input (the same, filtered and offset)."""
    target = signal().unsqueeze(1)
    inp = (0.8 * target + 0.05 * torch.randn(B, 1, N) + 0.01).requires_grad_()
    return inp, target


@variant("aura_stft")
def _():
    inp, target = pair()
    L = auraloss.freq
    out = []
    losses = [("STFTLoss", L.STFTLoss(fft_size=256, hop_size=64, win_length=256)),
              ("STFTLoss phs lin", L.STFTLoss(fft_size=256, hop_size=64, win_length=200,
                                              w_lin_mag=1.0, w_phs=0.5,
                                              window="hamming_window")),
              ("STFTLoss L2", L.STFTLoss(fft_size=128, hop_size=32, win_length=128,
                                         mag_distance="L2", window="blackman_window")),
              ("STFTLoss mel", L.STFTLoss(fft_size=512, hop_size=128, win_length=512,
                                          sample_rate=SR, scale="mel", n_bins=40)),
              ("STFTLoss aw", L.STFTLoss(fft_size=256, hop_size=64, win_length=256,
                                         sample_rate=SR, perceptual_weighting=True)),
              ("STFTLoss invariance", L.STFTLoss(fft_size=256, hop_size=64, win_length=256,
                                                 scale_invariance=True)),
              ("MelSTFTLoss", L.MelSTFTLoss(SR, fft_size=512, hop_size=128, win_length=512,
                                            n_mels=32)),
              ("MultiResolutionSTFTLoss", L.MultiResolutionSTFTLoss(
                  fft_sizes=[512, 256, 128], hop_sizes=[128, 64, 32],
                  win_lengths=[400, 200, 100])),
              ("MultiResolution mel aw", L.MultiResolutionSTFTLoss(
                  fft_sizes=[256, 128], hop_sizes=[64, 32], win_lengths=[256, 128],
                  sample_rate=SR, scale="mel", n_bins=24, perceptual_weighting=True)),
              ("SumAndDifferenceSTFTLoss", L.SumAndDifferenceSTFTLoss(
                  fft_sizes=[256, 128], hop_sizes=[64, 32], win_lengths=[256, 128]))]
    for name, loss_fn in losses:
        if name == "SumAndDifferenceSTFTLoss":  # stereo
            a, t = inp.reshape(1, 2, N), target.reshape(1, 2, N)
        elif name == "STFTLoss invariance":  # its alpha broadcasts only for one signal
            a, t = inp[:1], target[:1]
        else:
            a, t = inp, target
        out += grads(name, mod(loss_fn)(a, t), [("input", inp)])
    full = L.STFTLoss(fft_size=256, hop_size=64, win_length=256, w_lin_mag=1.0, w_phs=1.0,
                      output="full")(inp, target)
    out += [(f"full {i}", v if isinstance(v, torch.Tensor) else repr(v))
            for i, v in enumerate(full)]
    none = L.STFTLoss(fft_size=256, hop_size=64, win_length=256, w_sc=0.0,
                      reduction="none")(inp, target)
    out.append(("reduction none", none))
    out += [("SpectralConvergence", L.SpectralConvergenceLoss()(target.abs()[:, 0, :100],
                                                                 inp.abs()[:, 0, :100])),
            ("SumAndDifference", torch.cat(auraloss.perceptual.SumAndDifference()(
                target.reshape(1, 2, N)), 1))]
    return out


@variant("aura_random")
def _():
    np.random.seed(0)
    inp, target = pair()
    loss_fn = auraloss.freq.RandomResolutionSTFTLoss(resolutions=3, min_fft_size=64,
                                                      max_fft_size=512, randomize_rate=2)
    out = []
    for step in range(3):
        sizes = [(s.fft_size, s.hop_size, s.win_length) for s in loss_fn.stft_losses]
        out.append((f"random {step} resolutions", repr(sizes)))
        out += grads(f"random {step}", loss_fn(inp, target), [("input", inp)])
    return out


@variant("aura_time")
def _():
    inp, target = pair()
    T = auraloss.time
    out = []
    for name, loss_fn in [("ESRLoss", T.ESRLoss()), ("DCLoss", T.DCLoss()),
                          ("LogCoshLoss", T.LogCoshLoss()), ("LogCosh a2", T.LogCoshLoss(a=2.0)),
                          ("SNRLoss", T.SNRLoss()), ("SNR nozero", T.SNRLoss(zero_mean=False)),
                          ("SISDRLoss", T.SISDRLoss()), ("SDSDRLoss", T.SDSDRLoss()),
                          ("SISDR sum", T.SISDRLoss(reduction="sum"))]:
        out += grads(name, loss_fn(inp, target), [("input", inp)])
    out.append(("SNR none", T.SNRLoss(reduction="none")(inp, target)))
    out.append(("ESR none", T.ESRLoss(reduction="none")(inp, target)))
    P = auraloss.perceptual
    for ftype in ("hp", "fd", "aw"):
        fir = mod(P.FIRFilter(filter_type=ftype, fs=SR, coef=0.9))
        a, t = fir(inp, target)
        out += [(f"FIRFilter {ftype} taps", fir.fir.weight), (f"FIRFilter {ftype}", t)]
        out += grads(f"FIRFilter {ftype}", (a - t).pow(2).mean(), [("input", inp)])
    return out


class TinyDenoiser(torch.nn.Module):
    """A tiny waveform-to-waveform model: two convolutions with a residual path."""

    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv1d(1, 8, 15, padding=7)
        self.conv2 = torch.nn.Conv1d(8, 1, 15, padding=7)

    def forward(self, x):
        return x + self.conv2(torch.tanh(self.conv1(x)))


@variant("train")
def _():
    torch.manual_seed(1)
    model = TinyDenoiser()
    clean = signal(noise=0.0).unsqueeze(1)
    noisy = clean + 0.1 * torch.randn(B, 1, N)
    loss_fn = auraloss.freq.MultiResolutionSTFTLoss(fft_sizes=[512, 256, 128],
                                                    hop_sizes=[128, 64, 32],
                                                    win_lengths=[512, 256, 128])
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    out = []
    for step in range(6):
        opt.zero_grad()
        loss = loss_fn(model(noisy), clean) + 0.1 * auraloss.time.SISDRLoss()(model(noisy),
                                                                             clean)
        loss.backward()
        gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        out.append((f"step {step}", f"loss {loss.item()!r} grad_norm {gnorm.item()!r}"))
    for name, p in model.named_parameters():
        out.append((f"trained {name}", p))
    # a trainable nnAudio front end learned with the same loss on its spectrogram
    torch.manual_seed(2)
    front = mod(nf.MelSpectrogram(sr=SR, n_fft=256, hop_length=64, n_mels=16,
                                  trainable_mel=True, verbose=False))
    target = front(clean.squeeze(1)).detach() * 1.1
    scale = target.mean()
    opt = torch.optim.Adam(front.parameters(), lr=2e-5)
    for step in range(4):
        opt.zero_grad()
        loss = torch.nn.functional.l1_loss(front(noisy.squeeze(1)) / scale, target / scale)
        loss.backward()
        opt.step()
        out.append((f"front step {step}", f"loss {loss.item()!r}"))
    out.append(("front mel_basis", front.mel_basis))
    return out


def show(name, label, value):
    if isinstance(value, torch.Tensor):
        print(f"{name} {label} {list(value.shape)} {value.dtype} {checksum(value)}")
    else:
        print(f"{name} {label} {value}")


def run(name):
    torch.manual_seed(0)
    print(f"== {name}")
    for label, value in VARIANTS[name]():
        show(name, label, value)


def main(argv):
    if F64:  # to tell float32 rounding from a bug
        torch.set_default_dtype(torch.float64)
    names = list(VARIANTS) if argv in ([], ["all"]) else argv
    unknown = [n for n in names if n not in VARIANTS]
    if unknown:
        sys.exit(f"unknown variants {unknown}; known: {' '.join(VARIANTS)}")
    for name in names:
        start = time.time()
        run(name)
        print(f"[{name}: {time.time() - start:.1f}s]", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
