"""torch.fft: discrete Fourier transforms (fft, ifft, rfft, irfft, hfft, ihfft and their 2-D and
n-D forms), the sample frequencies (fftfreq, rfftfreq) and fftshift/ifftshift.

Each transform follows ATen's checks in ATen's order (argument shapes, then the dtype, then the
normalisation mode), so the errors are PyTorch's: integer and bool inputs become the default
float dtype, real inputs of the complex transforms become complex (float32 -> complex64), and
``norm`` is ``"backward"`` (None), ``"forward"`` or ``"ortho"``. The bodies are
``jax.numpy.fft``'s transforms, whose vjps give PyTorch's gradients (the one-sided transforms'
gradients double the non-DC, non-Nyquist bins, as ATen's ``fft_c2r_backward``). hfft and ihfft
are irfft and rfft of the conjugate with the normalisation swapped, as in ATen.

Differences from PyTorch:
    - float16/bfloat16 inputs raise PyTorch's CPU error ("Unsupported dtype Half") on every
      device (PyTorch's CUDA build transforms float16 of power-of-two sizes; XLA's FFT has no
      half precision). Under ``torch.autocast`` on the CPU they run in float32, as PyTorch's
      CPU policy says.
    - grad_fn names: PyTorch names the node by the kernel it ran (``FftR2CBackward0`` for the
      fft of a real tensor, ``FftC2CBackward0`` for a complex one, ``ConjBackward0`` on top of
      an ihfft); jtorch names one kernel per function: ``FftR2CBackward0`` for fft, ifft, rfft,
      rfft2, rfftn, ihfft; ``FftC2RBackward0`` for irfft, irfft2, irfftn, hfft, hfft2, hfftn;
      ``FftC2CBackward0`` for the other n-D transforms.
"""

from __future__ import annotations

import operator

import jax.numpy as jnp
import numpy as np

from .._core import dtypes
from ._elementwise import category, default_float
from ._registry import export, op
from ._util import type_name, wrap_dim
from .creation import finish, out_dtype

_NORMS = ("backward", "forward", "ortho")
_SWAPPED = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


# ------------------------------------------------------------------ argument checks (ATen's)
def _norm(norm, fname, swap=False):
    """The normalisation mode of ``norm`` (None is "backward"), swapped for hfft/ihfft."""
    if norm is None:
        norm = "backward"
    elif not isinstance(norm, str):
        raise TypeError(f"fft_{fname}(): argument 'norm' must be str, not {type(norm).__name__}")
    if norm not in _NORMS:
        raise RuntimeError(f'Invalid normalization mode: "{norm}"')
    return _SWAPPED[norm] if swap else norm


def _promote(x, require_complex=False):
    """ATen's promote_tensor_fft: integers become the default float dtype, only float32 and
    float64 are transformed, and complex transforms need complex input."""
    if category(x) == dtypes.COMPLEX:
        return x
    if category(x) < dtypes.FLOAT:
        x = x.astype(default_float())
    if x.dtype not in (np.float32, np.float64):
        raise RuntimeError(f"Unsupported dtype {type_name(x)}")
    if require_complex:
        return x.astype(np.complex128 if x.dtype == np.float64 else np.complex64)
    return x


def _real_only(x, message):
    if category(x) == dtypes.COMPLEX:
        raise RuntimeError(f"{message}, but got {type_name(x)}")


def _wrap(dim, ndim, fname, arg="dim"):
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise TypeError(f"fft_{fname}(): argument '{arg}' must be int, not {type(dim).__name__}")
    if ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return wrap_dim(dim, ndim)


def _points(n):
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return n


def _length(n, default, fname):
    """A 1-D transform's signal length ``n`` (None: ``default``), checked."""
    if n is None:
        return _points(default)
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"fft_{fname}(): argument 'n' must be int, not {type(n).__name__}")
    return _points(n)


def _ints(v):
    return (v,) if isinstance(v, int) else tuple(operator.index(e) for e in v)


