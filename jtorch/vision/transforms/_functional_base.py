"""The operations of ``torchvision.transforms.functional`` (jtorch/vision/transforms/
functional.py re-exports them) but the augmentation ones (``_functional_augment.py``), with
the helpers both use: how an image's kind (PIL, tensor, NumPy) picks its implementation."""

from __future__ import annotations

import math
import numbers
import sys
import warnings
from enum import Enum

import numpy as np

from jtorch._tensor import Tensor

from ..._core.dtypes import float32, get_default_dtype
from ...utils.data import _worker as worker
from . import _functional_tensor as F_t

__all__ = ["InterpolationMode", "adjust_brightness", "adjust_contrast", "adjust_gamma",
           "adjust_hue", "adjust_saturation", "affine", "center_crop", "convert_image_dtype",
           "crop", "erase", "gaussian_blur", "get_dimensions", "get_image_num_channels",
           "get_image_size", "hflip", "invert", "normalize", "pad", "pil_to_tensor", "resize",
           "resized_crop", "rgb_to_grayscale", "rotate", "to_grayscale", "to_pil_image",
           "to_tensor", "vflip"]


class InterpolationMode(Enum):
    """Interpolation modes: ``nearest``, ``nearest-exact``, ``bilinear``, ``bicubic``, and
    for PIL only ``box``, ``hamming``, ``lanczos``."""

    NEAREST = "nearest"
    NEAREST_EXACT = "nearest-exact"
    BILINEAR = "bilinear"
    BICUBIC = "bicubic"
    BOX = "box"
    HAMMING = "hamming"
    LANCZOS = "lanczos"


def _interpolation_modes_from_int(i: int) -> InterpolationMode:
    return {0: InterpolationMode.NEAREST, 2: InterpolationMode.BILINEAR,
            3: InterpolationMode.BICUBIC, 4: InterpolationMode.BOX,
            5: InterpolationMode.HAMMING, 1: InterpolationMode.LANCZOS}[i]


pil_modes_mapping = {InterpolationMode.NEAREST: 0, InterpolationMode.BILINEAR: 2,
                     InterpolationMode.BICUBIC: 3, InterpolationMode.NEAREST_EXACT: 0,
                     InterpolationMode.BOX: 4, InterpolationMode.HAMMING: 5,
                     InterpolationMode.LANCZOS: 1}


def _is_pil_image(img) -> bool:
    pil = sys.modules.get("PIL.Image")  # no PIL image can exist before Pillow is imported
    return pil is not None and isinstance(img, pil.Image)


def _pil():
    from . import _functional_pil  # Pillow is optional: loaded only for PIL/NumPy images
    return _functional_pil


def _interp(interpolation):
    if isinstance(interpolation, int):
        return _interpolation_modes_from_int(interpolation)
    if not isinstance(interpolation, InterpolationMode):
        raise TypeError("Argument interpolation should be a InterpolationMode or a "
                        "corresponding Pillow integer constant")
    return interpolation


# ------------------------------------------------------------------ dispatch
def _tensor_op(fn, img, *args, **kwargs):
    """``fn`` (a jtorch computation) on tensor ``img``; a host tensor (jtorch's data pipeline)
    goes to the device and comes back as a host tensor."""
    if worker.is_host(img):
        out = fn(worker.to_device(worker.host_value(img)), *args, **kwargs)
        return worker.host_tensor(worker.host_value(out))
    return fn(img, *args, **kwargs)


def _via_pil(arr, name, *args, **kwargs):
    """A PIL operation on a NumPy ``H x W (x C)`` image, returned as NumPy."""
    pil = _pil()
    return np.asarray(getattr(pil, name)(pil.Image.fromarray(arr), *args, **kwargs))


