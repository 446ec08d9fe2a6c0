"""The tensor implementations behind ``transforms.functional`` (torchvision's
``_functional_tensor.py``), written with jtorch ops: differentiable, and free of Python
branches on tensor values (usable under ``jtorch.compile``).

Differences from torchvision: antialiased resizing (``antialias=True``, bilinear/bicubic) uses
PyTorch's antialias kernel weights applied as two matrix products; values agree with
``torch.nn.functional.interpolate(..., antialias=True)`` to float rounding.
"""

from __future__ import annotations

import warnings

import numpy as np

import jtorch.nn.functional as F

from ..._core.dtypes import float32, float64, int8, int16, int32, int64, uint8
from ..._ops.compare import clamp, where
from ..._ops.creation import (
    as_tensor,
    ones as torch_ones,
    ones_like,
    tensor as torch_tensor,
    zeros_like,
)
from ..._ops.creation_math import arange, linspace
from ..._ops.linalg_einsum import einsum
from ..._ops.pointwise import div, fmod
from ..._ops.pointwise_math import floor, round as torch_round
from ..._ops.reduction import max as torch_max, mean as torch_mean, min as torch_min
from ..._ops.shape_copy import cat, stack
from ..._tensor import Tensor

_INT_DTYPES = (uint8, int8, int16, int32, int64)


def _assert_image_tensor(img) -> None:
    if img.ndim < 2:
        raise TypeError("Tensor is not a torch image.")


def get_dimensions(img) -> list[int]:
    _assert_image_tensor(img)
    channels = 1 if img.ndim == 2 else img.shape[-3]
    height, width = img.shape[-2:]
    return [channels, height, width]


def get_image_size(img) -> list[int]:
    _assert_image_tensor(img)
    return [img.shape[-1], img.shape[-2]]


def get_image_num_channels(img) -> int:
    _assert_image_tensor(img)
    return 1 if img.ndim == 2 else img.shape[-3]


def _max_value(dtype) -> int:
    return {uint8: 255, int8: 127, int16: 32767, int32: 2147483647,
            int64: 9223372036854775807}.get(dtype, 1)


def _assert_channels(img, permitted: list[int]) -> None:
    c = get_dimensions(img)[0]
    if c not in permitted:
        raise TypeError(f"Input image tensor permitted channel values are {permitted}, but found "
                        f"{c}")


