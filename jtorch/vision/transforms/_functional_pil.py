"""The PIL implementations behind ``transforms.functional`` (torchvision's
``_functional_pil.py``): the same Pillow calls, so results on PIL images are torchvision's.

This module imports Pillow at its top: ``functional`` imports it only when it is given a PIL
image (Pillow is an optional dependency of jtorch: the ``vision`` extra).
"""

from __future__ import annotations

import io
import numbers
import sys

import numpy as np
from PIL import Image, ImageEnhance, ImageOps


def _is_pil_image(img) -> bool:
    """True for a PIL image; never imports Pillow (no PIL image exists before it is loaded)."""
    pil = sys.modules.get("PIL.Image")
    return pil is not None and isinstance(img, pil.Image)


def _pillow_version():
    try:
        from PIL import __version__  # Pillow is imported at this module's top already
        return tuple(int(x) for x in __version__.split("."))
    except ValueError:
        return None


def _Image_fromarray(obj: np.ndarray, mode: str):
    """``Image.fromarray(obj, mode)`` with the pre-11.3 meaning of ``mode`` ("read the data as
    this mode"), which Pillow 11.3 deprecated; as torchvision's wrapper."""
    version = _pillow_version()
    if version is None or version < (11, 3):
        return Image.fromarray(obj, mode)
    arr = obj.__array_interface__
    shape = arr["shape"]
    size = 1 if len(shape) == 1 else shape[1], shape[0]
    data = obj.tobytes() if arr.get("strides", None) is not None else obj
    return Image.frombuffer(mode, size, data, "raw", mode, 0, 1)


def _check(img):
    if not _is_pil_image(img):
        raise TypeError(f"img should be PIL Image. Got {type(img)}")


def get_dimensions(img) -> list[int]:
    if _is_pil_image(img):
        width, height = img.size
        return [len(img.getbands()), height, width]
    raise TypeError(f"Unexpected type {type(img)}")


def get_image_size(img) -> list[int]:
    if _is_pil_image(img):
        return list(img.size)
    raise TypeError(f"Unexpected type {type(img)}")


def get_image_num_channels(img) -> int:
    if _is_pil_image(img):
        return len(img.getbands())
    raise TypeError(f"Unexpected type {type(img)}")


def hflip(img):
    _check(img)
    return img.transpose(Image.FLIP_LEFT_RIGHT)


def vflip(img):
    _check(img)
    return img.transpose(Image.FLIP_TOP_BOTTOM)


def adjust_brightness(img, brightness_factor: float):
    _check(img)
    return ImageEnhance.Brightness(img).enhance(brightness_factor)


def adjust_contrast(img, contrast_factor: float):
    _check(img)
    return ImageEnhance.Contrast(img).enhance(contrast_factor)


def adjust_saturation(img, saturation_factor: float):
    _check(img)
    return ImageEnhance.Color(img).enhance(saturation_factor)


def adjust_hue(img, hue_factor: float):
    if not (-0.5 <= hue_factor <= 0.5):
        raise ValueError(f"hue_factor ({hue_factor}) is not in [-0.5, 0.5].")
    _check(img)
    input_mode = img.mode
    if input_mode in {"L", "1", "I", "F"}:
        return img
    h, s, v = img.convert("HSV").split()
    np_h = np.array(h, dtype=np.uint8)
    np_h += np.int32(hue_factor * 255).astype(np.uint8)  # wraps around, as intended
    h = _Image_fromarray(np_h, "L")
    return Image.merge("HSV", (h, s, v)).convert(input_mode)


def adjust_gamma(img, gamma: float, gain: float = 1.0):
    _check(img)
    if gamma < 0:
        raise ValueError("Gamma should be a non-negative real number")
    input_mode = img.mode
    img = img.convert("RGB")
    gamma_map = [int((255 + 1 - 1e-3) * gain * pow(ele / 255.0, gamma))
                 for ele in range(256)] * 3
    return img.point(gamma_map).convert(input_mode)