def _dispatch(img, name, *args, _impl=F_t, **kwargs):
    """``name`` from the tensor (module ``_impl``), PIL or (through PIL) NumPy
    implementation."""
    if isinstance(img, Tensor):
        return _tensor_op(getattr(_impl, name), img, *args, **kwargs)
    if isinstance(img, np.ndarray):
        return _via_pil(img, name, *args, **kwargs)
    return getattr(_pil(), name)(img, *args, **kwargs)


def _np_layout(img):
    """(array, H axis, rebuild) for the NumPy fast paths: NumPy ``H x W (x C)`` images and
    host tensors ``(..., H, W)``; None for device tensors and PIL images."""
    if isinstance(img, np.ndarray):
        return img, 0, lambda a: np.ascontiguousarray(a)
    if isinstance(img, Tensor) and worker.is_host(img):
        arr = worker.host_value(img)
        return arr, arr.ndim - 2, lambda a: worker.host_tensor(np.ascontiguousarray(a))
    return None


def get_dimensions(img) -> list[int]:
    """The ``[channels, height, width]`` of an image."""
    if isinstance(img, Tensor):
        return F_t.get_dimensions(img)
    if isinstance(img, np.ndarray):
        return [1 if img.ndim == 2 else img.shape[2], img.shape[0], img.shape[1]]
    return _pil().get_dimensions(img)


def get_image_size(img) -> list[int]:
    """The ``[width, height]`` of an image."""
    _, h, w = get_dimensions(img)
    return [w, h]


def get_image_num_channels(img) -> int:
    """The number of channels of an image."""
    return get_dimensions(img)[0]


# ------------------------------------------------------------------ conversions
def _to_chw(arr, lead):
    """``lead`` leading dims, then H x W (x C) -> C x H x W; uint8 -> default float / 255."""
    if arr.ndim == lead + 2:
        arr = arr[..., None]
    arr = np.moveaxis(arr, -1, -3)
    if arr.dtype == np.uint8:
        f = get_default_dtype().np
        out = np.empty(arr.shape, f)
        np.true_divide(arr, f.type(255), out=out, dtype=f)
        return out
    return np.ascontiguousarray(arr)


def _out(arr):
    """A finished per-sample array as a tensor: host in host mode, else one transfer."""
    return worker.host_tensor(arr) if worker.host_mode() else worker.to_device(arr)


def _pil_array(pic):
    mode_to_nptype = {"I": np.int32, "I;16" if sys.byteorder == "little" else "I;16B": np.int16,
                      "F": np.float32}
    arr = np.array(pic, mode_to_nptype.get(pic.mode, np.uint8), copy=True)
    if pic.mode == "1":
        arr = 255 * arr
    return arr.reshape(pic.size[1], pic.size[0], len(pic.getbands()))


def to_tensor(pic):
    """A PIL image or NumPy ``H x W (x C)`` array as a ``C x H x W`` tensor; ``uint8`` becomes
    the default float dtype scaled to [0, 1], other dtypes keep their values."""
    if not (_is_pil_image(pic) or isinstance(pic, np.ndarray)):
        raise TypeError(f"pic should be PIL Image or ndarray. Got {type(pic)}")
    if isinstance(pic, np.ndarray) and pic.ndim not in (2, 3):
        raise ValueError(f"pic should be 2/3 dimensional. Got {pic.ndim} dimensions.")
    arr = pic if isinstance(pic, np.ndarray) else _pil_array(pic)
    return _out(_to_chw(arr, 0))


def pil_to_tensor(pic):
    """A PIL image as a ``C x H x W`` tensor of the same dtype (no scaling)."""
    if not _is_pil_image(pic):
        raise TypeError(f"pic should be PIL Image. Got {type(pic)}")
    arr = np.array(pic, copy=True).reshape(pic.size[1], pic.size[0], len(pic.getbands()))
    return _out(np.ascontiguousarray(arr.transpose(2, 0, 1)))


