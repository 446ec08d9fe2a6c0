"""``torchvision.transforms.functional``: the image operations behind the transforms, on PIL
images (through Pillow, as torchvision), tensors ``(..., C, H, W)`` (jtorch ops:
differentiable) and, as a jtorch extension, NumPy ``H x W (x C)`` arrays (what jtorch's
MNIST returns; handled like PIL images).

Differences from torchvision:
    - NumPy ``H x W (x C)`` images are accepted by the geometric and color operations (crop,
      flip and pad in NumPy, the others through Pillow) and come back as NumPy arrays.
    - Inside jtorch's data pipeline (DataLoader host mode), crop/flip/pad of host tensors run in
      NumPy; the other tensor operations run on the device and hand back host tensors.

The file re-exports: the operations are in ``_functional_base.py`` and, for the augmentation
ones (posterize, solarize, equalize, perspective, elastic, the multi-crops),
``_functional_augment.py``; the few private helpers re-exported are those other transform
modules read as ``F._is_pil_image`` (as torchvision's code does).
"""

from __future__ import annotations

from ._functional_augment import (
    adjust_sharpness as adjust_sharpness,
    autocontrast as autocontrast,
    elastic_transform as elastic_transform,
    equalize as equalize,
    five_crop as five_crop,
    perspective as perspective,
    posterize as posterize,
    solarize as solarize,
    ten_crop as ten_crop,
)
from ._functional_base import (
    InterpolationMode as InterpolationMode,
    _interpolation_modes_from_int as _interpolation_modes_from_int,
    _is_pil_image as _is_pil_image,
    _pil as _pil,
    _to_chw as _to_chw,
    adjust_brightness as adjust_brightness,
    adjust_contrast as adjust_contrast,
    adjust_gamma as adjust_gamma,
    adjust_hue as adjust_hue,
    adjust_saturation as adjust_saturation,
    affine as affine,
    center_crop as center_crop,
    convert_image_dtype as convert_image_dtype,
    crop as crop,
    erase as erase,
    gaussian_blur as gaussian_blur,
    get_dimensions as get_dimensions,
    get_image_num_channels as get_image_num_channels,
    get_image_size as get_image_size,
    hflip as hflip,
    invert as invert,
    normalize as normalize,
    pad as pad,
    pil_modes_mapping as pil_modes_mapping,
    pil_to_tensor as pil_to_tensor,
    resize as resize,
    resized_crop as resized_crop,
    rgb_to_grayscale as rgb_to_grayscale,
    rotate as rotate,
    to_grayscale as to_grayscale,
    to_pil_image as to_pil_image,
    to_tensor as to_tensor,
    vflip as vflip,
)

__all__ = ["InterpolationMode", "adjust_brightness", "adjust_contrast", "adjust_gamma",
           "adjust_hue", "adjust_saturation", "adjust_sharpness", "affine", "autocontrast",
           "center_crop", "convert_image_dtype", "crop", "elastic_transform", "equalize", "erase",
           "five_crop", "gaussian_blur", "get_dimensions", "get_image_num_channels",
           "get_image_size", "hflip", "invert", "normalize", "pad", "perspective",
           "pil_to_tensor", "posterize", "resize", "resized_crop", "rgb_to_grayscale", "rotate",
           "solarize", "ten_crop", "to_grayscale", "to_pil_image", "to_tensor", "vflip"]