def pad(img, padding, fill=0, padding_mode="constant"):

    _check(img)

    if not isinstance(padding, (numbers.Number, tuple, list)):
        raise TypeError("Got inappropriate padding arg")
    if fill is not None and not isinstance(fill, (numbers.Number, tuple, list)):
        raise TypeError("Got inappropriate fill arg")
    if not isinstance(padding_mode, str):
        raise TypeError("Got inappropriate padding_mode arg")

    if isinstance(padding, list):
        padding = tuple(padding)

    if isinstance(padding, tuple) and len(padding) not in [1, 2, 4]:
        raise ValueError("Padding must be an int or a 1, 2, or 4 element tuple, not a "
                         f"{len(padding)} element tuple")

    if isinstance(padding, tuple) and len(padding) == 1:
        # Compatibility with `functional_tensor.pad`
        padding = padding[0]

    if padding_mode not in ["constant", "edge", "reflect", "symmetric"]:
        raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")

    if padding_mode == "constant":
        opts = _parse_fill(fill, img, name="fill")
        if img.mode == "P":
            palette = img.getpalette()
            image = ImageOps.expand(img, border=padding, **opts)
            image.putpalette(palette)
            return image

        return ImageOps.expand(img, border=padding, **opts)
    else:
        if isinstance(padding, int):
            pad_left = pad_right = pad_top = pad_bottom = padding
        if isinstance(padding, tuple) and len(padding) == 2:
            pad_left = pad_right = padding[0]
            pad_top = pad_bottom = padding[1]
        if isinstance(padding, tuple) and len(padding) == 4:
            pad_left = padding[0]
            pad_top = padding[1]
            pad_right = padding[2]
            pad_bottom = padding[3]

        p = [pad_left, pad_top, pad_right, pad_bottom]
        cropping = -np.minimum(p, 0)

        if cropping.any():
            crop_left, crop_top, crop_right, crop_bottom = cropping
            img = img.crop((crop_left, crop_top, img.width - crop_right, img.height - crop_bottom))

        pad_left, pad_top, pad_right, pad_bottom = np.maximum(p, 0)

        if img.mode == "P":
            palette = img.getpalette()
            img = np.asarray(img)
            img = np.pad(img, ((pad_top, pad_bottom), (pad_left, pad_right)), mode=padding_mode)
            img = Image.fromarray(img)
            img.putpalette(palette)
            return img

        img = np.asarray(img)
        # RGB image
        if len(img.shape) == 3:
            img = np.pad(img, ((pad_top, pad_bottom), (pad_left, pad_right), (0, 0)), padding_mode)
        # Grayscale image
        if len(img.shape) == 2:
            img = np.pad(img, ((pad_top, pad_bottom), (pad_left, pad_right)), padding_mode)

        return Image.fromarray(img)


def crop(img, top, left, height, width):

    _check(img)

    return img.crop((left, top, left + width, top + height))


def resize(img, size, interpolation=Image.BILINEAR):

    _check(img)
    if not (isinstance(size, list) and len(size) == 2):
        raise TypeError(f"Got inappropriate size arg: {size}")

    return img.resize(tuple(size[::-1]), interpolation)


def _parse_fill(fill, img, name="fillcolor"):

    # Process fill color for affine transforms
    num_channels = get_image_num_channels(img)
    if fill is None:
        fill = 0
    if isinstance(fill, (int, float)) and num_channels > 1:
        fill = tuple([fill] * num_channels)
    if isinstance(fill, (list, tuple)):
        if len(fill) == 1:
            fill = fill * num_channels
        elif len(fill) != num_channels:
            raise ValueError("The number of elements in 'fill' does not match the number of "
                             f"channels of the image ({len(fill)} != {num_channels})")

        fill = tuple(fill)

    if img.mode != "F":
        if isinstance(fill, (list, tuple)):
            fill = tuple(int(x) for x in fill)
        else:
            fill = int(fill)

    return {name: fill}


def affine(img, matrix, interpolation=Image.NEAREST, fill=None):

    _check(img)

    output_size = img.size
    opts = _parse_fill(fill, img)
    return img.transform(output_size, Image.AFFINE, matrix, interpolation, **opts)


def rotate(img, angle, interpolation=Image.NEAREST, expand=False, center=None, fill=None):

    _check(img)

    opts = _parse_fill(fill, img)
    return img.rotate(angle, interpolation, expand, center, **opts)


def to_grayscale(img, num_output_channels):
    _check(img)

    if num_output_channels == 1:
        img = img.convert("L")
    elif num_output_channels == 3:
        img = img.convert("L")
        np_img = np.array(img, dtype=np.uint8)
        np_img = np.dstack([np_img, np_img, np_img])
        img = _Image_fromarray(np_img, "RGB")
    else:
        raise ValueError("num_output_channels should be either 1 or 3")

    return img


def invert(img):
    _check(img)
    return ImageOps.invert(img)


def perspective(img, perspective_coeffs, interpolation=Image.BICUBIC, fill=None):
    _check(img)
    opts = _parse_fill(fill, img)
    return img.transform(img.size, Image.PERSPECTIVE, perspective_coeffs, interpolation, **opts)


def posterize(img, bits):
    _check(img)
    return ImageOps.posterize(img, bits)


def solarize(img, threshold):
    _check(img)
    return ImageOps.solarize(img, threshold)


def adjust_sharpness(img, sharpness_factor):
    _check(img)
    return ImageEnhance.Sharpness(img).enhance(sharpness_factor)


def autocontrast(img):
    _check(img)
    return ImageOps.autocontrast(img)


def equalize(img):
    _check(img)
    return ImageOps.equalize(img)


def jpeg(img, quality):
    """``img`` after a JPEG encode (``quality`` 1-100) and decode, through Pillow."""
    _check(img)
    buf = io.BytesIO()
    img.save(buf, format="JPEG", quality=quality)
    return Image.open(buf).copy()  # the plain image, not Pillow's JpegImageFile