def _shape_and_dims(x, s, dim):
    """ATen's canonicalize_fft_shape_and_dim_args: (signal sizes, dims), both tuples."""
    ndim, shape = x.ndim, x.shape
    dims = None
    if dim is not None:
        dims = tuple(wrap_dim(d, ndim) if ndim else _wrap(d, 0, "") for d in _ints(dim))
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is not None:
        s = _ints(s)
        if dims is not None and len(dims) != len(s):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(s) > ndim:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has "
                               f"{ndim} dimensions.")
        if dims is None:
            dims = tuple(range(ndim - len(s), ndim))
        sizes = tuple(shape[d] if n == -1 else n for n, d in zip(s, dims))
    else:
        if dims is None:
            dims = tuple(range(ndim))
        sizes = tuple(shape[d] for d in dims)
    for n in sizes:
        _points(n)
    return sizes, dims


def _c2r_shape_and_dims(fname, x, s, dim):
    """ATen's canonicalize_fft_c2r_shape_and_dim_args: the last size is the output length of
    the Hermitian dimension."""
    sizes, dims = _shape_and_dims(x, s, dim)
    if not dims:
        raise RuntimeError(f"{fname} must transform at least one axis")
    last = 2 * (x.shape[dims[-1]] - 1) if s is None or _ints(s)[-1] == -1 else sizes[-1]
    _points(last)
    return sizes[:-1] + (last,), dims


# ------------------------------------------------------------------ 1-D transforms
def _c2c_1d(fname, x, n, dim, norm, inverse):
    d = _wrap(dim, x.ndim, fname)
    if category(x) != dtypes.COMPLEX:
        x = _promote(x)
    n = _length(n, x.shape[d], fname)
    f = jnp.fft.ifft if inverse else jnp.fft.fft
    return f(x, n, d, _norm(norm, fname))


@op("fft.fft", namespace="fft", method=False, grad_name="FftR2CBackward0")
def fft(input, n=None, dim=-1, norm=None):
    """The 1-D discrete Fourier transform of ``input`` along ``dim``, of length ``n``
    (``input`` is zero-padded or trimmed to it)."""
    return _c2c_1d("fft", input, n, dim, norm, False)


@op("fft.ifft", namespace="fft", method=False, grad_name="FftR2CBackward0")
def ifft(input, n=None, dim=-1, norm=None):
    """The 1-D inverse discrete Fourier transform."""
    return _c2c_1d("ifft", input, n, dim, norm, True)


def _r2c_1d(fname, x, n, dim, norm, hermitian):
    _real_only(x, f"{fname} expects a real input tensor")
    x = _promote(x)
    d = _wrap(dim, x.ndim, fname)
    n = _length(n, x.shape[d], fname)
    out = jnp.fft.rfft(x, n, d, _norm(norm, fname, swap=hermitian))
    return jnp.conj(out) if hermitian else out


@op("fft.rfft", namespace="fft", method=False, grad_name="FftR2CBackward0")
def rfft(input, n=None, dim=-1, norm=None):
    """The 1-D Fourier transform of a real signal: the ``n // 2 + 1`` non-negative
    frequencies."""
    return _r2c_1d("rfft", input, n, dim, norm, False)


@op("fft.ihfft", namespace="fft", method=False, grad_name="FftR2CBackward0")
def ihfft(input, n=None, dim=-1, norm=None):
    """The inverse of :func:`hfft`: the one-sided Hermitian spectrum of a real signal."""
    return _r2c_1d("ihfft", input, n, dim, norm, True)


def _c2r_1d(fname, x, n, dim, norm, hermitian):
    x = _promote(x, require_complex=True)
    d = _wrap(dim, x.ndim, fname)
    n = _length(n, 2 * (x.shape[d] - 1), fname)
    norm = _norm(norm, fname, swap=hermitian)
    return jnp.fft.irfft(jnp.conj(x) if hermitian else x, n, d, norm)


