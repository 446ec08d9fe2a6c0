"""torchvision.transforms' classes (v1): conversions, normalization and geometry; the color
and rotation transforms are in ``_augment.py``. Each works on PIL images, tensors and NumPy
``H x W (x C)`` images (see ``functional``).

Per-sample work in jtorch's data pipeline stays in NumPy where it can: inside DataLoader workers
and the default-collate fetch path (host mode) ToTensor, Normalize, crops, flips and padding
build NumPy-backed host tensors, and ``Compose`` of ToTensor/Normalize transforms whole batches
at once. Transforms that are pure NumPy/Pillow say so (``_jtorch_fork_safe``) so the loader may
fork its workers.

Differences from torchvision: random parameters come from jtorch's generator through NumPy
(``_random.py``): seeded by ``jtorch.manual_seed``, but not the values torch's RNG would draw.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Sequence

import numpy as np

from jtorch import nn
from jtorch._tensor import Tensor

from ..._ops.creation import from_numpy
from ...utils.data import _worker as worker
from . import _random, functional as F
from .functional import InterpolationMode, _interpolation_modes_from_int, _to_chw

__all__ = ["CenterCrop", "Compose", "ConvertImageDtype", "Lambda", "Normalize", "Pad",
           "PILToTensor", "RandomCrop", "RandomHorizontalFlip", "RandomResizedCrop",
           "RandomVerticalFlip", "Resize", "ToPILImage", "ToTensor"]


class _Safe:
    """Transforms made of NumPy/Pillow code only: safe in a forked worker."""

    def _jtorch_fork_safe(self):
        return True


def _check_scale_ratio(scale, ratio):
    """torchvision's checks of a ``(min, max)`` area scale and aspect ratio range."""
    if not isinstance(scale, Sequence):
        raise TypeError("Scale should be a sequence")
    if not isinstance(ratio, Sequence):
        raise TypeError("Ratio should be a sequence")
    if (scale[0] > scale[1]) or (ratio[0] > ratio[1]):
        warnings.warn("Scale and ratio should be of kind (min, max)", stacklevel=3)


def _setup_size(size, error_msg):
    if isinstance(size, numbers.Number):
        return int(size), int(size)
    if isinstance(size, Sequence) and len(size) == 1:
        return size[0], size[0]
    if len(size) != 2:
        raise ValueError(error_msg)
    return size


_SIZE_MSG = "Please provide only two dimensions (h, w) for size."


class Compose(_Safe):
    """Chains transforms: ``Compose([t1, t2])(x) == t2(t1(x))``."""

    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, img):
        for t in self.transforms:
            img = t(img)
        return img

    def _jtorch_fork_safe(self):
        return all(worker.fork_safe(t) for t in self.transforms)

    def _jtorch_batch(self, arr):
        """The composition applied to a stacked batch at once, or NotImplemented."""
        for t in self.transforms:
            fn = getattr(t, "_jtorch_batch", None)
            if fn is None:
                return NotImplemented
            arr = fn(arr)
            if arr is NotImplemented:
                return NotImplemented
        return arr

    def __repr__(self) -> str:
        body = "".join(f"\n    {t}" for t in self.transforms)
        return f"{self.__class__.__name__}({body}\n)"


class ToTensor(_Safe):
    """PIL image or ``H x W (x C)`` array -> ``C x H x W`` tensor; uint8 becomes float in
    [0, 1] (other dtypes keep their values)."""

    def __call__(self, pic):
        return F.to_tensor(pic)

    def _jtorch_batch(self, arr):
        return _to_chw(arr, 1) if arr.ndim in (3, 4) else NotImplemented

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}()"


class PILToTensor(_Safe):
    """PIL image -> ``C x H x W`` tensor of the same dtype (no scaling)."""

    def __call__(self, pic):
        return F.pil_to_tensor(pic)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}()"


class ToPILImage(_Safe):
    """Tensor ``C x H x W`` or array ``H x W x C`` -> PIL image (``mode`` as PIL's)."""

    def __init__(self, mode=None):
        self.mode = mode

    def __call__(self, pic):
        return F.to_pil_image(pic, self.mode)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({'' if self.mode is None else f'mode={self.mode}'})"


class ConvertImageDtype(nn.Module):
    """Converts a tensor image to ``dtype``, scaling the values."""

    def __init__(self, dtype) -> None:
        super().__init__()
        self.dtype = dtype

    def forward(self, image):
        return F.convert_image_dtype(image, self.dtype)


