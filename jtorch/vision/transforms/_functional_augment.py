"""``transforms.functional``'s color operations of the auto-augment policies (posterize,
solarize, sharpness, autocontrast, equalize), ``perspective``, ``elastic_transform`` and the
multi-crops, on PIL images, tensors and NumPy images as the rest of ``functional`` (which
re-exports them)."""

from __future__ import annotations

import numbers
import warnings

import numpy as np

from jtorch._tensor import Tensor

from . import _functional_tensor as F_t, _functional_tensor_color as F_c
from ._functional_base import (
    InterpolationMode,
    _dispatch,
    _interp,
    _interpolation_modes_from_int,
    _is_pil_image,
    _pil,
    _tensor_op,
    center_crop,
    crop,
    get_dimensions,
    hflip,
    pil_modes_mapping,
    pil_to_tensor,
    to_pil_image,
    vflip,
)


def posterize(img, bits: int):
    """Keeps the ``bits`` (0-8) high bits of each channel (uint8 tensors, ``L``/``RGB``
    images)."""
    if not 0 <= bits <= 8:
        raise ValueError(f"The number if bits should be between 0 and 8. Got {bits}")
    return _dispatch(img, "posterize", bits, _impl=F_c)


def solarize(img, threshold: float):
    """Inverts the pixels at or above ``threshold``."""
    return _dispatch(img, "solarize", threshold, _impl=F_c)


def adjust_sharpness(img, sharpness_factor: float):
    """Blends with a smoothed image (0 blurs, 1 gives the original, 2 sharpens)."""
    return _dispatch(img, "adjust_sharpness", sharpness_factor, _impl=F_c)


def autocontrast(img):
    """Stretches each channel to the full value range (darkest -> 0, brightest -> max)."""
    return _dispatch(img, "autocontrast", _impl=F_c)


def equalize(img):
    """Equalizes the histogram of each channel (uint8 tensors, ``P``/``L``/``RGB`` images)."""
    return _dispatch(img, "equalize", _impl=F_c)


def _get_perspective_coeffs(startpoints, endpoints) -> list[float]:
    """The 8 coefficients of the perspective map taking ``endpoints`` to ``startpoints``
    (least squares in float64, rounded to float32 as torchvision)."""
    if len(startpoints) != 4 or len(endpoints) != 4:
        raise ValueError(f"Please provide exactly four corners, got {len(startpoints)} "
                         f"startpoints and {len(endpoints)} endpoints.")
    rows = []
    for (x, y), (u, v) in zip(endpoints, startpoints):
        rows.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        rows.append([0, 0, 0, x, y, 1, -v * x, -v * y])
    a = np.asarray(rows, dtype=np.float64)
    b = np.asarray(startpoints, dtype=np.float64).reshape(8)
    return np.linalg.lstsq(a, b, rcond=None)[0].astype(np.float32).tolist()


def perspective(img, startpoints, endpoints, interpolation=InterpolationMode.BILINEAR,
                fill=None):
    """Warps the image so that the corners ``startpoints`` move to ``endpoints`` (each
    ``[top-left, top-right, bottom-right, bottom-left]`` as ``[x, y]``)."""
    coeffs = _get_perspective_coeffs(startpoints, endpoints)
    interpolation = _interp(interpolation)
    if not isinstance(img, Tensor):
        return _dispatch(img, "perspective", coeffs,
                         interpolation=pil_modes_mapping[interpolation], fill=fill)
    return _tensor_op(F_t.perspective, img, coeffs, interpolation=interpolation.value,
                      fill=fill)


def _crop_size(size):
    if isinstance(size, numbers.Number):
        size = (int(size), int(size))
    elif isinstance(size, (tuple, list)) and len(size) == 1:
        size = (size[0], size[0])
    if len(size) != 2:
        raise ValueError("Please provide only two dimensions (h, w) for size.")
    return size


def five_crop(img, size):
    """The four corner crops and the center crop of ``size``: ``(tl, tr, bl, br, center)``."""
    size = _crop_size(size)
    _, image_height, image_width = get_dimensions(img)
    crop_height, crop_width = size
    if crop_width > image_width or crop_height > image_height:
        raise ValueError(f"Requested crop size {size} is bigger than input size "
                         f"{(image_height, image_width)}")
    bottom, right = image_height - crop_height, image_width - crop_width
    return (crop(img, 0, 0, crop_height, crop_width),
            crop(img, 0, right, crop_height, crop_width),
            crop(img, bottom, 0, crop_height, crop_width),
            crop(img, bottom, right, crop_height, crop_width),
            center_crop(img, [crop_height, crop_width]))


def ten_crop(img, size, vertical_flip: bool = False):
    """``five_crop`` of the image, then of its horizontal (or vertical) flip."""
    size = _crop_size(size)
    flipped = vflip(img) if vertical_flip else hflip(img)
    return five_crop(img, size) + five_crop(flipped, size)


def elastic_transform(img, displacement, interpolation=InterpolationMode.BILINEAR, fill=None):
    """Samples the image at the identity grid plus ``displacement`` (``1 x H x W x 2``, in
    ``grid_sample``'s normalized coordinates); PIL and NumPy images go through tensors."""
    if isinstance(interpolation, int):
        warnings.warn("Argument interpolation should be of type InterpolationMode instead of "
                      "int. Please, use InterpolationMode enum.", stacklevel=2)
        interpolation = _interpolation_modes_from_int(interpolation)
    if not isinstance(displacement, Tensor):
        raise TypeError("Argument displacement should be a Tensor")
    if isinstance(img, np.ndarray):  # as the PIL image it makes
        return np.asarray(elastic_transform(_pil().Image.fromarray(img), displacement,
                                            interpolation, fill))
    t_img = img
    if not isinstance(img, Tensor):
        if not _is_pil_image(img):
            raise TypeError(f"img should be PIL Image or Tensor. Got {type(img)}")
        t_img = pil_to_tensor(img)
    shape = type(t_img.shape)((1, *t_img.shape[-2:], 2))
    if shape != displacement.shape:
        raise ValueError(f"Argument displacement shape should be {shape}, but given "
                         f"{displacement.shape}")
    out = _tensor_op(F_t.elastic_transform, t_img, displacement,
                     interpolation=interpolation.value, fill=fill)
    return out if isinstance(img, Tensor) else to_pil_image(out, mode=img.mode)