@op("fft.irfft", namespace="fft", method=False, grad_name="FftC2RBackward0")
def irfft(input, n=None, dim=-1, norm=None):
    """The inverse of :func:`rfft`: a real signal of length ``n`` (default
    ``2 * (input.size(dim) - 1)``) from its one-sided spectrum."""
    return _c2r_1d("irfft", input, n, dim, norm, False)


@op("fft.hfft", namespace="fft", method=False, grad_name="FftC2RBackward0")
def hfft(input, n=None, dim=-1, norm=None):
    """The Fourier transform of a Hermitian-symmetric signal given by its one-sided half: a
    real tensor of length ``n`` (default ``2 * (input.size(dim) - 1)``)."""
    return _c2r_1d("hfft", input, n, dim, norm, True)


# ------------------------------------------------------------------ n-D transforms
def _two_and_n(name, transform, flag, grad_name, docs, fnames=None):
    """Publish ``torch.fft.<name>2`` and ``torch.fft.<name>n``: both are
    ``transform(fname, input, s, dim, norm, flag)``, the 2-D one with ``dim`` defaulting to the
    last two dims. ``docs``: their docstrings; ``fnames``: the names their errors give
    (default: the n-D one's for both)."""
    fname_2d, fname_nd = fnames or (name + "n",) * 2

    def two_d(input, s=None, dim=(-2, -1), norm=None):
        return transform(fname_2d, input, s, dim, norm, flag)

    def n_d(input, s=None, dim=None, norm=None):
        return transform(fname_nd, input, s, dim, norm, flag)

    forms = []
    for body, suffix, doc in zip((two_d, n_d), ("2", "n"), docs, strict=True):
        body.__name__ = body.__qualname__ = name + suffix
        body.__doc__ = doc
        forms.append(op(f"fft.{name}{suffix}", namespace="fft", method=False,
                        grad_name=grad_name)(body))
    return forms


def _c2c_nd(fname, x, s, dim, norm, inverse):
    sizes, dims = _shape_and_dims(x, s, dim)
    x = _promote(x, require_complex=True)
    norm = _norm(norm, fname)
    if not dims:
        return x
    f = jnp.fft.ifftn if inverse else jnp.fft.fftn
    return f(x, sizes, dims, norm)


fft2, fftn = _two_and_n(
    "fft", _c2c_nd, False, "FftC2CBackward0",
    ("The 2-D discrete Fourier transform over ``dim`` (the last two), of sizes ``s``.",
     "The n-D discrete Fourier transform over ``dim`` (default: the last ``len(s)`` dims, or\n"
     "    all), of sizes ``s`` (-1: that dim's size)."),
    ("fft2", "fftn"))
ifft2, ifftn = _two_and_n(
    "ifft", _c2c_nd, True, "FftC2CBackward0",
    ("The 2-D inverse discrete Fourier transform.", "The n-D inverse discrete Fourier transform."),
    ("ifft2", "ifftn"))


def _r2c_nd(fname, x, s, dim, norm, hermitian):
    if not hermitian:
        _real_only(x, f"{fname} expects a real-valued input tensor")
    sizes, dims = _shape_and_dims(x, s, dim)
    if not dims:
        raise RuntimeError(f"{fname} must transform at least one axis")
    if hermitian and category(x) == dtypes.COMPLEX:
        raise RuntimeError(f"Only supports floating-point dtypes, but found: {type_name(x)}")
    x = _promote(x)
    out = jnp.fft.rfftn(x, sizes, dims, _norm(norm, fname, swap=hermitian))
    return jnp.conj(out) if hermitian else out


rfft2, rfftn = _two_and_n(
    "rfft", _r2c_nd, False, "FftR2CBackward0",
    ("The 2-D Fourier transform of a real signal, one-sided in the last dim.",
     "The n-D Fourier transform of a real signal, one-sided in the last transformed dim."))