def convert_image_dtype(image, dtype=float32):
    """Converts a tensor image to ``dtype``, scaling values (ints use their full range)."""
    if not isinstance(image, Tensor):
        raise TypeError("Input img should be Tensor Image")
    return _tensor_op(F_t.convert_image_dtype, image, dtype)


def to_pil_image(pic, mode=None):
    """A ``C x H x W`` tensor or ``H x W x C`` array as a PIL image (floats are scaled by
    255)."""
    if isinstance(pic, Tensor):
        if pic.ndim == 3:
            pic = pic.permute((1, 2, 0))
        pic = worker.host_value(pic) if worker.is_host(pic) else pic.detach().cpu().numpy()
    elif not isinstance(pic, np.ndarray):
        raise TypeError(f"pic should be Tensor or ndarray. Got {type(pic)}.")
    if pic.ndim == 2:
        pic = np.expand_dims(pic, 2)
    if pic.ndim != 3:
        raise ValueError(f"pic should be 2/3 dimensional. Got {pic.ndim} dimensions.")
    if pic.shape[-1] > 4:
        raise ValueError(f"pic should not have > 4 channels. Got {pic.shape[-1]} channels.")
    npimg = pic
    if np.issubdtype(npimg.dtype, np.floating) and mode != "F":
        npimg = (npimg * 255).astype(np.uint8)
    if npimg.shape[2] == 1:
        npimg = npimg[:, :, 0]
        expected_mode = {np.dtype(np.uint8): "L",
                         np.dtype(np.int16): "I;16" if sys.byteorder == "little" else "I;16B",
                         np.dtype(np.int32): "I", np.dtype(np.float32): "F"}.get(npimg.dtype)
        if mode is not None and mode != expected_mode:
            raise ValueError(f"Incorrect mode ({mode}) supplied for input type {np.dtype}. "
                             f"Should be {expected_mode}")
        mode = expected_mode
    else:
        permitted = {2: ["LA"], 4: ["RGBA", "CMYK", "RGBX"], 3: ["RGB", "YCbCr", "HSV"]}[
            npimg.shape[2]]
        if mode is not None and mode not in permitted:
            raise ValueError(f"Only modes {permitted} are supported for {npimg.shape[2]}D inputs")
        if mode is None and npimg.dtype == np.uint8:
            mode = permitted[0]
    if mode is None:
        raise TypeError(f"Input type {npimg.dtype} is not supported")
    return _pil()._Image_fromarray(npimg, mode=mode)


