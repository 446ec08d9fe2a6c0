"""The tensor implementations of torchvision's autoaugment-style color operations (posterize,
solarize, sharpness, autocontrast, equalize), with jtorch ops and no Python branch on tensor
values: where torchvision tests a value (an all-equal channel, a histogram with one level) a
``where`` picks the result, so these run under ``jtorch.compile`` too."""

from __future__ import annotations

import jtorch.nn.functional as F

from ..._core.dtypes import float32, int64, uint8
from ..._ops.compare import isfinite, where
from ..._ops.creation import ones as torch_ones, zeros as torch_zeros
from ..._ops.reduction import amax, amin
from ._functional_tensor import (
    _assert_channels,
    _assert_image_tensor,
    _blend,
    _cast_squeeze_in,
    _cast_squeeze_out,
    _max_value,
    invert,
)


def _assert_3d(img) -> None:
    _assert_image_tensor(img)
    if img.ndim < 3:
        raise TypeError("Input image tensor should have at least 3 dimensions, but found "
                        f"{img.ndim}")


def _assert_uint8(img) -> None:
    if img.dtype != uint8:
        raise TypeError(f"Only torch.uint8 image tensors are supported, but found {img.dtype}")


def posterize(img, bits: int):
    _assert_3d(img)
    _assert_uint8(img)
    _assert_channels(img, [1, 3])
    return img & (256 - 2 ** (8 - bits))  # keeps the ``bits`` high bits


def solarize(img, threshold: float):
    _assert_3d(img)
    _assert_channels(img, [1, 3])
    if threshold > _max_value(img.dtype):
        raise TypeError("Threshold should be less than bound of img.")
    return where(img >= threshold, invert(img), img)


def _blurred_degenerate_image(img):
    """The image smoothed by PIL's SMOOTH kernel (1s around a 5) inside a 1-pixel border that
    keeps the original values."""
    dtype = img.dtype if img.is_floating_point() else float32
    kernel = torch_ones((3, 3), dtype=dtype)
    kernel[1, 1] = 5.0
    kernel = (kernel / kernel.sum()).expand(img.shape[-3], 1, 3, 3)
    tmp, need_cast, need_squeeze, out_dtype = _cast_squeeze_in(img, [kernel.dtype])
    tmp = _cast_squeeze_out(F.conv2d(tmp, kernel, groups=tmp.shape[-3]), need_cast,
                            need_squeeze, out_dtype)
    inside = torch_zeros(img.shape[-2:], dtype=uint8)
    inside[1:-1, 1:-1] = 1
    return where(inside.bool(), F.pad(tmp, [1, 1, 1, 1]), img)


def adjust_sharpness(img, sharpness_factor: float):
    if sharpness_factor < 0:
        raise ValueError(f"sharpness_factor ({sharpness_factor}) is not non-negative.")
    _assert_image_tensor(img)
    _assert_channels(img, [1, 3])
    if img.shape[-1] <= 2 or img.shape[-2] <= 2:
        return img
    return _blend(img, _blurred_degenerate_image(img), sharpness_factor)


def autocontrast(img):
    _assert_3d(img)
    _assert_channels(img, [1, 3])
    bound = _max_value(img.dtype)
    dtype = img.dtype if img.is_floating_point() else float32
    minimum = amin(img, dim=(-2, -1), keepdim=True).to(dtype)
    maximum = amax(img, dim=(-2, -1), keepdim=True).to(dtype)
    scale = bound / (maximum - minimum)
    flat = ~isfinite(scale)  # a constant channel is left as it is
    minimum = where(flat, 0.0, minimum)
    scale = where(flat, 1.0, scale)
    return ((img - minimum) * scale).clamp(0, bound).to(img.dtype)


def equalize(img):
    """Per channel: torchvision's histogram lookup table (``step`` = the pixels outside the
    brightest level / 255); a channel with ``step == 0`` is unchanged."""
    _assert_image_tensor(img)
    if not 3 <= img.ndim <= 4:
        raise TypeError("Input image tensor should have 3 or 4 dimensions, but found "
                        f"{img.ndim}")
    _assert_uint8(img)
    _assert_channels(img, [1, 3])
    h, w = img.shape[-2:]
    x = img.reshape(-1, h * w).to(int64)
    hist = torch_zeros((x.shape[0], 256), dtype=int64).scatter_add(1, x, torch_ones(
        x.shape, dtype=int64))
    top = hist.gather(1, amax(x, dim=1, keepdim=True))  # the count of the brightest level
    step = (h * w - top) // 255
    safe = where(step == 0, 1, step)
    lut = (hist.cumsum(1) + step // 2) // safe
    lut = F.pad(lut, [1, 0])[:, :-1].clamp(0, 255)
    out = where(step == 0, x, lut.gather(1, x))
    return out.to(uint8).reshape(img.shape)
