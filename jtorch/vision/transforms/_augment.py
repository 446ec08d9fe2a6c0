"""torchvision.transforms' color, grayscale, blur and rotation transforms, and ``RandomApply``."""

from __future__ import annotations

import numbers
from collections.abc import Sequence

from jtorch import nn
from jtorch._tensor import Tensor

from . import _random, functional as F
from .functional import InterpolationMode, _interpolation_modes_from_int
from .transforms import _setup_size

__all__ = ["ColorJitter", "GaussianBlur", "Grayscale", "RandomAdjustSharpness", "RandomApply",
           "RandomAutocontrast", "RandomChoice", "RandomEqualize", "RandomGrayscale",
           "RandomInvert", "RandomOrder", "RandomPosterize", "RandomRotation", "RandomSolarize"]


class RandomApply(nn.Module):
    """Applies the list of ``transforms`` with probability ``p`` (default 0.5)."""

    def __init__(self, transforms, p=0.5):
        super().__init__()
        self.transforms = transforms
        self.p = p

    def forward(self, img):
        if self.p < _random.uniform():
            return img
        for t in self.transforms:
            img = t(img)
        return img

    def __repr__(self) -> str:
        body = "".join(f"\n    {t}" for t in self.transforms)
        return f"{self.__class__.__name__}(\n    p={self.p}{body}\n)"


class ColorJitter(nn.Module):
    """Random brightness, contrast, saturation and hue changes, in a random order.

    Args:
        brightness, contrast, saturation (float or (min, max)): factor ranges; a float ``x``
            means ``[max(0, 1 - x), 1 + x]``. Default 0
        hue (float or (min, max)): shift range in [-0.5, 0.5]; ``x`` means ``[-x, x]``.
            Default 0
    """

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0) -> None:
        super().__init__()
        self.brightness = self._check_input(brightness, "brightness")
        self.contrast = self._check_input(contrast, "contrast")
        self.saturation = self._check_input(saturation, "saturation")
        self.hue = self._check_input(hue, "hue", center=0, bound=(-0.5, 0.5),
                                     clip_first_on_zero=False)

    def _check_input(self, value, name, center=1, bound=(0, float("inf")),
                     clip_first_on_zero=True):
        if isinstance(value, numbers.Number):
            if value < 0:
                raise ValueError(f"If {name} is a single number, it must be non negative.")
            value = [center - float(value), center + float(value)]
            if clip_first_on_zero:
                value[0] = max(value[0], 0.0)
        elif isinstance(value, (tuple, list)) and len(value) == 2:
            value = [float(value[0]), float(value[1])]
        else:
            raise TypeError(f"{name} should be a single number or a list/tuple with length 2.")
        if not bound[0] <= value[0] <= value[1] <= bound[1]:
            raise ValueError(f"{name} values should be between {bound}, but got {value}.")
        if value[0] == value[1] == center:
            return None
        return tuple(value)

    @staticmethod
    def get_params(brightness, contrast, saturation, hue):
        """``(order, b, c, s, h)``: a permutation of the four adjustments and their factors
        (None for the disabled ones)."""
        fn_idx = _random.randperm(4)
        b = None if brightness is None else _random.uniform(brightness[0], brightness[1])
        c = None if contrast is None else _random.uniform(contrast[0], contrast[1])
        s = None if saturation is None else _random.uniform(saturation[0], saturation[1])
        h = None if hue is None else _random.uniform(hue[0], hue[1])
        return fn_idx, b, c, s, h

    def forward(self, img):
        fn_idx, b, c, s, h = self.get_params(self.brightness, self.contrast, self.saturation,
                                             self.hue)
        for fn_id in fn_idx:
            if fn_id == 0 and b is not None:
                img = F.adjust_brightness(img, b)
            elif fn_id == 1 and c is not None:
                img = F.adjust_contrast(img, c)
            elif fn_id == 2 and s is not None:
                img = F.adjust_saturation(img, s)
            elif fn_id == 3 and h is not None:
                img = F.adjust_hue(img, h)
        return img

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__}(brightness={self.brightness}, "
                f"contrast={self.contrast}, saturation={self.saturation}, hue={self.hue})")


