"""Window functions for spectral analysis: hann, hamming, blackman, bartlett and kaiser windows.

Factories: the values depend only on the length and the parameters, so they are computed on the
host with PyTorch's formulas (aten/src/ATen/native/TensorFactories.cpp), one step at a time in
the output dtype as PyTorch's in-place steps are (constants rounded to that dtype too; float16
and bfloat16 steps computed in float32 and rounded after each), and placed like any factory's
result.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from .._core import dtypes
from ._registry import export
from .creation import finish


def _length(name, window_length, dtype):
    """PyTorch's checks; returns (length, dtype)."""
    try:
        n = operator.index(window_length)
    except TypeError:
        raise TypeError(f"{name}(): argument 'window_length' (position 1) must be int, not "
                        f"{type(window_length).__name__}") from None
    dt = dtypes.get_default_dtype() if dtype is None else dtypes.to_dtype(dtype)
    if dt.category == dtypes.COMPLEX:
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{dt.scalar_name}'")
    if dt.category != dtypes.FLOAT:
        raise RuntimeError(f"{name} expects floating point dtypes, got: TensorOptions(dtype="
                           f"{dt.cpp_name}, device=cpu, layout=Strided (default), "
                           "requires_grad=false (default), pinned_memory=false, "
                           "memory_format=(nullopt))")
    if n < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={n}")
    return n, dt


def _window(name, window_length, periodic, dtype, layout, device, requires_grad, values):
    """``values(L, step, work)`` of a symmetric window of length L, where ``step(a)`` rounds a
    constant or an intermediate result to the output dtype (held in ``work``, the dtype the
    steps compute in); ``periodic`` drops the last of L + 1."""
    n, dt = _length(name, window_length, dtype)
    if n <= 1:
        arr = np.ones(n, dt.np)
    else:
        work = np.float32 if dt.name in ("float16", "bfloat16") else np.dtype(dt.np).type

        def step(a):
            return np.asarray(a, work).astype(dt.np).astype(work)

        m = n + 1 if periodic else n
        arr = values(m, step, work)[:n].astype(dt.np)
    return finish(arr, device, requires_grad, None, layout)


def _cosine(alpha, beta):
    """``alpha - beta * cos(2 pi i / (L - 1))`` (hann: 0.5, 0.5; hamming: 0.54, 0.46)."""
    def values(m, step, work):
        w = step(np.arange(m, dtype=work))
        w = step(np.cos(step(w * step(math.pi * 2.0 / (m - 1)))))
        return step(step(w * step(-beta)) + step(alpha))

    return values


@export()
def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                pin_memory=False, requires_grad=False):
    """The Hann window ``0.5 - 0.5 cos(2 pi n / (N - 1))``; ``periodic`` (default) gives the
    first ``window_length`` values of the window one longer (for spectral analysis)."""
    return _window("hann_window", window_length, periodic, dtype, layout, device,
                   requires_grad, _cosine(0.5, 0.5))


@export()
def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None,
                   layout=None, device=None, pin_memory=False, requires_grad=False):
    """The Hamming window ``alpha - beta cos(2 pi n / (N - 1))``."""
    return _window("hamming_window", window_length, periodic, dtype, layout, device,
                   requires_grad, _cosine(alpha, beta))


def _blackman(m, step, work):
    w = step(step(np.arange(m, dtype=work)) * step(math.pi / (m - 1)))
    a = step(step(np.cos(step(w * step(4)))) * step(0.08))
    b = step(step(np.cos(step(w * step(2)))) * step(0.5))
    return step(step(a - b) + step(0.42))


@export()
def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    """The Blackman window ``0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))``."""
    return _window("blackman_window", window_length, periodic, dtype, layout, device,
                   requires_grad, _blackman)


def _bartlett(m, step, work):
    w = step(step(np.arange(m, dtype=work)) * step(2.0 / (m - 1)))
    half = ((m - 1) >> 1) + 1
    w[half:] = step(step(-w[half:]) + step(2))
    return w


@export()
def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    pin_memory=False, requires_grad=False):
    """The Bartlett (triangular) window ``1 - |2n / (N - 1) - 1|``."""
    return _window("bartlett_window", window_length, periodic, dtype, layout, device,
                   requires_grad, _bartlett)


@export()
def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None,
                  device=None, pin_memory=False, requires_grad=False):
    """The Kaiser window ``I0(beta sqrt(1 - ((n - A) / A)^2)) / I0(beta)``, ``A = (N - 1) / 2``
    (I0: the modified Bessel function of the first kind, order 0)."""
    def values(m, step, work):
        a = (m - 1) / 2.0
        r = (np.arange(m, dtype=np.float64) - a) / a
        return step(np.i0(beta * np.sqrt(np.maximum(1 - r * r, 0))) / np.i0(beta))

    return _window("kaiser_window", window_length, periodic, dtype, layout, device,
                   requires_grad, values)
