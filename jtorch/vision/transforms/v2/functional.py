"""``torchvision.transforms.v2.functional``: the v1 operations under their v2 names
(``horizontal_flip``, ``vertical_flip``, ``to_image``, ``to_dtype``...)."""

from __future__ import annotations

import numpy as np

from ...._core.dtypes import float32
from ...._ops.creation import from_numpy
from ...._tensor import Tensor
from .. import _functional_tensor as _F_t
from ..functional import (
    InterpolationMode as InterpolationMode,
    adjust_brightness as adjust_brightness,
    adjust_contrast as adjust_contrast,
    adjust_gamma as adjust_gamma,
    adjust_hue as adjust_hue,
    adjust_saturation as adjust_saturation,
    adjust_sharpness as adjust_sharpness,
    affine as affine,
    autocontrast as autocontrast,
    center_crop as center_crop,
    crop as crop,
    elastic_transform as elastic,
    elastic_transform as elastic_transform,
    equalize as equalize,
    erase as erase,
    five_crop as five_crop,
    gaussian_blur as gaussian_blur,
    get_dimensions as get_dimensions,
    hflip as horizontal_flip,
    invert as invert,
    normalize as normalize,
    pad as pad,
    perspective as perspective,
    pil_to_tensor as pil_to_tensor,
    posterize as posterize,
    resize as resize,
    resized_crop as resized_crop,
    rgb_to_grayscale as rgb_to_grayscale,
    rotate as rotate,
    solarize as solarize,
    ten_crop as ten_crop,
    to_grayscale as to_grayscale,
    to_pil_image as to_pil_image,
    to_tensor as to_tensor,
    vflip as vertical_flip,
)

__all__ = ["InterpolationMode", "adjust_brightness", "adjust_contrast", "adjust_gamma",
           "adjust_hue", "adjust_saturation", "adjust_sharpness", "affine", "autocontrast",
           "center_crop", "crop", "elastic", "elastic_transform", "equalize", "erase",
           "five_crop", "gaussian_blur", "get_dimensions", "get_size", "horizontal_flip",
           "invert", "normalize", "pad", "perspective", "pil_to_tensor", "posterize", "resize",
           "resized_crop", "rgb_to_grayscale", "rotate", "solarize", "ten_crop", "to_dtype",
           "to_grayscale", "to_image", "to_pil_image", "to_tensor", "vertical_flip"]


def get_size(inpt) -> list[int]:
    """``[height, width]``."""
    return get_dimensions(inpt)[1:]


def to_image(inpt):
    """PIL image or NumPy ``H x W (x C)`` -> ``C x H x W`` tensor (dtype kept)."""
    if isinstance(inpt, Tensor):
        return inpt
    if isinstance(inpt, np.ndarray):
        arr = inpt[..., None] if inpt.ndim == 2 else inpt
        return from_numpy(np.ascontiguousarray(arr.transpose(2, 0, 1)))
    return pil_to_tensor(inpt)


def to_dtype(inpt, dtype=float32, scale: bool = False):
    """``inpt.to(dtype)``, rescaling the value range when ``scale``."""
    if not scale:
        return inpt.to(dtype)
    if dtype.is_floating_point and not inpt.is_floating_point() and inpt.dtype != dtype:
        # v2 multiplies by the reciprocal of the maximum (v1's convert_image_dtype divides by
        # it): the two differ in the last bit of about half the values
        return inpt.to(dtype).mul_(1.0 / _F_t._max_value(inpt.dtype))
    return _F_t.convert_image_dtype(inpt, dtype)