def _check_sequence_input(x, name, req_sizes) -> None:
    msg = req_sizes[0] if len(req_sizes) < 2 else " or ".join(str(s) for s in req_sizes)
    if not isinstance(x, Sequence):
        raise TypeError(f"{name} should be a sequence of length {msg}.")
    if len(x) not in req_sizes:
        raise ValueError(f"{name} should be a sequence of length {msg}.")


def _setup_angle(x, name, req_sizes=(2,)):
    if isinstance(x, numbers.Number):
        if x < 0:
            raise ValueError(f"If {name} is a single number, it must be positive.")
        x = [-x, x]
    else:
        _check_sequence_input(x, name, req_sizes)
    return [float(d) for d in x]


class RandomRotation(nn.Module):
    """Rotates by an angle drawn uniformly from ``degrees``.

    Args:
        degrees (float or (min, max)): a float ``d`` means ``(-d, d)``.
        interpolation (InterpolationMode): NEAREST or BILINEAR. Default NEAREST
        expand (bool): grow the output to hold the whole rotated image. Default False
        center (sequence, optional): the rotation center (default the image center).
        fill (number or sequence): the value outside the image. Default 0
    """

    def __init__(self, degrees, interpolation=InterpolationMode.NEAREST, expand=False,
                 center=None, fill=0):
        super().__init__()
        if isinstance(interpolation, int):
            interpolation = _interpolation_modes_from_int(interpolation)
        self.degrees = _setup_angle(degrees, name="degrees")
        if center is not None and (not isinstance(center, Sequence) or len(center) != 2):
            raise (TypeError if not isinstance(center, Sequence) else ValueError)(
                "center should be a sequence of length 2.")
        self.center = center
        self.interpolation = interpolation
        self.expand = expand
        if fill is None:
            fill = 0
        elif not isinstance(fill, (Sequence, numbers.Number)):
            raise TypeError("Fill should be either a sequence or a number.")
        self.fill = fill

    @staticmethod
    def get_params(degrees) -> float:
        """An angle drawn uniformly from ``degrees``."""
        return _random.uniform(float(degrees[0]), float(degrees[1]))

    def forward(self, img):
        fill = self.fill
        channels, _, _ = F.get_dimensions(img)
        if isinstance(img, Tensor):
            fill = [float(fill)] * channels if isinstance(fill, (int, float)) else [
                float(f) for f in fill]
        angle = self.get_params(self.degrees)
        return F.rotate(img, angle, self.interpolation, self.expand, self.center, fill)

    def __repr__(self) -> str:
        s = (f"{self.__class__.__name__}(degrees={self.degrees}, "
             f"interpolation={self.interpolation.value}, expand={self.expand}")
        if self.center is not None:
            s += f", center={self.center}"
        if self.fill is not None:
            s += f", fill={self.fill}"
        return s + ")"


class Grayscale(nn.Module):
    """Converts to grayscale with ``num_output_channels`` (1 or 3) channels."""

    def __init__(self, num_output_channels=1):
        super().__init__()
        self.num_output_channels = num_output_channels

    def forward(self, img):
        return F.rgb_to_grayscale(img, num_output_channels=self.num_output_channels)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(num_output_channels={self.num_output_channels})"


class RandomGrayscale(nn.Module):
    """Converts to grayscale (keeping the channel count) with probability ``p`` (0.1)."""

    def __init__(self, p=0.1):
        super().__init__()
        self.p = p

    def forward(self, img):
        num_output_channels, _, _ = F.get_dimensions(img)
        if _random.uniform() < self.p:
            return F.rgb_to_grayscale(img, num_output_channels=num_output_channels)
        return img

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(p={self.p})"


