"""Short-time Fourier transforms: torch.stft and torch.istft, as ATen computes them
(aten/src/ATen/native/SpectralOps.cpp): frames of ``n_fft`` samples every ``hop_length``, each
multiplied by the window (``win_length`` samples, zero-padded to ``n_fft`` in the middle), then
one FFT per frame; istft inverts each frame and overlap-adds them, divided by the overlap-added
squared window. Values, dtypes, gradients (JAX's FFT vjps) and errors are PyTorch's.

istft's check that the window overlap never vanishes (``window overlap add min``) depends on the
window's values: it runs eagerly before dispatch (skipped under a trace).
"""

from __future__ import annotations

import warnings

import jax.numpy as jnp
import numpy as np

from .._core import dtypes
from .._core.tensor_base import TensorBase
from ._elementwise import common_dtype
from ._index_util import concrete
from ._registry import op
from ._util import dtype_of
from .fft import _promote
from .nn_pad import _nonconstant_body


def _opt(v):
    return "None" if v is None else str(int(v))


def _type_name(x):
    """PyTorch's scalar type name of an array, or of a tensor (in ``check=`` functions)."""
    return (x.dtype if isinstance(x, TensorBase) else dtype_of(x)).scalar_name


def _window_repr(window):
    if window is None:
        return "None"
    return f"torch.{_type_name(window)}Tensor{{{list(window.shape)}}}"


def _centered_window(window, n_fft, win_length, dtype):
    """The window zero-padded to ``n_fft`` samples, in the middle; None: a rectangular
    window."""
    if window is None:
        window = jnp.ones((win_length,), dtype)
    if win_length == n_fft:
        return window
    left = (n_fft - win_length) // 2
    return jnp.pad(window, (left, n_fft - win_length - left))


_NO_WINDOW = ("A window was not provided. A rectangular window will be applied,which is known "
              "to cause spectral leakage. Other windows such as torch.hann_window or "
              "torch.hamming_window are recommended to reduce spectral leakage.To suppress this "
              "warning and use a rectangular window, explicitly set `window=torch.ones(n_fft, "
              "device=<device>)`.")
_REAL_OUTPUT = ("stft with return_complex=False is deprecated. In a future pytorch release, stft "
                "will return complex tensors for all inputs, and return_complex=False will raise "
                "an error.\nNote: you can still call torch.view_as_real on the complex output to "
                "recover the old return format.")


def _pad_signal(x, n_fft, pad_mode):
    """stft's ``center``: ``n_fft // 2`` samples of padding on each side, as F.pad would pad the
    signal viewed as (1, batch, length)."""
    pad = n_fft // 2
    x3 = x.reshape((1,) * (3 - x.ndim) + x.shape)
    if pad_mode == "constant":
        x3 = jnp.pad(x3, ((0, 0), (0, 0), (pad, pad)))
    else:
        x3 = _nonconstant_body(x3, (pad, pad), pad_mode)
    return x3.reshape(x3.shape[3 - x.ndim:])