def convert_image_dtype(image, dtype=float32):
    if image.dtype == dtype:
        return image
    if image.is_floating_point():
        if dtype.is_floating_point:
            return image.to(dtype)
        if ((image.dtype == float32 and dtype in (int32, int64))
                or (image.dtype == float64 and dtype == int64)):
            raise RuntimeError(f"The cast from {image.dtype} to {dtype} cannot be performed "
                               "safely.")
        eps = 1e-3
        return image.mul(float(_max_value(dtype)) + 1.0 - eps).to(dtype)
    input_max = float(_max_value(image.dtype))
    if dtype.is_floating_point:
        return image.to(dtype) / input_max
    output_max = float(_max_value(dtype))
    if input_max > output_max:
        factor = int((input_max + 1) // (output_max + 1))
        return div(image, factor, rounding_mode="floor").to(dtype)
    factor = int((output_max + 1) // (input_max + 1))
    return image.to(dtype) * factor


def vflip(img):
    _assert_image_tensor(img)
    return img.flip(-2)


def hflip(img):
    _assert_image_tensor(img)
    return img.flip(-1)


def crop(img, top: int, left: int, height: int, width: int):
    _assert_image_tensor(img)
    _, h, w = get_dimensions(img)
    right = left + width
    bottom = top + height
    if left < 0 or top < 0 or right > w or bottom > h:
        padding_ltrb = [max(-left + min(0, right), 0), max(-top + min(0, bottom), 0),
                        max(right - max(w, left), 0), max(bottom - max(h, top), 0)]
        return pad(img[..., max(top, 0):bottom, max(left, 0):right], padding_ltrb, fill=0)
    return img[..., top:bottom, left:right]


def rgb_to_grayscale(img, num_output_channels: int = 1):
    if img.ndim < 3:
        raise TypeError("Input image tensor should have at least 3 dimensions, but found "
                        f"{img.ndim}")
    _assert_channels(img, [1, 3])
    if num_output_channels not in (1, 3):
        raise ValueError("num_output_channels should be either 1 or 3")
    if img.shape[-3] == 3:
        r, g, b = img.unbind(dim=-3)
        l_img = (0.2989 * r + 0.587 * g + 0.114 * b).to(img.dtype).unsqueeze(dim=-3)
    else:
        l_img = img.clone()
    if num_output_channels == 3:
        return l_img.expand(img.shape)
    return l_img


def _blend(img1, img2, ratio: float):
    ratio = float(ratio)
    bound = _max_value(img1.dtype)
    return (ratio * img1 + (1.0 - ratio) * img2).clamp(0, bound).to(img1.dtype)


def adjust_brightness(img, brightness_factor: float):
    if brightness_factor < 0:
        raise ValueError(f"brightness_factor ({brightness_factor}) is not non-negative.")
    _assert_image_tensor(img)
    _assert_channels(img, [1, 3])
    return _blend(img, zeros_like(img), brightness_factor)


def adjust_contrast(img, contrast_factor: float):
    if contrast_factor < 0:
        raise ValueError(f"contrast_factor ({contrast_factor}) is not non-negative.")
    _assert_image_tensor(img)
    _assert_channels(img, [3, 1])
    dtype = img.dtype if img.is_floating_point() else float32
    gray = rgb_to_grayscale(img) if get_dimensions(img)[0] == 3 else img
    mean = torch_mean(gray.to(dtype), dim=(-3, -2, -1), keepdim=True)
    return _blend(img, mean, contrast_factor)


def adjust_saturation(img, saturation_factor: float):
    if saturation_factor < 0:
        raise ValueError(f"saturation_factor ({saturation_factor}) is not non-negative.")
    _assert_image_tensor(img)
    _assert_channels(img, [1, 3])
    if get_dimensions(img)[0] == 1:  # as PIL
        return img
    return _blend(img, rgb_to_grayscale(img), saturation_factor)


def adjust_hue(img, hue_factor: float):
    if not (-0.5 <= hue_factor <= 0.5):
        raise ValueError(f"hue_factor ({hue_factor}) is not in [-0.5, 0.5].")
    _assert_image_tensor(img)
    _assert_channels(img, [1, 3])
    if get_dimensions(img)[0] == 1:  # as PIL
        return img
    orig_dtype = img.dtype
    h, s, v = _rgb2hsv(convert_image_dtype(img, float32)).unbind(dim=-3)
    h = (h + hue_factor) % 1.0
    return convert_image_dtype(_hsv2rgb(stack((h, s, v), dim=-3)), orig_dtype)


def adjust_gamma(img, gamma: float, gain: float = 1):
    _assert_channels(img, [1, 3])
    if gamma < 0:
        raise ValueError("Gamma should be a non-negative real number")
    dtype = img.dtype
    result = img if img.is_floating_point() else convert_image_dtype(img, float32)
    return convert_image_dtype((gain * result.pow(gamma)).clamp(0, 1), dtype)


def _rgb2hsv(img):
    """RGB -> HSV as Pillow's Convert.c, with no NaN where max == min."""
    r, g, b = img.unbind(dim=-3)
    maxc = torch_max(img, dim=-3).values
    minc = torch_min(img, dim=-3).values
    eqc = maxc == minc
    cr = maxc - minc
    ones = ones_like(maxc)
    s = cr / where(eqc, ones, maxc)
    cr_divisor = where(eqc, ones, cr)
    rc = (maxc - r) / cr_divisor
    gc = (maxc - g) / cr_divisor
    bc = (maxc - b) / cr_divisor
    hr = (maxc == r) * (bc - gc)
    hg = ((maxc == g) & (maxc != r)) * (2.0 + rc - bc)
    hb = ((maxc != g) & (maxc != r)) * (4.0 + gc - rc)
    h = fmod(((hr + hg + hb) / 6.0 + 1.0), 1.0)
    return stack((h, s, maxc), dim=-3)


def _hsv2rgb(img):
    h, s, v = img.unbind(dim=-3)
    i = floor(h * 6.0)
    f = (h * 6.0) - i
    i = i.to(dtype=int32)
    p = clamp((v * (1.0 - s)), 0.0, 1.0)
    q = clamp((v * (1.0 - s * f)), 0.0, 1.0)
    t = clamp((v * (1.0 - s * (1.0 - f))), 0.0, 1.0)
    i = i % 6
    mask = i.unsqueeze(dim=-3) == arange(6, device=i.device).view(-1, 1, 1)
    a1 = stack((v, q, p, p, t, v), dim=-3)
    a2 = stack((t, v, v, q, p, p), dim=-3)
    a3 = stack((p, p, t, v, v, q), dim=-3)
    a4 = stack((a1, a2, a3), dim=-4)
    return einsum("...ijk, ...xijk -> ...xjk", mask.to(dtype=img.dtype), a4)


def _pad_symmetric(img, padding: list[int]):
    """Symmetric padding (left, right, top, bottom) by gathering mirrored indices."""
    if min(padding) < 0:
        cl, cr, ct, cb = [-min(x, 0) for x in padding]
        img = img[..., ct:img.shape[-2] - cb, cl:img.shape[-1] - cr]
        padding = [max(x, 0) for x in padding]
    h, w = img.shape[-2:]
    x_idx = list(range(padding[0] - 1, -1, -1)) + list(range(w)) + [w - 1 - i for i in
                                                                   range(padding[1])]
    y_idx = list(range(padding[2] - 1, -1, -1)) + list(range(h)) + [h - 1 - i for i in
                                                                   range(padding[3])]
    if img.ndim not in (3, 4):
        raise RuntimeError("Symmetric padding of N-D tensors are not supported yet")
    x_idx = torch_tensor(x_idx, device=img.device)
    y_idx = torch_tensor(y_idx, device=img.device)
    return img.index_select(-1, x_idx).index_select(-2, y_idx)


def _parse_pad_padding(padding) -> list[int]:
    if isinstance(padding, int):
        return [padding] * 4
    if len(padding) == 1:
        return [padding[0]] * 4
    if len(padding) == 2:
        return [padding[0], padding[0], padding[1], padding[1]]
    return [padding[0], padding[2], padding[1], padding[3]]


def pad(img, padding, fill=0, padding_mode: str = "constant"):
    _assert_image_tensor(img)
    if fill is None:
        fill = 0
    if not isinstance(padding, (int, tuple, list)):
        raise TypeError("Got inappropriate padding arg")
    if not isinstance(fill, (int, float)):
        raise TypeError("Got inappropriate fill arg")
    if not isinstance(padding_mode, str):
        raise TypeError("Got inappropriate padding_mode arg")
    if isinstance(padding, (tuple, list)) and len(padding) not in [1, 2, 4]:
        raise ValueError("Padding must be an int or a 1, 2, or 4 element tuple, not a "
                         f"{len(padding)} element tuple")
    if padding_mode not in ["constant", "edge", "reflect", "symmetric"]:
        raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")
    p = _parse_pad_padding(padding)
    if padding_mode == "symmetric":
        return _pad_symmetric(img, p)
    mode = "replicate" if padding_mode == "edge" else padding_mode
    need_squeeze = img.ndim < 4
    if need_squeeze:
        img = img.unsqueeze(dim=0)
    out_dtype = img.dtype
    need_cast = mode != "constant" and img.dtype not in (float32, float64)
    if need_cast:
        img = img.to(float32)
    if mode in ("reflect", "replicate"):
        img = F.pad(img, p, mode=mode)
    else:
        img = F.pad(img, p, mode=mode, value=float(fill))
    if need_squeeze:
        img = img.squeeze(dim=0)
    return img.to(out_dtype) if need_cast else img


def _cast_squeeze_in(img, req_dtypes):
    need_squeeze = img.ndim < 4
    if need_squeeze:
        img = img.unsqueeze(dim=0)
    out_dtype = img.dtype
    need_cast = out_dtype not in req_dtypes
    if need_cast:
        img = img.to(req_dtypes[0])
    return img, need_cast, need_squeeze, out_dtype


def _cast_squeeze_out(img, need_cast: bool, need_squeeze: bool, out_dtype):
    if need_squeeze:
        img = img.squeeze(dim=0)
    if need_cast:
        if out_dtype in _INT_DTYPES:
            img = torch_round(img)
        img = img.to(out_dtype)
    return img


def resize(img, size: list[int], interpolation: str = "bilinear", antialias=True):
    _assert_image_tensor(img)
    size = list(size)
    if antialias is None or interpolation not in ["bilinear", "bicubic"]:
        antialias = False
    img, need_cast, need_squeeze, out_dtype = _cast_squeeze_in(img, [float32,
                                                                     float64])
    align_corners = False if interpolation in ["bilinear", "bicubic"] else None
    img = F.interpolate(img, size=size, mode=interpolation, align_corners=align_corners,
                        antialias=antialias)
    if interpolation == "bicubic" and out_dtype == uint8:
        img = img.clamp(min=0, max=255)
    return _cast_squeeze_out(img, need_cast=need_cast, need_squeeze=need_squeeze,
                             out_dtype=out_dtype)


def _assert_grid_transform_inputs(img, matrix, interpolation, fill, supported_modes):
    _assert_image_tensor(img)
    if matrix is not None and not isinstance(matrix, list):
        raise TypeError("Argument matrix should be a list")
    if matrix is not None and len(matrix) != 6:
        raise ValueError("Argument matrix should have 6 float values")
    if fill is not None and not isinstance(fill, (int, float, tuple, list)):
        warnings.warn("Argument fill should be either int, float, tuple or list", stacklevel=3)
    num_channels = get_dimensions(img)[0]
    if isinstance(fill, (tuple, list)) and len(fill) > 1 and len(fill) != num_channels:
        raise ValueError("The number of elements in 'fill' cannot broadcast to match the number "
                         f"of channels of the image ({len(fill)} != {num_channels})")
    if interpolation not in supported_modes:
        raise ValueError(f"Interpolation mode '{interpolation}' is unsupported with Tensor input")


def _apply_grid_transform(img, grid, mode: str, fill):
    img, need_cast, need_squeeze, out_dtype = _cast_squeeze_in(img, [grid.dtype])
    if img.shape[0] > 1:
        grid = grid.expand(img.shape[0], grid.shape[1], grid.shape[2], grid.shape[3])
    if fill is not None:  # a mask channel marks the pixels that came from inside the image
        mask = torch_ones((img.shape[0], 1, img.shape[2], img.shape[3]), dtype=img.dtype,
                           device=img.device)
        img = cat((img, mask), dim=1)
    img = F.grid_sample(img, grid, mode=mode, padding_mode="zeros", align_corners=False)
    if fill is not None:
        mask = img[:, -1:, :, :]
        img = img[:, :-1, :, :]
        mask = mask.expand_as(img)
        fill_list = list(fill) if isinstance(fill, (tuple, list)) else [float(fill)]
        fill_img = torch_tensor(fill_list, dtype=img.dtype, device=img.device).view(
            1, len(fill_list), 1, 1).expand_as(img)
        if mode == "nearest":
            img = where(mask < 0.5, fill_img, img)
        else:
            img = img * mask + (1.0 - mask) * fill_img
    return _cast_squeeze_out(img, need_cast, need_squeeze, out_dtype)


def _gen_affine_grid(theta, w: int, h: int, ow: int, oh: int):
    """The sampling grid of ``theta``, normalized by the input size ``(w, h)`` (so that
    ``expand`` works as in PIL)."""
    d = 0.5
    x = linspace(-ow * 0.5 + d, ow * 0.5 + d - 1, steps=ow, dtype=theta.dtype)
    y = linspace(-oh * 0.5 + d, oh * 0.5 + d - 1, steps=oh, dtype=theta.dtype)
    base_grid = stack((x.view(1, ow).expand(oh, ow), y.view(oh, 1).expand(oh, ow),
                              torch_ones(oh, ow, dtype=theta.dtype)), dim=-1)
    rescaled_theta = theta.transpose(1, 2) / torch_tensor([0.5 * w, 0.5 * h],
                                                           dtype=theta.dtype)
    return base_grid.view(1, oh * ow, 3).bmm(rescaled_theta).view(1, oh, ow, 2)


def _compute_affine_output_size(matrix: list[float], w: int, h: int) -> tuple[int, int]:
    # the corners of the image mapped through the (forward) affine matrix, in NumPy
    pts = np.array([[-0.5 * w, -0.5 * h, 1.0], [-0.5 * w, 0.5 * h, 1.0],
                    [0.5 * w, 0.5 * h, 1.0], [0.5 * w, -0.5 * h, 1.0]], dtype=np.float32)
    theta = np.array(matrix, dtype=np.float32).reshape(2, 3)
    new_pts = pts @ theta.T
    shift = np.array([w * 0.5, h * 0.5], dtype=np.float32)
    min_vals, max_vals = new_pts.min(axis=0) + shift, new_pts.max(axis=0) + shift
    tol = 1e-4  # truncate to 1e-4 so that 1e-15 does not ceil to 1
    cmax = np.ceil(np.trunc(max_vals / tol) * tol)
    cmin = np.floor(np.trunc(min_vals / tol) * tol)
    size = cmax - cmin
    return int(size[0]), int(size[1])


def affine(img, matrix: list[float], interpolation: str = "nearest", fill=None):
    _assert_grid_transform_inputs(img, matrix, interpolation, fill, ["nearest", "bilinear"])
    dtype = img.dtype if img.is_floating_point() else float32
    theta = torch_tensor(matrix, dtype=dtype, device=img.device).reshape(1, 2, 3)
    h, w = img.shape[-2:]
    return _apply_grid_transform(img, _gen_affine_grid(theta, w=w, h=h, ow=w, oh=h),
                                 interpolation, fill=fill)


def rotate(img, matrix: list[float], interpolation: str = "nearest", expand: bool = False,
           fill=None):
    _assert_grid_transform_inputs(img, matrix, interpolation, fill, ["nearest", "bilinear"])
    w, h = img.shape[-1], img.shape[-2]
    ow, oh = _compute_affine_output_size(matrix, w, h) if expand else (w, h)
    dtype = img.dtype if img.is_floating_point() else float32
    theta = torch_tensor(matrix, dtype=dtype, device=img.device).reshape(1, 2, 3)
    return _apply_grid_transform(img, _gen_affine_grid(theta, w=w, h=h, ow=ow, oh=oh),
                                 interpolation, fill=fill)


def invert(img):
    _assert_image_tensor(img)
    if img.ndim < 3:
        raise TypeError("Input image tensor should have at least 3 dimensions, but found "
                        f"{img.ndim}")
    _assert_channels(img, [1, 3])
    return _max_value(img.dtype) - img


def _get_gaussian_kernel1d(kernel_size: int, sigma: float, dtype):
    half = (kernel_size - 1) * 0.5
    pdf = (-0.5 * (linspace(-half, half, steps=kernel_size, dtype=dtype) / sigma).pow(2)).exp()
    return pdf / pdf.sum()


def gaussian_blur(img, kernel_size: list[int], sigma: list[float]):
    """Separable Gaussian kernel (torchvision's, as one 2-D depthwise conv) over a
    reflect-padded image, which keeps its size; integer images are blurred in float32 and
    rounded back."""
    if not isinstance(img, Tensor):
        raise TypeError(f"img should be Tensor. Got {type(img)}")
    _assert_image_tensor(img)
    dtype = img.dtype if img.is_floating_point() else float32
    kx = _get_gaussian_kernel1d(kernel_size[0], sigma[0], dtype)
    ky = _get_gaussian_kernel1d(kernel_size[1], sigma[1], dtype)
    kernel = (ky[:, None] @ kx[None, :]).expand(img.shape[-3], 1, kernel_size[1], kernel_size[0])
    img, need_cast, need_squeeze, out_dtype = _cast_squeeze_in(img, [kernel.dtype])
    padding = [kernel_size[0] // 2, kernel_size[0] // 2, kernel_size[1] // 2, kernel_size[1] // 2]
    img = F.conv2d(F.pad(img, padding, mode="reflect"), kernel, groups=img.shape[-3])
    return _cast_squeeze_out(img, need_cast, need_squeeze, out_dtype)


def check_normalize(tensor, std) -> None:
    """``normalize``'s argument checks (on shapes, dtypes and ``std``: no tensor values)."""
    _assert_image_tensor(tensor)
    if not tensor.is_floating_point():
        raise TypeError(f"Input tensor should be a float tensor. Got {tensor.dtype}.")
    if tensor.ndim < 3:
        raise ValueError("Expected tensor to be a tensor image of size (..., C, H, W). Got "
                         f"tensor.size() = {tensor.size()}")
    np_std = np.asarray(std.tolist() if isinstance(std, Tensor) else std,
                        tensor.dtype.np)
    if (np_std == 0).any():
        raise ValueError(f"std evaluated to zero after conversion to {tensor.dtype}, leading "
                         "to division by zero.")


def normalize(tensor, mean, std, inplace: bool = False):
    check_normalize(tensor, std)
    dtype = tensor.dtype
    mean = as_tensor(mean, dtype=dtype, device=tensor.device)
    std = as_tensor(std, dtype=dtype, device=tensor.device)
    if mean.ndim == 1:
        mean = mean.view(-1, 1, 1)
    if std.ndim == 1:
        std = std.view(-1, 1, 1)
    if inplace:
        return tensor.sub_(mean).div_(std)
    return (tensor - mean) / std


def erase(img, i: int, j: int, h: int, w: int, v, inplace: bool = False):
    _assert_image_tensor(img)
    if not inplace:
        img = img.clone()
    img[..., i:i + h, j:j + w] = v
    return img



def _perspective_grid(coeffs: list[float], ow: int, oh: int, dtype):
    """Pillow's perspective map (``x' = (a x + b y + c) / (g x + h y + 1)``, likewise ``y'``)
    at the pixel centers, normalized for ``grid_sample``."""
    theta1 = torch_tensor([[coeffs[0], coeffs[1], coeffs[2]], [coeffs[3], coeffs[4],
                                                               coeffs[5]]], dtype=dtype)
    theta2 = torch_tensor([[coeffs[6], coeffs[7], 1.0], [coeffs[6], coeffs[7], 1.0]],
                          dtype=dtype)
    x = linspace(0.5, ow - 0.5, steps=ow, dtype=dtype)
    y = linspace(0.5, oh - 0.5, steps=oh, dtype=dtype)
    base = stack((x.view(1, ow).expand(oh, ow), y.view(oh, 1).expand(oh, ow),
                  torch_ones(oh, ow, dtype=dtype)), dim=-1).view(oh * ow, 3)
    num = base @ (theta1.t() / torch_tensor([0.5 * ow, 0.5 * oh], dtype=dtype))
    return (num / (base @ theta2.t()) - 1.0).view(1, oh, ow, 2)


def perspective(img, perspective_coeffs: list[float], interpolation: str = "bilinear",
                fill=None):
    if not isinstance(img, Tensor):
        raise TypeError("Input img should be Tensor.")
    _assert_image_tensor(img)
    if len(perspective_coeffs) != 8:
        raise ValueError("Argument coeffs should have 8 float values")
    _assert_grid_transform_inputs(img, None, interpolation, fill, ["nearest", "bilinear"])
    dtype = img.dtype if img.is_floating_point() else float32
    grid = _perspective_grid(perspective_coeffs, ow=img.shape[-1], oh=img.shape[-2],
                             dtype=dtype)
    return _apply_grid_transform(img, grid, interpolation, fill=fill)


def _create_identity_grid(size: list[int]):
    ys, xs = (linspace((-s + 1) / s, (s - 1) / s, steps=s) for s in size)
    return stack((xs.view(1, -1).expand(size), ys.view(-1, 1).expand(size)), dim=-1)[None]


def elastic_transform(img, displacement, interpolation: str = "bilinear", fill=None):
    if not isinstance(img, Tensor):
        raise TypeError(f"img should be Tensor. Got {type(img)}")
    grid = _create_identity_grid(list(img.shape[-2:])) + displacement
    return _apply_grid_transform(img, grid, interpolation, fill)