class Normalize(_Safe, nn.Module):
    """``(x - mean[c]) / std[c]`` per channel of a float ``(..., C, H, W)`` tensor.

    Args:
        mean (sequence): per-channel means.
        std (sequence): per-channel standard deviations.
        inplace (bool): overwrite the input. Default False
    """

    def __init__(self, mean, std, inplace=False):
        super().__init__()
        self.mean = mean
        self.std = std
        self.inplace = inplace

    def forward(self, tensor):
        if not isinstance(tensor, Tensor):
            raise TypeError(f"Input tensor should be a torch tensor. Got {type(tensor)}.")
        return F.normalize(tensor, self.mean, self.std, self.inplace)

    def _jtorch_batch(self, arr):
        if arr.dtype.kind != "f" or arr.ndim < 4:
            return NotImplemented
        mean, std = np.asarray(self.mean, arr.dtype), np.asarray(self.std, arr.dtype)
        if (std == 0).any():
            raise ValueError(f"std evaluated to zero after conversion to "
                             f"{from_numpy(arr[:0]).dtype}, leading to division by zero.")
        mean = mean.reshape(-1, 1, 1) if mean.ndim == 1 else mean
        std = std.reshape(-1, 1, 1) if std.ndim == 1 else std
        return (arr - mean) / std

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(mean={self.mean}, std={self.std})"


class Lambda:
    """Applies a user function (user code: not assumed fork-safe)."""

    def __init__(self, lambd):
        if not callable(lambd):
            raise TypeError(f"Argument lambd should be callable, got {type(lambd).__name__!r}")
        self.lambd = lambd

    def __call__(self, img):
        return self.lambd(img)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}()"


class Resize(nn.Module):
    """Resizes to ``size`` (``(h, w)``, or the shorter edge for an int).

    Args:
        size (int or sequence): the output size.
        interpolation (InterpolationMode): Default BILINEAR
        max_size (int, optional): bound on the longer edge (int ``size`` only).
        antialias (bool): for tensors (PIL always antialiases). Default True
    """

    def __init__(self, size, interpolation=InterpolationMode.BILINEAR, max_size=None,
                 antialias=True):
        super().__init__()
        if not isinstance(size, (int, Sequence)):
            raise TypeError(f"Size should be int or sequence. Got {type(size)}")
        if isinstance(size, Sequence) and len(size) not in (1, 2):
            raise ValueError("If size is a sequence, it should have 1 or 2 values")
        self.size = size
        self.max_size = max_size
        if isinstance(interpolation, int):
            interpolation = _interpolation_modes_from_int(interpolation)
        self.interpolation = interpolation
        self.antialias = antialias

    def forward(self, img):
        return F.resize(img, self.size, self.interpolation, self.max_size, self.antialias)

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__}(size={self.size}, interpolation="
                f"{self.interpolation.value}, max_size={self.max_size}, "
                f"antialias={self.antialias})")


class _SizedCrop(_Safe, nn.Module):
    """Applies ``_crop(img, size)`` (a ``functional`` crop) with an ``(h, w)`` ``size``."""

    _crop = None

    def __init__(self, size):
        super().__init__()
        self.size = _setup_size(size, error_msg=_SIZE_MSG)

    def forward(self, img):
        return type(self)._crop(img, self.size)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(size={self.size})"


class CenterCrop(_SizedCrop):
    """The centered ``size`` window (zero-padded when the image is smaller)."""

    _crop = F.center_crop


class Pad(_Safe, nn.Module):
    """Pads all sides: ``padding`` int, ``(lr, tb)`` or ``(l, t, r, b)``; ``padding_mode``
    ``constant`` (``fill``), ``edge``, ``reflect`` or ``symmetric``."""

    def __init__(self, padding, fill=0, padding_mode="constant"):
        super().__init__()
        if not isinstance(padding, (numbers.Number, tuple, list)):
            raise TypeError("Got inappropriate padding arg")
        if not isinstance(fill, (numbers.Number, tuple, list)):
            raise TypeError("Got inappropriate fill arg")
        if padding_mode not in ["constant", "edge", "reflect", "symmetric"]:
            raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")
        if isinstance(padding, Sequence) and len(padding) not in [1, 2, 4]:
            raise ValueError("Padding must be an int or a 1, 2, or 4 element tuple, not a "
                             f"{len(padding)} element tuple")
        self.padding = padding
        self.fill = fill
        self.padding_mode = padding_mode

    def forward(self, img):
        return F.pad(img, self.padding, self.fill, self.padding_mode)

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__}(padding={self.padding}, fill={self.fill}, "
                f"padding_mode={self.padding_mode})")


