"""``torchvision.transforms.v2.functional``: the v1 operations under their v2 names
(``horizontal_flip``, ``vertical_flip``, ``to_image``, ``to_dtype``...) and v2's own
(``gaussian_noise``, ``permute_channels``, ``grayscale_to_rgb``, ``jpeg``; v2's
``rgb_to_grayscale`` also turns one channel into three, v2's ``pad`` fills tensors with one value
per channel, v2's ``resize`` takes string modes)."""

from __future__ import annotations

import numpy as np

from ...._core.dtypes import float32, int16, uint8
from ...._ops.creation import from_numpy
from ...._ops.shape_copy import stack as _stack
from ...._tensor import Tensor
from ...io import decode_jpeg, encode_jpeg
from .. import _functional_tensor as _F_t, _random
from .._functional_base import _is_pil_image, _pil, _via_pil
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
    pad as _v1_pad,
    perspective as perspective,
    pil_to_tensor as pil_to_tensor,
    posterize as posterize,
    resize as _v1_resize,
    resized_crop as resized_crop,
    rgb_to_grayscale as _v1_rgb_to_grayscale,
    rotate as rotate,
    solarize as solarize,
    ten_crop as ten_crop,
    to_pil_image as to_pil_image,
    to_tensor as to_tensor,
    vflip as vertical_flip,
)

