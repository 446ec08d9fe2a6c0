"""The preprocessing presets attached to model weights (``weights.transforms()``)."""

from __future__ import annotations

from jtorch import nn
from jtorch._tensor import Tensor

from ..._core.dtypes import float32
from . import functional as F
from .functional import InterpolationMode

__all__ = ["ImageClassification", "SemanticSegmentation"]


class ImageClassification(nn.Module):
    """Resize (shorter edge ``resize_size``), center crop ``crop_size``, scale to [0, 1] and
    normalize: torchvision's ImageNet evaluation preprocessing.

    Args:
        crop_size (int): the output side.
        resize_size (int): the shorter edge before cropping. Default 256
        mean, std (tuple): normalization. Default ImageNet's
        interpolation (InterpolationMode): Default BILINEAR
        antialias (bool): Default True
    """

    def __init__(self, *, crop_size: int, resize_size: int = 256,
                 mean: tuple[float, ...] = (0.485, 0.456, 0.406),
                 std: tuple[float, ...] = (0.229, 0.224, 0.225),
                 interpolation: InterpolationMode = InterpolationMode.BILINEAR,
                 antialias: bool | None = True) -> None:
        super().__init__()
        self.crop_size = [crop_size]
        self.resize_size = [resize_size]
        self.mean = list(mean)
        self.std = list(std)
        self.interpolation = interpolation
        self.antialias = antialias

    def forward(self, img):
        img = F.resize(img, self.resize_size, interpolation=self.interpolation,
                       antialias=self.antialias)
        img = F.center_crop(img, self.crop_size)
        if not isinstance(img, Tensor):
            img = F.pil_to_tensor(img)
        img = F.convert_image_dtype(img, float32)
        return F.normalize(img, mean=self.mean, std=self.std)

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__}(\n    crop_size={self.crop_size}\n    resize_size="
                f"{self.resize_size}\n    mean={self.mean}\n    std={self.std}\n    "
                f"interpolation={self.interpolation}\n)")

    def describe(self) -> str:
        return ("Accepts ``PIL.Image``, batched ``(B, C, H, W)`` and single ``(C, H, W)`` image "
                "``torch.Tensor`` objects. The images are resized to "
                f"``resize_size={self.resize_size}`` using "
                f"``interpolation={self.interpolation}``, followed by a central crop of "
                f"``crop_size={self.crop_size}``. Finally the values are first rescaled to "
                f"``[0.0, 1.0]`` and then normalized using ``mean={self.mean}`` and "
                f"``std={self.std}``.")


class SemanticSegmentation(nn.Module):
    """Resize (shorter edge ``resize_size``; None: no resize), scale to [0, 1] and normalize:
    torchvision's preprocessing of the segmentation models' weights (no crop).

    Args:
        resize_size (int or None): the shorter edge (keyword only).
        mean, std (tuple): normalization. Default ImageNet's
        interpolation (InterpolationMode): Default BILINEAR
        antialias (bool): Default True
    """

    def __init__(self, *, resize_size: int | None,
                 mean: tuple[float, ...] = (0.485, 0.456, 0.406),
                 std: tuple[float, ...] = (0.229, 0.224, 0.225),
                 interpolation: InterpolationMode = InterpolationMode.BILINEAR,
                 antialias: bool | None = True) -> None:
        super().__init__()
        self.resize_size = [resize_size] if resize_size is not None else None
        self.mean = list(mean)
        self.std = list(std)
        self.interpolation = interpolation
        self.antialias = antialias

    def forward(self, img):
        if isinstance(self.resize_size, list):
            img = F.resize(img, self.resize_size, interpolation=self.interpolation,
                           antialias=self.antialias)
        if not isinstance(img, Tensor):
            img = F.pil_to_tensor(img)
        img = F.convert_image_dtype(img, float32)
        return F.normalize(img, mean=self.mean, std=self.std)

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__}(\n    resize_size={self.resize_size}\n    "
                f"mean={self.mean}\n    std={self.std}\n    "
                f"interpolation={self.interpolation}\n)")

    def describe(self) -> str:
        return ("Accepts ``PIL.Image``, batched ``(B, C, H, W)`` and single ``(C, H, W)`` image "
                "``torch.Tensor`` objects. The images are resized to "
                f"``resize_size={self.resize_size}`` using "
                f"``interpolation={self.interpolation}``. Finally the values are first rescaled "
                f"to ``[0.0, 1.0]`` and then normalized using ``mean={self.mean}`` and "
                f"``std={self.std}``.")