class GaussianBlur(nn.Module):
    """Blurs with a Gaussian kernel of odd ``kernel_size`` whose sigma is drawn uniformly from
    ``sigma`` (``(min, max)``, default ``(0.1, 2.0)``; a number: fixed)."""

    def __init__(self, kernel_size, sigma=(0.1, 2.0)):
        super().__init__()
        self.kernel_size = _setup_size(kernel_size,
                                       "Kernel size should be a tuple/list of two integers")
        for ks in self.kernel_size:
            if ks <= 0 or ks % 2 == 0:
                raise ValueError("Kernel size value should be an odd and positive number.")
        if isinstance(sigma, numbers.Number):
            if sigma <= 0:
                raise ValueError("If sigma is a single number, it must be positive.")
            sigma = (sigma, sigma)
        elif isinstance(sigma, Sequence) and len(sigma) == 2:
            if not 0.0 < sigma[0] <= sigma[1]:
                raise ValueError("sigma values should be positive and of the form (min, max).")
        else:
            raise ValueError("sigma should be a single number or a list/tuple with length 2.")
        self.sigma = sigma

    @staticmethod
    def get_params(sigma_min: float, sigma_max: float) -> float:
        return _random.uniform(sigma_min, sigma_max)

    def forward(self, img):
        sigma = self.get_params(self.sigma[0], self.sigma[1])
        return F.gaussian_blur(img, self.kernel_size, [sigma, sigma])

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(kernel_size={self.kernel_size}, sigma={self.sigma})"


class _RandomTransforms:
    """A list of ``transforms`` applied in some random way (``__call__``)."""

    def __init__(self, transforms):
        if not isinstance(transforms, Sequence):
            raise TypeError("Argument transforms should be a sequence")
        self.transforms = transforms

    def __repr__(self) -> str:
        body = "".join(f"\n    {t}" for t in self.transforms)
        return f"{self.__class__.__name__}({body}\n)"


class RandomOrder(_RandomTransforms):
    """Applies ``transforms`` in a random order."""

    def __call__(self, img):
        for i in _random.randperm(len(self.transforms)):
            img = self.transforms[i](img)
        return img


class RandomChoice(_RandomTransforms):
    """Applies one of ``transforms``, picked with weights ``p`` (default: uniform)."""

    def __init__(self, transforms, p=None):
        super().__init__(transforms)
        if p is not None and not isinstance(p, Sequence):
            raise TypeError("Argument p should be a sequence")
        self.p = p

    def __call__(self, *args):
        return self.transforms[_random.choice(len(self.transforms), self.p)](*args)

    def __repr__(self) -> str:
        return f"{super().__repr__()}(p={self.p})"


class _RandomOp(nn.Module):
    """Applies ``functional.<_op>`` (with the setting named ``_arg``, if any) with probability
    ``p``."""

    _op = ""
    _arg = None

    def __init__(self, p, value=None):
        super().__init__()
        if self._arg is not None:
            setattr(self, self._arg, value)
        self.p = p

    def forward(self, img):
        if _random.uniform() < self.p:
            args = () if self._arg is None else (getattr(self, self._arg),)
            return getattr(F, self._op)(img, *args)
        return img

    def __repr__(self) -> str:
        arg = "" if self._arg is None else f"{self._arg}={getattr(self, self._arg)},"
        return f"{self.__class__.__name__}({arg}p={self.p})"


class RandomInvert(_RandomOp):
    """Inverts the colors with probability ``p`` (default 0.5)."""

    _op = "invert"

    def __init__(self, p=0.5):
        super().__init__(p)


class RandomPosterize(_RandomOp):
    """Keeps ``bits`` bits per channel with probability ``p`` (default 0.5)."""

    _op, _arg = "posterize", "bits"

    def __init__(self, bits, p=0.5):
        super().__init__(p, bits)


class RandomSolarize(_RandomOp):
    """Inverts the pixels at or above ``threshold`` with probability ``p`` (default 0.5)."""

    _op, _arg = "solarize", "threshold"

    def __init__(self, threshold, p=0.5):
        super().__init__(p, threshold)


class RandomAdjustSharpness(_RandomOp):
    """Adjusts the sharpness by ``sharpness_factor`` with probability ``p`` (default 0.5)."""

    _op, _arg = "adjust_sharpness", "sharpness_factor"

    def __init__(self, sharpness_factor, p=0.5):
        super().__init__(p, sharpness_factor)


class RandomAutocontrast(_RandomOp):
    """Autocontrasts each channel with probability ``p`` (default 0.5)."""

    _op = "autocontrast"

    def __init__(self, p=0.5):
        super().__init__(p)


class RandomEqualize(_RandomOp):
    """Equalizes the histogram with probability ``p`` (default 0.5)."""

    _op = "equalize"

    def __init__(self, p=0.5):
        super().__init__(p)