__all__ = ["InterpolationMode", "adjust_brightness", "adjust_contrast", "adjust_gamma",
           "adjust_hue", "adjust_saturation", "adjust_sharpness", "affine", "autocontrast",
           "center_crop", "crop", "elastic", "elastic_transform", "equalize", "erase",
           "five_crop", "gaussian_blur", "gaussian_noise", "get_dimensions", "get_size",
           "grayscale_to_rgb", "horizontal_flip", "invert", "jpeg", "normalize", "pad",
           "permute_channels", "perspective", "pil_to_tensor", "posterize", "resize",
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


def rgb_to_grayscale(inpt, num_output_channels: int = 1):
    """Grayscale ``0.2989 R + 0.587 G + 0.114 B`` with 1 or 3 channels (v2: a 1-channel tensor
    with ``num_output_channels=3`` is repeated to 3 channels)."""
    if num_output_channels not in (1, 3):
        raise ValueError(f"num_output_channels must be 1 or 3, got {num_output_channels}.")
    if isinstance(inpt, Tensor) and inpt.ndim >= 3 and inpt.shape[-3] == 1 \
            and num_output_channels == 3:
        return inpt.repeat(*[3 if d == inpt.ndim - 3 else 1 for d in range(inpt.ndim)])
    return _v1_rgb_to_grayscale(inpt, num_output_channels)


to_grayscale = rgb_to_grayscale  # v2's alias (v1's took PIL images only)


def grayscale_to_rgb(inpt):
    """A 1-channel image as 3 equal channels (3-channel images are returned as they are)."""
    if isinstance(inpt, Tensor):
        return inpt if inpt.shape[-3] >= 3 else rgb_to_grayscale(inpt, 3)
    if isinstance(inpt, np.ndarray):
        return inpt if inpt.ndim == 3 and inpt.shape[-1] >= 3 else np.repeat(
            inpt.reshape(*inpt.shape[:2], 1), 3, axis=-1)
    return inpt.convert(mode="RGB")


def permute_channels(inpt, permutation):
    """The channels reordered: output channel ``i`` is input channel ``permutation[i]``."""
    if _is_pil_image(inpt):
        return to_pil_image(permute_channels(pil_to_tensor(inpt), permutation))
    if isinstance(inpt, np.ndarray):
        return to_image(inpt)[list(permutation)].numpy().transpose(1, 2, 0)
    shape = inpt.shape
    num_channels, height, width = shape[-3:]
    if len(permutation) != num_channels:
        raise ValueError(f"Length of permutation does not match number of channels: "
                         f"{len(permutation)} != {num_channels}")
    if inpt.numel() == 0:
        return inpt
    return inpt.reshape(-1, num_channels, height, width)[:, list(permutation)].reshape(shape)


def gaussian_noise(inpt, mean: float = 0.0, sigma: float = 0.1, clip: bool = True):
    """``inpt`` plus noise ``N(mean, sigma)`` (on the ``[0, 1]`` scale for ``uint8`` too; the
    noise comes from jtorch's generator), clipped to the valid range when ``clip``."""
    if not isinstance(inpt, Tensor):
        if _is_pil_image(inpt):
            raise ValueError("Gaussian Noise is not implemented for PIL images.")
        return inpt
    if sigma < 0:
        raise ValueError(f"sigma shouldn't be negative. Got {sigma}")
    noise = from_numpy(_random.normal(tuple(inpt.shape))).to(inpt.device)
    if inpt.is_floating_point():
        out = inpt + (mean + noise.to(inpt.dtype) * sigma)
        return out.clamp(0, 1) if clip else out
    if inpt.dtype != uint8:
        raise ValueError(f"Input tensor is expected to be in uint8 or float dtype, got "
                         f"dtype={inpt.dtype}")
    out = inpt + ((mean * 255) + noise * (sigma * 255)).to(int16)
    return (out.clamp(0, 255) if clip else out).to(uint8)


def jpeg(image, quality: int):
    """``image`` after a JPEG encode (``quality`` 1-100) and decode; tensors ``(..., 1 or 3,
    H, W)`` ``uint8`` (Pillow's libjpeg-turbo, as ``jtorch.vision.io``), PIL images."""
    if _is_pil_image(image):
        return _pil().jpeg(image, quality)
    if isinstance(image, np.ndarray):
        return _via_pil(image, "jpeg", quality)
    flat = image.reshape(-1, *image.shape[-3:])
    if flat.shape[0] == 0:
        return image.clone()
    out = [decode_jpeg(encode_jpeg(flat[i], quality=quality)) for i in range(flat.shape[0])]
    return _stack(out).reshape(image.shape)


def pad(inpt, padding, fill=0, padding_mode: str = "constant"):
    """v1's ``pad``; a tensor's ``fill`` can also be one value per channel (``constant``)."""
    if not isinstance(inpt, Tensor) or not isinstance(fill, (list, tuple)):
        return _v1_pad(inpt, padding, fill, padding_mode)
    if len(fill) == 1:
        return _v1_pad(inpt, padding, fill[0], padding_mode)
    if padding_mode != "constant":
        raise ValueError(f"Padding mode '{padding_mode}' is not supported if fill is not scalar")
    out = _v1_pad(inpt, padding, 0, padding_mode)
    left, right, top, bottom = _F_t._parse_pad_padding(padding)
    value = from_numpy(np.asarray(fill, dtype=np.float32)).to(inpt.dtype).reshape(-1, 1, 1)
    for side, index in ((top, (..., slice(None, top), slice(None))),
                        (left, (..., slice(None), slice(None, left))),
                        (bottom, (..., slice(-bottom, None), slice(None))),
                        (right, (..., slice(None), slice(-right, None)))):
        if side > 0:
            out[index] = value
    return out


def resize(inpt, size, interpolation=InterpolationMode.BILINEAR, max_size=None, antialias=True):
    """v1's ``resize``; ``interpolation`` may also be a mode's string (``"bilinear"``)."""
    if isinstance(interpolation, str):
        modes = {m.value: m for m in InterpolationMode}
        if interpolation not in modes:
            raise ValueError(f"Invalid interpolation mode: '{interpolation}'. Supported string "
                             f"values are: {list(modes)}.")
        interpolation = modes[interpolation]
    elif not isinstance(interpolation, (int, InterpolationMode)):
        raise ValueError(f"Argument interpolation should be an `InterpolationMode` or a "
                         f"corresponding Pillow integer constant, but got {interpolation}.")
    return _v1_resize(inpt, size, interpolation, max_size=max_size, antialias=antialias)