@op("stft", tensors=("input", "window"), out=False, grad_name="StftBackward0")
def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode="reflect", normalized=False, onesided=None, return_complex=None,
         align_to_window=None):
    """The short-time Fourier transform: ``(n_freq, n_frames)`` per signal, ``n_freq = n_fft //
    2 + 1`` for real signals and windows (``onesided``), else ``n_fft``."""
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    if center:
        input = _pad_signal(input, n_fft, pad_mode)
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    complex_input = jnp.iscomplexobj(input) or (window is not None and jnp.iscomplexobj(window))
    prefix = (f"stft(torch.{dtype_of(input).scalar_name}Tensor{list(input.shape)}, "
              f"n_fft={n_fft}, hop_length={hop}, win_length={win}, "
              f"window={_window_repr(window)}, normalized={int(normalized)}, "
              f"onesided={_opt(onesided)}, return_complex={_opt(return_complex)}, "
              f"align_to_window={_opt(align_to_window)}) : ")
    if return_complex is None and not complex_input:
        raise RuntimeError("stft requires the return_complex parameter be given for real "
                           "inputs, and will further require that return_complex=True in a "
                           "future PyTorch release.")
    if not (return_complex is None or return_complex):
        warnings.warn(_REAL_OUTPUT, UserWarning, stacklevel=2)
    if window is None:
        warnings.warn(_NO_WINDOW, UserWarning, stacklevel=2)
    if dtype_of(input).category < dtypes.FLOAT:
        raise RuntimeError(prefix + "expected a tensor of floating point or complex values")
    if input.ndim not in (1, 2):
        raise RuntimeError(prefix + "expected a 1D or 2D tensor")
    x = input if input.ndim == 2 else input[None]
    length = x.shape[1]
    if n_fft <= 0 or n_fft > length:
        raise RuntimeError(prefix + f"expected 0 < n_fft < {length}, but got n_fft={win}")
    if hop <= 0:
        raise RuntimeError(prefix + f"expected hop_length > 0, but got hop_length={hop}")
    if win <= 0 or win > n_fft:
        raise RuntimeError(prefix + f"expected 0 < win_length <= n_fft, but got win_length={win}")
    if window is not None and (window.ndim != 1 or window.shape[0] != win):
        raise RuntimeError(prefix + f"expected a 1D window tensor of size equal to "
                           f"win_length={win}, but got window with size {list(window.shape)}")
    dt = _promote(x.astype(common_dtype(x, window).np) if window is not None else x).dtype
    w = _centered_window(window, n_fft, win, dt)
    n_frames = 1 + (length - n_fft) // hop
    if align_to_window:   # frames start where their window does: win_length samples each
        n_frames = 1 + (length - win) // hop
        left = (n_fft - win) // 2
        x = jnp.pad(x, ((0, 0), (left, n_fft - win - left)))
    frames = x.astype(dt)[:, (np.arange(n_frames)[:, None] * hop + np.arange(n_fft))]
    frames = frames * w.astype(dt)
    onesided = not complex_input if onesided is None else onesided
    norm = "ortho" if normalized else "backward"
    if complex_input:
        if onesided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        out = jnp.fft.fft(frames, axis=-1, norm=norm)
    elif onesided:
        out = jnp.fft.rfft(frames, axis=-1, norm=norm)
    else:
        out = jnp.fft.fft(frames, axis=-1, norm=norm)
    out = jnp.swapaxes(out, 1, 2)
    if input.ndim == 1:
        out = out[0]
    if return_complex is None or return_complex:
        return out
    return jnp.stack([out.real, out.imag], -1)


def _istft_prefix(input, n_fft, hop, win, window, center, normalized, onesided, length,
                  return_complex):
    return (f"istft(CPU{_type_name(input)}Type{list(input.shape)}, n_fft={n_fft}, "
            f"hop_length={hop}, win_length={win}, window={_window_repr(window)}, "
            f"center={int(center)}, normalized={int(normalized)}, onesided={_opt(onesided)}, "
            f"length={'None' if length is None else length}, "
            f"return_complex={int(return_complex)}) ")


def _check_overlap(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
                   normalized=False, onesided=None, length=None, return_complex=False):
    """istft's check that the overlap-added squared window never vanishes where the signal is
    kept (eager: it reads the window's values)."""
    w = None if window is None else concrete(window)
    if w is None or input.ndim < 2 or input.numel() == 0:
        return
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if w.ndim != 1 or w.shape[0] != win or not 0 < hop <= win <= n_fft:
        return   # the kernel raises PyTorch's error for these
    n_frames = input.shape[-1]
    left = (n_fft - win) // 2
    sq = np.zeros(n_fft)
    sq[left:left + win] = w * w   # PyTorch's window.pow(2)
    envelope = np.zeros(n_fft + hop * (n_frames - 1))
    for f in range(n_frames):
        envelope[f * hop:f * hop + n_fft] += sq
    start, end = _istft_span(n_fft, center, length, envelope.size)
    if envelope[start:end].size and np.abs(envelope[start:end]).min() < 1e-11:
        raise RuntimeError(_istft_prefix(input, n_fft, hop, win, window, center, normalized,
                                         onesided, length, return_complex)
                           + "window overlap add min: 1")


