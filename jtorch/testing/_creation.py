"""torch.testing.make_tensor, ported from PyTorch 2.13's torch/testing/_creation.py: random test
tensors of a dtype in ``[low, high)`` with PyTorch's defaults, bounds checks and options.

Differences from PyTorch:
    - The values come from jtorch's generator, so a seed gives other numbers than in PyTorch
      (the ranges, dtypes and options are PyTorch's).
    - The float8 dtypes, complex32 and the unsigned 16/32/64-bit dtypes do not exist in jtorch.
    - ``memory_format`` goes through jtorch's ``clone(memory_format=...)``, whose result is
      row-major whatever the format (docs/differences.md).
"""

from __future__ import annotations

import collections.abc
import functools
import math
import warnings

from .._core import dtypes
from .._ops.creation import empty
from .._ops.creation_math import complex_
from .._ops.random_ops import randint
from .._ops.typeinfo import finfo, iinfo

__all__ = ["make_tensor"]

_INTEGRAL_TYPES = (dtypes.uint8, dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64)
_FLOATING_TYPES = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)
_COMPLEX_TYPES = (dtypes.complex64, dtypes.complex128)
_BOOLEAN_OR_INTEGRAL_TYPES = (dtypes.bool_, *_INTEGRAL_TYPES)
_FLOATING_OR_COMPLEX_TYPES = (*_FLOATING_TYPES, *_COMPLEX_TYPES)


def _uniform_random_(t, low, high):
    # uniform_ requires to - from <= the dtype's max: scale the range before and after
    if high - low >= finfo(t.dtype).max:
        return t.uniform_(low / 2, high / 2).mul_(2)
    return t.uniform_(low, high)


def _low_high(dtype, low, high, *, lowest_inclusive, highest_exclusive, default_low,
              default_high):
    """The user's bounds (or the defaults), checked and clamped to the dtype's range; integral
    bounds are ceiled."""
    low = low if low is not None else default_low
    high = high if high is not None else default_high
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got {low=} and {high=}")
    if low == high and dtype in _FLOATING_OR_COMPLEX_TYPES:
        warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating or "
                      "complex types is deprecated since 2.1 and will be removed in 2.3. Use "
                      "`torch.full(...)` instead.", FutureWarning, stacklevel=4)
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest_inclusive or low >= highest_exclusive:
        raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), "
                         f"but {dtype} only supports [{lowest_inclusive}, {highest_exclusive})")
    low = min(max(low, lowest_inclusive), highest_exclusive)
    high = min(max(high, lowest_inclusive), highest_exclusive)
    if dtype in _BOOLEAN_OR_INTEGRAL_TYPES:
        return math.ceil(low), math.ceil(high)
    return low, high


def make_tensor(*shape, dtype, device, low=None, high=None, requires_grad=False,
                noncontiguous=False, exclude_zero=False, memory_format=None):
    r"""A tensor of ``shape`` with values drawn uniformly from ``[low, high)``.

    Args:
        shape: integers, or one sequence of them.
        dtype: the dtype. device: the device.
        low, high: the range; clamped to the dtype's finite range. Defaults: bool [0, 2),
            uint8 [0, 10), signed integers [-9, 10), floating and complex [-9, 9) (for complex,
            the real and imaginary parts).
        requires_grad: for floating and complex dtypes.
        noncontiguous: a non-contiguous tensor (ignored below two elements).
        exclude_zero: zeros become 1 (bool, integers) or the dtype's ``tiny`` (floating and
            complex: as PyTorch's code does, ``tiny + 0j``, though its docstring says both
            parts).
        memory_format: the returned tensor's memory format (exclusive with noncontiguous).

    Raises:
        ValueError: ``requires_grad`` for an integral dtype, ``low >= high``, a NaN bound, or
            both ``noncontiguous`` and ``memory_format``. TypeError: an unsupported dtype.

    Example:
        >>> torch.testing.make_tensor(3, dtype=torch.float32, device="cpu", low=-1, high=1)
    """
    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError("The parameters `noncontiguous` and `memory_format` are mutually "
                         f"exclusive, but got {noncontiguous=} and {memory_format=}")
    if requires_grad and dtype in _BOOLEAN_OR_INTEGRAL_TYPES:
        raise ValueError("`requires_grad=True` is not supported for boolean and integral "
                         f"dtypes, but got {dtype=}")
    noncontiguous = noncontiguous and functools.reduce(lambda x, y: x * y, shape, 1) > 1
    if noncontiguous:  # twice the last dim, so the strided view holds distinct values
        shape = (*shape[:-1], 2 * shape[-1])

    if dtype is dtypes.bool_:
        low, high = _low_high(dtype, low, high, lowest_inclusive=0, highest_exclusive=2,
                              default_low=0, default_high=2)
        result = randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _BOOLEAN_OR_INTEGRAL_TYPES:
        info = iinfo(dtype)
        low, high = _low_high(dtype, low, high, lowest_inclusive=info.min,
                              highest_exclusive=info.max + (1 if dtype is not dtypes.int64
                                                            else 0),
                              default_low=-9, default_high=10)
        result = randint(low, high, shape, device=device, dtype=dtype)
    elif dtype in _FLOATING_OR_COMPLEX_TYPES:
        info = finfo(dtype)
        low, high = _low_high(dtype, low, high, lowest_inclusive=info.min,
                              highest_exclusive=info.max, default_low=-9, default_high=9)
        if dtype in _COMPLEX_TYPES:
            part = dtype.to_real()
            result = complex_(_uniform_random_(empty(shape, device=device, dtype=part), low,
                                               high),
                              _uniform_random_(empty(shape, device=device, dtype=part), low,
                                               high))
        else:
            result = _uniform_random_(empty(shape, device=device, dtype=dtype), low, high)
    else:
        raise TypeError(f"The requested dtype '{dtype}' is not supported by "
                        "torch.testing.make_tensor(). To request support, file an issue at: "
                        "https://github.com/pytorch/pytorch/issues")

    if noncontiguous:
        result = result[..., 1::2]  # offset by 1 to catch offset bugs too
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result[result == 0] = 1 if dtype in _BOOLEAN_OR_INTEGRAL_TYPES else finfo(dtype).tiny
    if dtype in _FLOATING_OR_COMPLEX_TYPES:
        result.requires_grad = requires_grad
    return result
