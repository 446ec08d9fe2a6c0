"""torchvision.transforms' affine, perspective and elastic warps, the five/ten crops, random
erasing and ``LinearTransformation``."""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence

from jtorch import nn
from jtorch._tensor import Tensor

from ..._ops.creation import from_numpy, tensor as torch_tensor
from ..._ops.shape_copy import cat
from . import _random, functional as F
from ._augment import _check_sequence_input, _setup_angle
from .functional import InterpolationMode, _interpolation_modes_from_int
from .transforms import _SIZE_MSG, _check_scale_ratio, _draw_box, _setup_size, _SizedCrop

__all__ = ["ElasticTransform", "FiveCrop", "LinearTransformation", "RandomAffine",
           "RandomErasing", "RandomPerspective", "TenCrop"]


def _interp_mode(interpolation):
    if isinstance(interpolation, int):
        return _interpolation_modes_from_int(interpolation)
    return interpolation


def _check_fill(fill):
    if fill is None:
        return 0
    if not isinstance(fill, (Sequence, numbers.Number)):
        raise TypeError("Fill should be either a sequence or a number.")
    return fill


def _tensor_fill(img, fill, channels):
    """``fill`` (None, a number or a sequence) as the per-channel float list the tensor paths
    take; PIL and NumPy images keep it as it is."""
    if not isinstance(img, Tensor) or fill is None:
        return fill
    return [float(fill)] * channels if isinstance(fill, (int, float)) else [float(f) for f in
                                                                            fill]


class RandomAffine(nn.Module):
    """A random affine map keeping the image center fixed.

    Args:
        degrees (float or (min, max)): rotation range; a float ``d`` means ``(-d, d)``.
        translate ((a, b), optional): shifts drawn from ``(-W a, W a)`` and ``(-H b, H b)``.
        scale ((min, max), optional): scale range. Default: no scaling
        shear (float, (min, max) or 4 values, optional): x shear range (and y for 4 values).
        interpolation (InterpolationMode): Default NEAREST
        fill (number or sequence): the value outside the image. Default 0
        center (sequence, optional): the center of the map (default the image center).
    """

    def __init__(self, degrees, translate=None, scale=None, shear=None,
                 interpolation=InterpolationMode.NEAREST, fill=0, center=None):
        super().__init__()
        interpolation = _interp_mode(interpolation)
        self.degrees = _setup_angle(degrees, name="degrees", req_sizes=(2,))
        if translate is not None:
            _check_sequence_input(translate, "translate", req_sizes=(2,))
            for t in translate:
                if not 0.0 <= t <= 1.0:
                    raise ValueError("translation values should be between 0 and 1")
        self.translate = translate
        if scale is not None:
            _check_sequence_input(scale, "scale", req_sizes=(2,))
            for s in scale:
                if s <= 0:
                    raise ValueError("scale values should be positive")
        self.scale = scale
        self.shear = None if shear is None else _setup_angle(shear, name="shear",
                                                             req_sizes=(2, 4))
        self.interpolation = interpolation
        self.fill = _check_fill(fill)
        if center is not None:
            _check_sequence_input(center, "center", req_sizes=(2,))
        self.center = center

    @staticmethod
    def get_params(degrees, translate, scale_ranges, shears, img_size):
        """``(angle, (tx, ty), scale, (shear_x, shear_y))`` drawn from the ranges;
        ``img_size`` is ``[width, height]``."""
        angle = _random.uniform(float(degrees[0]), float(degrees[1]))
        translations = (0, 0)
        if translate is not None:
            max_dx = float(translate[0] * img_size[0])
            max_dy = float(translate[1] * img_size[1])
            translations = (int(round(_random.uniform(-max_dx, max_dx))),
                            int(round(_random.uniform(-max_dy, max_dy))))
        scale = 1.0 if scale_ranges is None else _random.uniform(scale_ranges[0],
                                                                 scale_ranges[1])
        shear_x = shear_y = 0.0
        if shears is not None:
            shear_x = _random.uniform(shears[0], shears[1])
            if len(shears) == 4:
                shear_y = _random.uniform(shears[2], shears[3])
        return angle, translations, scale, (shear_x, shear_y)

    def forward(self, img):
        channels, height, width = F.get_dimensions(img)
        fill = _tensor_fill(img, self.fill, channels)
        ret = self.get_params(self.degrees, self.translate, self.scale, self.shear,
                              [width, height])
        return F.affine(img, *ret, interpolation=self.interpolation, fill=fill,
                        center=self.center)

    def __repr__(self) -> str:
        s = f"{self.__class__.__name__}(degrees={self.degrees}"
        s += f", translate={self.translate}" if self.translate is not None else ""
        s += f", scale={self.scale}" if self.scale is not None else ""
        s += f", shear={self.shear}" if self.shear is not None else ""
        if self.interpolation != InterpolationMode.NEAREST:
            s += f", interpolation={self.interpolation.value}"
        s += f", fill={self.fill}" if self.fill != 0 else ""
        s += f", center={self.center}" if self.center is not None else ""
        return s + ")"