def normalize(tensor, mean, std, inplace: bool = False):
    """``(tensor - mean[c]) / std[c]`` per channel of a float ``(..., C, H, W)`` tensor."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"img should be Tensor Image. Got {type(tensor)}")
    if worker.is_host(tensor):
        F_t.check_normalize(tensor, std)  # then NumPy: bit-exact, and no JAX call
        arr = worker.host_value(tensor)
        m = np.asarray(mean, arr.dtype)
        s = np.asarray(std, arr.dtype)
        m, s = (m.reshape(-1, 1, 1) if m.ndim == 1 else m), (s.reshape(-1, 1, 1) if s.ndim == 1
                                                            else s)
        if inplace:
            np.subtract(arr, m, out=arr)
            np.divide(arr, s, out=arr)
            return tensor
        return worker.host_tensor((arr - m) / s)
    return F_t.normalize(tensor, mean=mean, std=std, inplace=inplace)


# ------------------------------------------------------------------ geometry
def _compute_resized_output_size(image_size, size, max_size=None, allow_size_none=False):
    h, w = image_size
    short, long = (w, h) if w <= h else (h, w)
    if size is None:
        if not allow_size_none:
            raise ValueError("This should never happen!!")
        if not isinstance(max_size, int):
            raise ValueError("max_size must be an integer when size is None, but got "
                             f"{max_size} instead.")
        new_short, new_long = int(max_size * short / long), max_size
        new_w, new_h = (new_short, new_long) if w <= h else (new_long, new_short)
    elif len(size) == 1:
        requested_new_short = size if isinstance(size, int) else size[0]
        new_short, new_long = requested_new_short, int(requested_new_short * long / short)
        if max_size is not None:
            if max_size <= requested_new_short:
                raise ValueError(f"max_size = {max_size} must be strictly greater than the "
                                 f"requested size for the smaller edge size = {size}")
            if new_long > max_size:
                new_short, new_long = int(max_size * new_short / new_long), max_size
        new_w, new_h = (new_short, new_long) if w <= h else (new_long, new_short)
    else:
        new_w, new_h = size[1], size[0]
    return [new_h, new_w]


def resize(img, size, interpolation=InterpolationMode.BILINEAR, max_size=None, antialias=True):
    """Resizes an image; an int ``size`` (or one-element list) sets the shorter edge.

    Args:
        img (PIL Image or Tensor): the image.
        size (int or sequence): ``(h, w)`` or the shorter edge's length.
        interpolation (InterpolationMode): Default BILINEAR
        max_size (int, optional): the longer edge's bound (with an int ``size``).
        antialias (bool): antialias when downsampling tensors (PIL always does). Default True
    """
    interpolation = _interp(interpolation)
    if isinstance(size, (list, tuple)):
        if len(size) not in [1, 2]:
            raise ValueError("Size must be an int or a 1 or 2 element tuple/list, not a "
                             f"{len(size)} element tuple/list")
        if max_size is not None and len(size) != 1:
            raise ValueError("max_size should only be passed if size specifies the length of the "
                             "smaller edge, i.e. size should be an int or a sequence of length 1 "
                             "in torchscript mode.")
    _, image_height, image_width = get_dimensions(img)
    if isinstance(size, int):
        size = [size]
    output_size = _compute_resized_output_size((image_height, image_width), size, max_size)
    if [image_height, image_width] == output_size:
        return img
    if not isinstance(img, Tensor):
        if antialias is False:
            warnings.warn("Anti-alias option is always applied for PIL Image input. Argument "
                          "antialias is ignored.", stacklevel=2)
        return _dispatch(img, "resize", size=output_size,
                         interpolation=pil_modes_mapping[interpolation])
    return _tensor_op(F_t.resize, img, size=output_size, interpolation=interpolation.value,
                      antialias=antialias)


def _np_pad(arr, h_ax, padding, fill, padding_mode):
    p = F_t._parse_pad_padding(list(padding) if isinstance(padding, tuple) else padding)
    left, right, top, bottom = p
    if min(p) < 0:  # negative padding crops
        sl = [slice(None)] * arr.ndim
        sl[h_ax] = slice(max(-top, 0), arr.shape[h_ax] - max(-bottom, 0))
        sl[h_ax + 1] = slice(max(-left, 0), arr.shape[h_ax + 1] - max(-right, 0))
        arr = arr[tuple(sl)]
        left, right, top, bottom = (max(x, 0) for x in p)
    pads = [(0, 0)] * arr.ndim
    pads[h_ax], pads[h_ax + 1] = (top, bottom), (left, right)
    if padding_mode == "constant":
        return np.pad(arr, pads, constant_values=fill)
    return np.pad(arr, pads, mode=padding_mode)


def pad(img, padding, fill=0, padding_mode: str = "constant"):
    """Pads an image: ``padding`` is an int, ``(lr, tb)`` or ``(l, t, r, b)``; ``padding_mode``
    is ``constant`` (with ``fill``), ``edge``, ``reflect`` or ``symmetric``."""
    lay = _np_layout(img)
    if lay is not None and isinstance(fill, numbers.Number):
        F_t._parse_pad_padding(padding)  # argument checks as the tensor path
        if padding_mode not in ["constant", "edge", "reflect", "symmetric"]:
            raise ValueError("Padding mode should be either constant, edge, reflect or "
                             "symmetric")
        arr, h_ax, back = lay
        return back(_np_pad(arr, h_ax, padding, fill, padding_mode))
    return _dispatch(img, "pad", padding=padding, fill=fill, padding_mode=padding_mode)


def crop(img, top: int, left: int, height: int, width: int):
    """The ``height x width`` window at ``(top, left)``; outside the image is 0."""
    lay = _np_layout(img)
    if lay is not None:
        arr, h_ax, back = lay
        h, w = arr.shape[h_ax], arr.shape[h_ax + 1]
        right, bottom = left + width, top + height
        padding = [max(-left + min(0, right), 0), max(-top + min(0, bottom), 0),
                   max(right - max(w, left), 0), max(bottom - max(h, top), 0)]
        sl = [slice(None)] * arr.ndim
        sl[h_ax], sl[h_ax + 1] = slice(max(top, 0), bottom), slice(max(left, 0), right)
        arr = arr[tuple(sl)]
        if any(padding):
            arr = _np_pad(arr, h_ax, padding, 0, "constant")
        return back(arr)
    if isinstance(img, Tensor):
        return F_t.crop(img, top, left, height, width)
    return _pil().crop(img, top, left, height, width)


def center_crop(img, output_size):
    """The centered ``output_size`` window (zero-padded when the image is smaller)."""
    if isinstance(output_size, numbers.Number):
        output_size = (int(output_size), int(output_size))
    elif isinstance(output_size, (tuple, list)) and len(output_size) == 1:
        output_size = (output_size[0], output_size[0])
    _, image_height, image_width = get_dimensions(img)
    crop_height, crop_width = output_size
    if crop_width > image_width or crop_height > image_height:
        padding_ltrb = [
            (crop_width - image_width) // 2 if crop_width > image_width else 0,
            (crop_height - image_height) // 2 if crop_height > image_height else 0,
            (crop_width - image_width + 1) // 2 if crop_width > image_width else 0,
            (crop_height - image_height + 1) // 2 if crop_height > image_height else 0]
        img = pad(img, padding_ltrb, fill=0)
        _, image_height, image_width = get_dimensions(img)
        if crop_width == image_width and crop_height == image_height:
            return img
    crop_top = int(round((image_height - crop_height) / 2.0))
    crop_left = int(round((image_width - crop_width) / 2.0))
    return crop(img, crop_top, crop_left, crop_height, crop_width)


def resized_crop(img, top: int, left: int, height: int, width: int, size,
                 interpolation=InterpolationMode.BILINEAR, antialias=True):
    """``crop`` then ``resize``."""
    return resize(crop(img, top, left, height, width), size, interpolation, antialias=antialias)


def _flip(img, name, axis_from_h):
    lay = _np_layout(img)
    if lay is not None:
        arr, h_ax, back = lay
        return back(np.flip(arr, h_ax + axis_from_h))
    if isinstance(img, Tensor):
        return getattr(F_t, name)(img)
    return getattr(_pil(), name)(img)


def hflip(img):
    """Flips an image left-right."""
    return _flip(img, "hflip", 1)


def vflip(img):
    """Flips an image top-bottom."""
    return _flip(img, "vflip", 0)


def _get_inverse_affine_matrix(center, angle, translate, scale, shear, inverted=True):
    # M = T * C * RotateScaleShear * C^-1 (as torchvision); PIL wants the inverse
    rot = math.radians(angle)
    sx, sy = math.radians(shear[0]), math.radians(shear[1])
    cx, cy = center
    tx, ty = translate
    a = math.cos(rot - sy) / math.cos(sy)
    b = -math.cos(rot - sy) * math.tan(sx) / math.cos(sy) - math.sin(rot)
    c = math.sin(rot - sy) / math.cos(sy)
    d = -math.sin(rot - sy) * math.tan(sx) / math.cos(sy) + math.cos(rot)
    if inverted:
        matrix = [x / scale for x in [d, -b, 0.0, -c, a, 0.0]]
        matrix[2] += matrix[0] * (-cx - tx) + matrix[1] * (-cy - ty)
        matrix[5] += matrix[3] * (-cx - tx) + matrix[4] * (-cy - ty)
        matrix[2] += cx
        matrix[5] += cy
    else:
        matrix = [x * scale for x in [a, b, 0.0, c, d, 0.0]]
        matrix[2] += matrix[0] * (-cx) + matrix[1] * (-cy)
        matrix[5] += matrix[3] * (-cx) + matrix[4] * (-cy)
        matrix[2] += cx + tx
        matrix[5] += cy + ty
    return matrix


def rotate(img, angle: float, interpolation=InterpolationMode.NEAREST, expand: bool = False,
           center=None, fill=None):
    """Rotates an image by ``angle`` degrees counter-clockwise about ``center``."""
    interpolation = _interp(interpolation)
    if not isinstance(angle, (int, float)):
        raise TypeError("Argument angle should be int or float")
    if center is not None and not isinstance(center, (list, tuple)):
        raise TypeError("Argument center should be a sequence")
    if not isinstance(img, Tensor):
        return _dispatch(img, "rotate", angle=angle,
                         interpolation=pil_modes_mapping[interpolation], expand=expand,
                         center=center, fill=fill)
    center_f = [0.0, 0.0]
    if center is not None:
        _, height, width = get_dimensions(img)
        center_f = [1.0 * (c - s * 0.5) for c, s in zip(center, [width, height])]
    matrix = _get_inverse_affine_matrix(center_f, -angle, [0.0, 0.0], 1.0, [0.0, 0.0])
    return _tensor_op(F_t.rotate, img, matrix=matrix, interpolation=interpolation.value,
                      expand=expand, fill=fill)


def affine(img, angle: float, translate, scale: float, shear,
           interpolation=InterpolationMode.NEAREST, fill=None, center=None):
    """Rotation, translation, scale and shear about the image center (or ``center``)."""
    interpolation = _interp(interpolation)
    if not isinstance(angle, (int, float)):
        raise TypeError("Argument angle should be int or float")
    if not isinstance(translate, (list, tuple)) or len(translate) != 2:
        raise TypeError("Argument translate should be a sequence of length 2")
    if scale <= 0.0:
        raise ValueError("Argument scale should be positive")
    if isinstance(shear, numbers.Number):
        shear = [shear, 0.0]
    shear = list(shear)
    if len(shear) == 1:
        shear = [shear[0], shear[0]]
    if len(shear) != 2:
        raise ValueError(f"Shear should be a sequence containing two values. Got {shear}")
    _, height, width = get_dimensions(img)
    if not isinstance(img, Tensor):
        center = [width * 0.5, height * 0.5] if center is None else center
        matrix = _get_inverse_affine_matrix(center, float(angle), list(translate), scale, shear)
        return _dispatch(img, "affine", matrix=matrix,
                         interpolation=pil_modes_mapping[interpolation], fill=fill)
    center_f = [0.0, 0.0]
    if center is not None:
        center_f = [1.0 * (c - s * 0.5) for c, s in zip(center, [width, height])]
    matrix = _get_inverse_affine_matrix(center_f, float(angle), [1.0 * t for t in translate],
                                        scale, shear)
    return _tensor_op(F_t.affine, img, matrix=matrix, interpolation=interpolation.value,
                      fill=fill)


# ------------------------------------------------------------------ color
def adjust_brightness(img, brightness_factor: float):
    """Scales brightness (0 gives black, 1 the original)."""
    return _dispatch(img, "adjust_brightness", brightness_factor)


def adjust_contrast(img, contrast_factor: float):
    """Blends with the mean gray level (0 gives gray, 1 the original)."""
    return _dispatch(img, "adjust_contrast", contrast_factor)


def adjust_saturation(img, saturation_factor: float):
    """Blends with the grayscale image (0 gives gray, 1 the original)."""
    return _dispatch(img, "adjust_saturation", saturation_factor)


def adjust_hue(img, hue_factor: float):
    """Shifts the hue by ``hue_factor`` in [-0.5, 0.5] of the color circle."""
    return _dispatch(img, "adjust_hue", hue_factor)


def adjust_gamma(img, gamma: float, gain: float = 1):
    """``gain * img ** gamma`` (on [0, 1] intensities)."""
    return _dispatch(img, "adjust_gamma", gamma, gain)


def to_grayscale(img, num_output_channels=1):
    """A PIL image in grayscale (1 or 3 channels)."""
    if _is_pil_image(img):
        return _pil().to_grayscale(img, num_output_channels)
    raise TypeError("Input should be PIL Image")


def rgb_to_grayscale(img, num_output_channels: int = 1):
    """Grayscale ``0.2989 R + 0.587 G + 0.114 B`` (tensors), ``L`` mode (PIL)."""
    if isinstance(img, Tensor):
        return _tensor_op(F_t.rgb_to_grayscale, img, num_output_channels)
    if isinstance(img, np.ndarray):
        return _via_pil(img, "to_grayscale", num_output_channels)
    return _pil().to_grayscale(img, num_output_channels)


def invert(img):
    """Inverts the colors."""
    return _dispatch(img, "invert")


def gaussian_blur(img, kernel_size, sigma=None):
    """Blurs with a Gaussian kernel (odd ``kernel_size``, int or ``(kx, ky)``; ``sigma``
    default ``0.15 * ksize + 0.35``) over a reflect-padded image of the same size; PIL and
    NumPy images are blurred as tensors, as torchvision does."""
    if not isinstance(kernel_size, (int, list, tuple)):
        raise TypeError("kernel_size should be int or a sequence of integers. "
                        f"Got {type(kernel_size)}")
    if isinstance(kernel_size, int):
        kernel_size = [kernel_size, kernel_size]
    if len(kernel_size) != 2:
        raise ValueError("If kernel_size is a sequence its length should be 2. "
                         f"Got {len(kernel_size)}")
    for ksize in kernel_size:
        if ksize % 2 == 0 or ksize < 0:
            raise ValueError("kernel_size should have odd and positive integers. "
                             f"Got {kernel_size}")
    if sigma is None:
        sigma = [ksize * 0.15 + 0.35 for ksize in kernel_size]
    if not isinstance(sigma, (int, float, list, tuple)):
        raise TypeError(f"sigma should be either float or sequence of floats. Got {type(sigma)}")
    if isinstance(sigma, (int, float)):
        sigma = [float(sigma), float(sigma)]
    if len(sigma) == 1:
        sigma = [sigma[0], sigma[0]]
    if len(sigma) != 2:
        raise ValueError(f"If sigma is a sequence, its length should be 2. Got {len(sigma)}")
    for s in sigma:
        if s <= 0.0:
            raise ValueError(f"sigma should have positive values. Got {sigma}")
    if isinstance(img, Tensor):
        return _tensor_op(F_t.gaussian_blur, img, kernel_size, sigma)
    pil = img if not isinstance(img, np.ndarray) else _pil().Image.fromarray(img)
    if not _is_pil_image(pil):
        raise TypeError(f"img should be PIL Image or Tensor. Got {type(img)}")
    out = to_pil_image(_tensor_op(F_t.gaussian_blur, pil_to_tensor(pil), kernel_size, sigma),
                       mode=pil.mode)
    return np.asarray(out) if isinstance(img, np.ndarray) else out


def erase(img, i: int, j: int, h: int, w: int, v, inplace: bool = False):
    """Sets the ``h x w`` window at ``(i, j)`` of a tensor image to ``v``."""
    if not isinstance(img, Tensor):
        raise TypeError(f"img should be Tensor Image. Got {type(img)}")
    return _tensor_op(F_t.erase, img, i, j, h, w, v, inplace=inplace)


