"""``torchvision.transforms.v2.functional``: the v1 operations under their v2 names
(``horizontal_flip``, ``vertical_flip``, ``to_image``, ``to_dtype``...)."""

from __future__ import annotations

import numpy as np

import jtorch

from .. import _functional_tensor as _F_t
from ..functional import InterpolationMode as InterpolationMode
from ..functional import adjust_brightness as adjust_brightness
from ..functional import adjust_contrast as adjust_contrast
from ..functional import adjust_gamma as adjust_gamma
from ..functional import adjust_hue as adjust_hue
from ..functional import adjust_saturation as adjust_saturation
from ..functional import affine as affine
from ..functional import center_crop as center_crop
from ..functional import crop as crop
from ..functional import erase as erase
from ..functional import get_dimensions as get_dimensions
from ..functional import hflip as horizontal_flip
from ..functional import invert as invert
from ..functional import normalize as normalize
from ..functional import pad as pad
from ..functional import pil_to_tensor as pil_to_tensor
from ..functional import resize as resize
from ..functional import resized_crop as resized_crop
from ..functional import rgb_to_grayscale as rgb_to_grayscale
from ..functional import rotate as rotate
from ..functional import to_grayscale as to_grayscale
from ..functional import to_pil_image as to_pil_image
from ..functional import to_tensor as to_tensor
from ..functional import vflip as vertical_flip

__all__ = ["InterpolationMode", "adjust_brightness", "adjust_contrast", "adjust_gamma",
           "adjust_hue", "adjust_saturation", "affine", "center_crop", "crop", "erase",
           "get_dimensions", "get_size", "horizontal_flip", "invert", "normalize", "pad",
           "pil_to_tensor", "resize", "resized_crop", "rgb_to_grayscale", "rotate",
           "to_dtype", "to_grayscale", "to_image", "to_pil_image", "to_tensor",
           "vertical_flip"]


def get_size(inpt) -> list[int]:
    """``[height, width]``."""
    return get_dimensions(inpt)[1:]


def to_image(inpt):
    """PIL image or NumPy ``H x W (x C)`` -> ``C x H x W`` tensor (dtype kept)."""
    if isinstance(inpt, jtorch.Tensor):
        return inpt
    if isinstance(inpt, np.ndarray):
        arr = inpt[..., None] if inpt.ndim == 2 else inpt
        return jtorch.from_numpy(np.ascontiguousarray(arr.transpose(2, 0, 1)))
    return pil_to_tensor(inpt)


def to_dtype(inpt, dtype=jtorch.float, scale: bool = False):
    """``inpt.to(dtype)``, rescaling the value range when ``scale``."""
    if not scale:
        return inpt.to(dtype)
    return _F_t.convert_image_dtype(inpt, dtype)
