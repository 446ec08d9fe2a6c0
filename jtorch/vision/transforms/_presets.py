"""The preprocessing presets attached to model weights (``weights.transforms()``)."""

from __future__ import annotations

from jtorch import nn
from jtorch._tensor import Tensor

from ..._core.dtypes import float32
from . import functional as F
from .functional import InterpolationMode

__all__ = ["ImageClassification", "ObjectDetection", "OpticalFlow", "SemanticSegmentation",
           "VideoClassification"]


class _Preset(nn.Module):
    """What the presets share: normalization with ``mean``/``std`` after scaling to [0, 1]
    (``_normalize``), resizing with ``interpolation``/``antialias``, and torchvision's repr
    and ``describe`` text."""

    _REPR_FIELDS: tuple[str, ...]

    def __init__(self, mean, std, interpolation, antialias) -> None:
        super().__init__()
        self.mean = list(mean)
        self.std = list(std)
        self.interpolation = interpolation
        self.antialias = antialias

    def _resize(self, img, size):
        return F.resize(img, size, interpolation=self.interpolation, antialias=self.antialias)

    def _normalize(self, img):
        if not isinstance(img, Tensor):
            img = F.pil_to_tensor(img)
        img = F.convert_image_dtype(img, float32)
        return F.normalize(img, mean=self.mean, std=self.std)

    def __repr__(self) -> str:
        fields = "".join(f"\n    {name}={getattr(self, name)}" for name in self._REPR_FIELDS)
        return f"{self.__class__.__name__}({fields}\n)"

    def _describe_crop(self) -> str:
        return ""

    def describe(self) -> str:
        return ("Accepts ``PIL.Image``, batched ``(B, C, H, W)`` and single ``(C, H, W)`` image "
                "``torch.Tensor`` objects. The images are resized to "
                f"``resize_size={self.resize_size}`` using "
                f"``interpolation={self.interpolation}``{self._describe_crop()}. Finally the "
                "values are first rescaled to ``[0.0, 1.0]`` and then normalized using "
                f"``mean={self.mean}`` and ``std={self.std}``.")


class ObjectDetection(nn.Module):
    """Scales images to float in [0, 1] (PIL images through ``pil_to_tensor``): the
    detection models' preprocessing, which normalize and resize themselves."""

    def forward(self, img):
        if not isinstance(img, Tensor):
            img = F.pil_to_tensor(img)
        return F.convert_image_dtype(img, float32)

    def __repr__(self) -> str:
        return self.__class__.__name__ + "()"

    def describe(self) -> str:
        return ("Accepts ``PIL.Image``, batched ``(B, C, H, W)`` and single ``(C, H, W)`` image "
                "``torch.Tensor`` objects. The images are rescaled to ``[0.0, 1.0]``.")


class OpticalFlow(nn.Module):
    """Scales both images to float in [0, 1] (PIL images through ``pil_to_tensor``), then maps
    them to [-1, 1]: the RAFT weights' preprocessing; returns the pair."""

    def forward(self, img1, img2):
        def prepare(img):
            if not isinstance(img, Tensor):
                img = F.pil_to_tensor(img)
            img = F.convert_image_dtype(img, float32)
            return F.normalize(img, mean=[0.5, 0.5, 0.5], std=[0.5, 0.5, 0.5]).contiguous()

        return prepare(img1), prepare(img2)

    def __repr__(self) -> str:
        return self.__class__.__name__ + "()"

    def describe(self) -> str:
        return ("Accepts ``PIL.Image``, batched ``(B, C, H, W)`` and single ``(C, H, W)`` image "
                "``torch.Tensor`` objects. The images are rescaled to ``[-1.0, 1.0]``.")


class ImageClassification(_Preset):
    """Resize (shorter edge ``resize_size``), center crop ``crop_size``, scale to [0, 1] and
    normalize: torchvision's ImageNet evaluation preprocessing.

    Args:
        crop_size (int): the output side.
        resize_size (int): the shorter edge before cropping. Default 256
        mean, std (tuple): normalization. Default ImageNet's
        interpolation (InterpolationMode): Default BILINEAR
        antialias (bool): Default True
    """

    _REPR_FIELDS = ("crop_size", "resize_size", "mean", "std", "interpolation")

    def __init__(self, *, crop_size: int, resize_size: int = 256,
                 mean: tuple[float, ...] = (0.485, 0.456, 0.406),
                 std: tuple[float, ...] = (0.229, 0.224, 0.225),
                 interpolation: InterpolationMode = InterpolationMode.BILINEAR,
                 antialias: bool | None = True) -> None:
        super().__init__(mean, std, interpolation, antialias)
        self.crop_size = [crop_size]
        self.resize_size = [resize_size]

    def forward(self, img):
        img = F.center_crop(self._resize(img, self.resize_size), self.crop_size)
        return self._normalize(img)

    def _describe_crop(self) -> str:
        return f", followed by a central crop of ``crop_size={self.crop_size}``"