class RandomCrop(_Safe, nn.Module):
    """A random ``size`` window, after optional ``padding`` (and ``pad_if_needed``).

    Args:
        size (int or sequence): ``(h, w)`` of the crop.
        padding (int or sequence, optional): padding first (as ``Pad``).
        pad_if_needed (bool): pad an image smaller than ``size``. Default False
        fill, padding_mode: as ``Pad``.
    """

    @staticmethod
    def get_params(img, output_size):
        """``(i, j, h, w)`` of a random crop of ``output_size``."""
        _, h, w = F.get_dimensions(img)
        th, tw = output_size
        if h < th or w < tw:
            raise ValueError(f"Required crop size {(th, tw)} is larger than input image size "
                             f"{(h, w)}")
        if w == tw and h == th:
            return 0, 0, h, w
        return _random.randint(0, h - th + 1), _random.randint(0, w - tw + 1), th, tw

    def __init__(self, size, padding=None, pad_if_needed=False, fill=0, padding_mode="constant"):
        super().__init__()
        self.size = tuple(_setup_size(size, error_msg=_SIZE_MSG))
        self.padding = padding
        self.pad_if_needed = pad_if_needed
        self.fill = fill
        self.padding_mode = padding_mode

    def forward(self, img):
        if self.padding is not None:
            img = F.pad(img, self.padding, self.fill, self.padding_mode)
        _, height, width = F.get_dimensions(img)
        if self.pad_if_needed and width < self.size[1]:
            img = F.pad(img, [self.size[1] - width, 0], self.fill, self.padding_mode)
        if self.pad_if_needed and height < self.size[0]:
            img = F.pad(img, [0, self.size[0] - height], self.fill, self.padding_mode)
        i, j, h, w = self.get_params(img, self.size)
        return F.crop(img, i, j, h, w)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(size={self.size}, padding={self.padding})"


class _RandomFlip(_Safe, nn.Module):
    _flip = None

    def __init__(self, p=0.5):
        super().__init__()
        self.p = p

    def forward(self, img):
        return type(self)._flip(img) if _random.uniform() < self.p else img

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(p={self.p})"


class RandomHorizontalFlip(_RandomFlip):
    """Flips left-right with probability ``p`` (default 0.5)."""

    _flip = F.hflip


class RandomVerticalFlip(_RandomFlip):
    """Flips top-bottom with probability ``p`` (default 0.5)."""

    _flip = F.vflip


def _draw_box(area, scale, log_ratio):
    """The sides ``(round(sqrt(a * r)), round(sqrt(a / r)))`` of a random box: area ``a`` a
    ``scale``-range fraction of ``area``, aspect ratio ``r`` log-uniform in ``log_ratio``."""
    target_area = area * _random.uniform(scale[0], scale[1])
    aspect_ratio = math.exp(_random.uniform(log_ratio[0], log_ratio[1]))
    return (int(round(math.sqrt(target_area * aspect_ratio))),
            int(round(math.sqrt(target_area / aspect_ratio))))


class RandomResizedCrop(nn.Module):
    """A random crop (area fraction in ``scale``, aspect ratio in ``ratio``) resized to
    ``size``.

    Args:
        size (int or sequence): the output ``(h, w)``.
        scale (tuple): area fraction range. Default (0.08, 1.0)
        ratio (tuple): aspect ratio range (log-uniform). Default (3/4, 4/3)
        interpolation (InterpolationMode): Default BILINEAR
        antialias (bool): Default True
    """

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0),
                 interpolation=InterpolationMode.BILINEAR, antialias=True):
        super().__init__()
        self.size = _setup_size(size, error_msg=_SIZE_MSG)
        _check_scale_ratio(scale, ratio)
        if isinstance(interpolation, int):
            interpolation = _interpolation_modes_from_int(interpolation)
        self.interpolation = interpolation
        self.antialias = antialias
        self.scale = scale
        self.ratio = ratio

    @staticmethod
    def get_params(img, scale, ratio):
        """``(i, j, h, w)`` of a random sized crop (10 tries, then a central crop)."""
        _, height, width = F.get_dimensions(img)
        area = height * width
        log_ratio = (math.log(ratio[0]), math.log(ratio[1]))
        for _ in range(10):
            w, h = _draw_box(area, scale, log_ratio)
            if 0 < w <= width and 0 < h <= height:
                return _random.randint(0, height - h + 1), _random.randint(0, width - w + 1), h, w
        in_ratio = float(width) / float(height)
        if in_ratio < min(ratio):
            w, h = width, int(round(width / min(ratio)))
        elif in_ratio > max(ratio):
            h, w = height, int(round(height * max(ratio)))
        else:
            w, h = width, height
        return (height - h) // 2, (width - w) // 2, h, w

    def forward(self, img):
        i, j, h, w = self.get_params(img, self.scale, self.ratio)
        return F.resized_crop(img, i, j, h, w, self.size, self.interpolation,
                              antialias=self.antialias)

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__}(size={self.size}, "
                f"scale={tuple(round(s, 4) for s in self.scale)}, "
                f"ratio={tuple(round(r, 4) for r in self.ratio)}, "
                f"interpolation={self.interpolation.value}, antialias={self.antialias})")