def _istft_span(n_fft, center, length, total):
    """The kept samples of the overlap-added signal: ``[start, end)`` (``end`` may pass the
    end: the signal is then padded with zeros)."""
    start = n_fft // 2 if center else 0
    if length is not None:
        return start, start + length
    return start, total - n_fft // 2 if center else total


_NO_WINDOW_INVERSE = ("A window was not provided. A rectangular window will be applied.Please "
                      "provide the same window used by stft to make the inversion lossless.To "
                      "suppress this warning and use a rectangular window, explicitly set "
                      "`window=torch.ones(n_fft, device=<device>)`.")


@op("istft", tensors=("input", "window"), out=False, check=_check_overlap,
    grad_name="IstftBackward0")
def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
          normalized=False, onesided=None, length=None, return_complex=False):
    """The inverse of :func:`stft`: each frame's inverse FFT, windowed and overlap-added,
    divided by the overlap-added squared window; ``length`` trims or zero-pads the signal."""
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if not jnp.iscomplexobj(input):
        raise RuntimeError("istft requires a complex-valued input tensor matching the output "
                           "from stft with return_complex=True.")
    prefix = _istft_prefix(input, n_fft, hop, win, window, center, normalized, onesided, length,
                           return_complex) + ": "
    if window is None:
        warnings.warn(_NO_WINDOW_INVERSE, UserWarning, stacklevel=2)
    if input.size == 0:
        raise RuntimeError(prefix + "input tensor cannot be empty.")
    if input.ndim not in (2, 3):
        raise RuntimeError(prefix + "expected a tensor with 3 or 4 dimensions, but got "
                           f"{input.ndim + 1}")
    x = input if input.ndim == 3 else input[None]
    fft_size, n_frames = x.shape[1], x.shape[2]
    one = fft_size != n_fft if onesided is None else onesided
    if one and n_fft // 2 + 1 != fft_size:
        raise RuntimeError(prefix + "expected the frequency dimension (3rd to the last) of the "
                           "input tensor to match n_fft / 2 + 1 when onesided=True, but got "
                           f"{fft_size}")
    if not one and n_fft != fft_size:
        raise RuntimeError(prefix + "expected the frequency dimension (3rd to the last) of the "
                           "input tensor to match n_fft when onesided=False, but got "
                           f"{fft_size}")
    if not 0 < hop <= win:
        raise RuntimeError(prefix + "expected 0 < hop_length <= win_length")
    if not 0 < win <= n_fft:
        raise RuntimeError(prefix + "expected 0 < win_length <= n_fft")
    if window is not None and (window.ndim != 1 or window.shape[0] != win):
        raise RuntimeError(prefix + "Invalid window shape. window has to be 1D and length of "
                           "`win_length`")
    real = x.real.dtype
    w = _centered_window(window, n_fft, win, real)
    frames = jnp.swapaxes(x, 1, 2)   # (batch, n_frames, fft_size)
    norm = "ortho" if normalized else "backward"
    if return_complex:
        if one:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        frames = jnp.fft.ifft(frames, axis=-1, norm=norm)
    else:
        if window is not None and jnp.iscomplexobj(window):
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        if not one:
            frames = frames[..., :n_fft // 2 + 1]
        frames = jnp.fft.irfft(frames, n=n_fft, axis=-1, norm=norm)
    frames = frames * w
    total = n_fft + hop * (n_frames - 1)
    pos = (np.arange(n_frames)[:, None] * hop + np.arange(n_fft)).reshape(-1)
    y = jnp.zeros((x.shape[0], total), frames.dtype).at[:, pos].add(
        frames.reshape(x.shape[0], -1))
    envelope = jnp.zeros((total,), w.dtype).at[pos].add(
        jnp.tile(w * w, n_frames))
    start, end = _istft_span(n_fft, center, length, total)
    y = y[:, start:min(end, total)] / envelope[start:min(end, total)]
    if end > total:
        warnings.warn("The length of signal is shorter than the length parameter. Result is "
                      "being padded with zeros in the tail. Please check your center and "
                      "hop_length settings.", UserWarning, stacklevel=2)
        y = jnp.pad(y, ((0, 0), (0, end - total)))
    return y if input.ndim == 3 else y[0]