class SemanticSegmentation(_Preset):
    """Resize (shorter edge ``resize_size``; None: no resize), scale to [0, 1] and normalize:
    torchvision's preprocessing of the segmentation models' weights (no crop).

    Args:
        resize_size (int or None): the shorter edge (keyword only).
        mean, std (tuple): normalization. Default ImageNet's
        interpolation (InterpolationMode): Default BILINEAR
        antialias (bool): Default True
    """

    _REPR_FIELDS = ("resize_size", "mean", "std", "interpolation")

    def __init__(self, *, resize_size: int | None,
                 mean: tuple[float, ...] = (0.485, 0.456, 0.406),
                 std: tuple[float, ...] = (0.229, 0.224, 0.225),
                 interpolation: InterpolationMode = InterpolationMode.BILINEAR,
                 antialias: bool | None = True) -> None:
        super().__init__(mean, std, interpolation, antialias)
        self.resize_size = [resize_size] if resize_size is not None else None

    def forward(self, img):
        if isinstance(self.resize_size, list):
            img = self._resize(img, self.resize_size)
        return self._normalize(img)


class VideoClassification(_Preset):
    """Per frame: resize to ``resize_size`` (bilinear, ``antialias=False`` as torchvision's,
    which its video weights were trained with), center crop ``crop_size``, scale to [0, 1] and
    normalize; then ``(N, T, C, H, W)`` becomes ``(N, C, T, H, W)`` (an unbatched
    ``(T, C, H, W)`` clip becomes ``(C, T, H, W)``): torchvision's video evaluation preset.

    Args:
        crop_size (tuple[int, int]): the output frame size (keyword only).
        resize_size (tuple[int] or tuple[int, int]): the shorter edge, or the frame size.
        mean, std (tuple): normalization. Default Kinetics-400's
        interpolation (InterpolationMode): Default BILINEAR
    """

    _REPR_FIELDS = ("crop_size", "resize_size", "mean", "std", "interpolation")

    def __init__(self, *, crop_size: tuple[int, int], resize_size: tuple[int, ...],
                 mean: tuple[float, ...] = (0.43216, 0.394666, 0.37645),
                 std: tuple[float, ...] = (0.22803, 0.22145, 0.216989),
                 interpolation: InterpolationMode = InterpolationMode.BILINEAR) -> None:
        super().__init__(mean, std, interpolation, False)
        self.crop_size = list(crop_size)
        self.resize_size = list(resize_size)
        del self.antialias  # (torchvision's preset has no such attribute)

    def forward(self, vid):
        squeeze = vid.ndim < 5
        if squeeze:
            vid = vid.unsqueeze(dim=0)
        n, t, c = vid.shape[:3]
        vid = vid.reshape(-1, *vid.shape[2:])
        vid = F.resize(vid, self.resize_size, interpolation=self.interpolation, antialias=False)
        vid = F.normalize(F.convert_image_dtype(F.center_crop(vid, self.crop_size), float32),
                          mean=self.mean, std=self.std)
        vid = vid.reshape(n, t, c, *self.crop_size).permute(0, 2, 1, 3, 4)
        return vid.squeeze(dim=0) if squeeze else vid

    def describe(self) -> str:
        return ("Accepts batched ``(B, T, C, H, W)`` and single ``(T, C, H, W)`` video frame "
                "``torch.Tensor`` objects. The frames are resized to "
                f"``resize_size={self.resize_size}`` using "
                f"``interpolation={self.interpolation}``, followed by a central crop of "
                f"``crop_size={self.crop_size}``. Finally the values are first rescaled to "
                "``[0.0, 1.0]`` and then normalized using "
                f"``mean={self.mean}`` and ``std={self.std}``. Finally the output dimensions "
                "are permuted to ``(..., C, T, H, W)`` tensors.")