class RandomPerspective(nn.Module):
    """A random perspective warp with probability ``p``; each corner moves inwards by up to
    ``distortion_scale`` (0-1) of half the image size.

    Args:
        distortion_scale (float): Default 0.5
        p (float): Default 0.5
        interpolation (InterpolationMode): Default BILINEAR
        fill (number or sequence): the value outside the image. Default 0
    """

    def __init__(self, distortion_scale=0.5, p=0.5, interpolation=InterpolationMode.BILINEAR,
                 fill=0):
        super().__init__()
        self.p = p
        self.interpolation = _interp_mode(interpolation)
        self.distortion_scale = distortion_scale
        self.fill = _check_fill(fill)

    def forward(self, img):
        channels, height, width = F.get_dimensions(img)
        fill = _tensor_fill(img, self.fill, channels)
        if _random.uniform() < self.p:
            startpoints, endpoints = self.get_params(width, height, self.distortion_scale)
            return F.perspective(img, startpoints, endpoints, self.interpolation, fill)
        return img

    @staticmethod
    def get_params(width: int, height: int, distortion_scale: float):
        """``(startpoints, endpoints)``: the image corners ``[tl, tr, br, bl]`` and where they
        go."""
        dx = int(distortion_scale * (width // 2))
        dy = int(distortion_scale * (height // 2))

        def near(low_side, size, d):  # within d of the low side, or of the high side
            return _random.randint(0, d + 1) if low_side else _random.randint(size - d - 1,
                                                                              size)

        topleft = [near(True, width, dx), near(True, height, dy)]
        topright = [near(False, width, dx), near(True, height, dy)]
        botright = [near(False, width, dx), near(False, height, dy)]
        botleft = [near(True, width, dx), near(False, height, dy)]
        startpoints = [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]]
        return startpoints, [topleft, topright, botright, botleft]

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(p={self.p})"


class FiveCrop(_SizedCrop):
    """The four corner crops and the center crop of ``size`` (a tuple of 5 images)."""

    _crop = F.five_crop


class TenCrop(nn.Module):
    """``FiveCrop`` of the image and of its horizontal (``vertical_flip``: vertical) flip."""

    def __init__(self, size, vertical_flip=False):
        super().__init__()
        self.size = _setup_size(size, error_msg=_SIZE_MSG)
        self.vertical_flip = vertical_flip

    def forward(self, img):
        return F.ten_crop(img, self.size, self.vertical_flip)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(size={self.size}, vertical_flip={self.vertical_flip})"


class LinearTransformation(nn.Module):
    """``(x.flatten() - mean_vector) @ transformation_matrix`` reshaped back (whitening), for
    tensor images with ``C * H * W == D``.

    Args:
        transformation_matrix (Tensor): ``D x D``.
        mean_vector (Tensor): ``D``.
    """

    def __init__(self, transformation_matrix, mean_vector):
        super().__init__()
        size = tuple(transformation_matrix.size())
        if transformation_matrix.size(0) != transformation_matrix.size(1):
            raise ValueError(f"transformation_matrix should be square. Got {size} rectangular "
                             "matrix.")
        if mean_vector.size(0) != transformation_matrix.size(0):
            raise ValueError(f"mean_vector should have the same length {mean_vector.size(0)} "
                             f"as any one of the dimensions of the transformation_matrix "
                             f"[{size}]")
        if transformation_matrix.device != mean_vector.device:
            raise ValueError("Input tensors should be on the same device. Got "
                             f"{transformation_matrix.device} and {mean_vector.device}")
        if transformation_matrix.dtype != mean_vector.dtype:
            raise ValueError("Input tensors should have the same dtype. Got "
                             f"{transformation_matrix.dtype} and {mean_vector.dtype}")
        self.transformation_matrix = transformation_matrix
        self.mean_vector = mean_vector

    def forward(self, tensor):
        shape = tensor.shape
        n = shape[-3] * shape[-2] * shape[-1]
        if n != self.transformation_matrix.shape[0]:
            raise ValueError("Input tensor and transformation matrix have incompatible shape."
                             f"[{shape[-3]} x {shape[-2]} x {shape[-1]}] != "
                             f"{self.transformation_matrix.shape[0]}")
        if tensor.device.type != self.mean_vector.device.type:
            raise ValueError("Input tensor should be on the same device as transformation "
                             f"matrix and mean vector. Got {tensor.device} vs "
                             f"{self.mean_vector.device}")
        flat = tensor.reshape(-1, n) - self.mean_vector
        return (flat @ self.transformation_matrix.to(flat.dtype)).reshape(shape)

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__}(transformation_matrix="
                f"{self.transformation_matrix.tolist()}, "
                f"mean_vector={self.mean_vector.tolist()})")


class RandomErasing(nn.Module):
    """With probability ``p``, erases a random rectangle of a tensor image (Zhong et al.).

    Args:
        p (float): Default 0.5
        scale ((min, max)): the erased fraction of the area. Default (0.02, 0.33)
        ratio ((min, max)): its aspect ratio range (log-uniform). Default (0.3, 3.3)
        value (number, sequence or "random"): the fill (per channel for a sequence; standard
            normal noise for "random"). Default 0
        inplace (bool): Default False
    """

    def __init__(self, p=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False):
        super().__init__()
        if not isinstance(value, (numbers.Number, str, tuple, list)):
            raise TypeError("Argument value should be either a number or str or a sequence")
        if isinstance(value, str) and value != "random":
            raise ValueError("If value is str, it should be 'random'")
        _check_scale_ratio(scale, ratio)
        if scale[0] < 0 or scale[1] > 1:
            raise ValueError("Scale should be between 0 and 1")
        if p < 0 or p > 1:
            raise ValueError("Random erasing probability should be between 0 and 1")
        self.p = p
        self.scale = scale
        self.ratio = ratio
        self.value = value
        self.inplace = inplace

    @staticmethod
    def get_params(img, scale, ratio, value=None):
        """``(i, j, h, w, v)`` for ``erase`` (10 tries; then the whole image, unchanged);
        ``value`` None draws normal noise."""
        img_c, img_h, img_w = img.shape[-3], img.shape[-2], img.shape[-1]
        area = img_h * img_w
        log_ratio = (math.log(ratio[0]), math.log(ratio[1]))
        for _ in range(10):
            h, w = _draw_box(area, scale, log_ratio)
            if not (h < img_h and w < img_w):
                continue
            if value is None:
                v = from_numpy(_random.normal((img_c, h, w)))
            else:
                v = torch_tensor(value)[:, None, None]
            return _random.randint(0, img_h - h + 1), _random.randint(0, img_w - w + 1), h, w, v
        return 0, 0, img_h, img_w, img

    def forward(self, img):
        if _random.uniform() < self.p:
            if isinstance(self.value, (int, float)):
                value = [float(self.value)]
            elif isinstance(self.value, str):
                value = None
            else:
                value = [float(v) for v in self.value]
            if value is not None and len(value) not in (1, img.shape[-3]):
                raise ValueError("If value is a sequence, it should have either a single value "
                                 f"or {img.shape[-3]} (number of input channels)")
            x, y, h, w, v = self.get_params(img, scale=self.scale, ratio=self.ratio,
                                            value=value)
            return F.erase(img, x, y, h, w, v, self.inplace)
        return img

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__}(p={self.p}, scale={self.scale}, "
                f"ratio={self.ratio}, value={self.value}, inplace={self.inplace})")


def _check_alpha_sigma(x, name):
    if not isinstance(x, (float, Sequence)):
        raise TypeError(f"{name} should be float or a sequence of floats. Got {type(x)}")
    if isinstance(x, Sequence) and len(x) != 2:
        raise ValueError(f"If {name} is a sequence its length should be 2. Got {len(x)}")
    if isinstance(x, Sequence):
        for element in x:
            if not isinstance(element, float):
                raise TypeError(f"{name} should be a sequence of floats. Got {type(element)}")
    return [float(x), float(x)] if isinstance(x, float) else x


class ElasticTransform(nn.Module):
    """Elastic warp: random displacements (uniform in [-1, 1], Gaussian-smoothed with
    ``sigma``, scaled by ``alpha`` / the image size) added to the identity sampling grid.

    Args:
        alpha (float or (ax, ay)): displacement magnitude. Default 50.0
        sigma (float or (sx, sy)): displacement smoothness. Default 5.0
        interpolation (InterpolationMode): Default BILINEAR
        fill (number or sequence): the value outside the image. Default 0
    """

    def __init__(self, alpha=50.0, sigma=5.0, interpolation=InterpolationMode.BILINEAR, fill=0):
        super().__init__()
        self.alpha = _check_alpha_sigma(alpha, "alpha")
        self.sigma = _check_alpha_sigma(sigma, "sigma")
        self.interpolation = _interp_mode(interpolation)
        if isinstance(fill, (int, float)):
            fill = [float(fill)]
        elif isinstance(fill, (list, tuple)):
            fill = [float(f) for f in fill]
        else:
            raise TypeError(f"fill should be int or float or a list or tuple of them. Got "
                            f"{type(fill)}")
        self.fill = fill

    @staticmethod
    def get_params(alpha, sigma, size):
        """A random ``1 x H x W x 2`` displacement for ``size`` ``[H, W]``."""
        out = []
        for k in range(2):  # x then y, each normalized by the image size along it
            d = from_numpy(_random.rand([1, 1, *size])) * 2 - 1
            if sigma[k] > 0.0:
                ks = int(8 * sigma[k] + 1)
                ks += 1 - ks % 2  # odd
                d = F.gaussian_blur(d, [ks, ks], sigma)
            out.append(d * alpha[k] / size[1 - k])
        return cat(out, 1).permute([0, 2, 3, 1])

    def forward(self, tensor):
        _, height, width = F.get_dimensions(tensor)
        displacement = self.get_params(self.alpha, self.sigma, [height, width])
        return F.elastic_transform(tensor, displacement, self.interpolation, self.fill)

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__}(alpha={self.alpha}, sigma={self.sigma}, "
                f"interpolation={self.interpolation}, fill={self.fill})")