ihfft2, ihfftn = _two_and_n(
    "ihfft", _r2c_nd, True, "FftC2CBackward0",
    ("The 2-D inverse of :func:`hfft2`.",
     "The n-D inverse of :func:`hfftn`: one-sided in the last transformed dim."))


def _c2r_nd(fname, x, s, dim, norm, hermitian):
    sizes, dims = _c2r_shape_and_dims(fname, x, s, dim)
    x = _promote(x, require_complex=True)
    norm = _norm(norm, fname, swap=hermitian)
    return jnp.fft.irfftn(jnp.conj(x) if hermitian else x, sizes, dims, norm)


irfft2, irfftn = _two_and_n(
    "irfft", _c2r_nd, False, "FftC2RBackward0",
    ("The inverse of :func:`rfft2`: a real signal (last size ``s[-1]``, default\n"
     "    ``2 * (input.size(dim[-1]) - 1)``).", "The inverse of :func:`rfftn`."))
hfft2, hfftn = _two_and_n(
    "hfft", _c2r_nd, True, "FftC2RBackward0",
    ("The 2-D Fourier transform of a Hermitian-symmetric signal given by its half.",
     "The n-D Fourier transform of a Hermitian-symmetric signal given by its half."))


# ------------------------------------------------------------------ shifts
def _shift(x, dim, inverse):
    if dim is None:
        if x.ndim == 0:
            raise RuntimeError("`shifts` required")
        dims = tuple(range(x.ndim))
    else:
        dims = tuple(wrap_dim(d, x.ndim) for d in _ints(dim))
    shifts = tuple((x.shape[d] + inverse) // 2 for d in dims)
    return jnp.roll(x, shifts, dims) if dims else x


@op("fft.fftshift", namespace="fft", method=False, out=False, grad_name="RollBackward0",
    saves=False)
def fftshift(input, dim=None):
    """Roll the zero frequency to the centre of ``dim`` (default: every dim)."""
    return _shift(input, dim, False)


@op("fft.ifftshift", namespace="fft", method=False, out=False, grad_name="RollBackward0",
    saves=False)
def ifftshift(input, dim=None):
    """The inverse of :func:`fftshift`."""
    return _shift(input, dim, True)


# ------------------------------------------------------------------ sample frequencies
def _frequencies(fname, k, n, d, out, dtype, layout, device, requires_grad):
    """``k / (n * d)`` computed as ATen does: ``arange`` in the dtype times the scalar
    ``1 / (n * d)`` (float32 arithmetic for float32 and the half types)."""
    dt = out_dtype(dtype, out, dtypes.get_default_dtype())
    if dt.category == dtypes.COMPLEX:
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{dt.scalar_name}'")
    if dt.category < dtypes.FLOAT:
        raise RuntimeError(f"{fname} requires a floating point or complex dtype")
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.float64(1.0) / np.float64(n * float(d))
        work = np.float64 if dt is dtypes.float64 else np.float32
        values = (k.astype(work) * work(scale)).astype(dt.np)
    return finish(values, device, requires_grad, out, layout)


def _size(n):
    n = operator.index(n)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    return n


@export(namespace="fft")
def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False,
            pin_memory=False):
    """The sample frequencies of an FFT of length ``n`` with sample spacing ``d``:
    ``[0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (n * d)``."""
    n = _size(n)
    k = np.arange(n, dtype=np.int64)
    k[(n + 1) // 2:] -= n
    return _frequencies("fftfreq", k, n, d, out, dtype, layout, device, requires_grad)


@export(namespace="fft")
def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False,
             pin_memory=False):
    """The sample frequencies of :func:`rfft` of length ``n``:
    ``[0, 1, ..., n // 2] / (n * d)``."""
    n = _size(n)
    k = np.arange(n // 2 + 1, dtype=np.int64)
    return _frequencies("rfftfreq", k, n, d, out, dtype, layout, device, requires_grad)
