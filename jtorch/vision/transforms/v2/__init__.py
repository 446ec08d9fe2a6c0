"""``torchvision.transforms.v2``: the v2 names over jtorch's transforms (see ``_transform``
for the calling convention and its differences from torchvision)."""

from __future__ import annotations

import warnings

import numpy as np

from jtorch._tensor import Tensor

from ...._core.dtypes import float32
from ...._core.errors import missing_names
from ...._ops.creation import from_numpy
from .. import (
    _augment as _a,
    _augment_geometry as _g,
    _random,
    autoaugment as _aa,
    transforms as _t,
)
from ..autoaugment import AutoAugmentPolicy as AutoAugmentPolicy
from ..functional import InterpolationMode as InterpolationMode, _is_pil_image
from . import functional as functional
from ._augment import JPEG as JPEG, CutMix as CutMix, MixUp as MixUp
from ._color import (
    RGB as RGB,
    GaussianNoise as GaussianNoise,
    Grayscale as Grayscale,
    RandomChannelPermutation as RandomChannelPermutation,
    RandomGrayscale as RandomGrayscale,
    RandomPhotometricDistort as RandomPhotometricDistort,
)
from ._geometry import (
    RandomResize as RandomResize,
    RandomShortestSize as RandomShortestSize,
    RandomZoomOut as RandomZoomOut,
    ScaleJitter as ScaleJitter,
)
from ._transform import Transform as Transform, wrap_v1

__all__ = ["JPEG", "RGB", "AugMix", "AutoAugment", "AutoAugmentPolicy", "CenterCrop",
           "ColorJitter", "Compose", "ConvertImageDtype", "CutMix", "ElasticTransform",
           "FiveCrop", "GaussianBlur", "GaussianNoise", "Grayscale", "Identity",
           "InterpolationMode", "Lambda", "LinearTransformation", "MixUp", "Normalize",
           "PILToTensor", "Pad", "RandAugment", "RandomAdjustSharpness", "RandomAffine",
           "RandomApply", "RandomAutocontrast", "RandomChannelPermutation", "RandomChoice",
           "RandomCrop", "RandomEqualize", "RandomErasing", "RandomGrayscale",
           "RandomHorizontalFlip", "RandomInvert", "RandomOrder", "RandomPerspective",
           "RandomPhotometricDistort", "RandomPosterize", "RandomResize", "RandomResizedCrop",
           "RandomRotation", "RandomShortestSize", "RandomSolarize", "RandomVerticalFlip",
           "RandomZoomOut", "Resize", "ScaleJitter", "TenCrop", "ToDtype", "ToImage",
           "ToPILImage", "ToPureTensor", "ToTensor", "Transform", "TrivialAugmentWide",
           "functional"]

CenterCrop = wrap_v1(_t.CenterCrop, "CenterCrop")
ColorJitter = wrap_v1(_a.ColorJitter, "ColorJitter")
GaussianBlur = wrap_v1(_a.GaussianBlur, "GaussianBlur")
Normalize = wrap_v1(_t.Normalize, "Normalize")
Pad = wrap_v1(_t.Pad, "Pad")
PILToTensor = wrap_v1(_t.PILToTensor, "PILToTensor")
RandomCrop = wrap_v1(_t.RandomCrop, "RandomCrop")
RandomHorizontalFlip = wrap_v1(_t.RandomHorizontalFlip, "RandomHorizontalFlip")
RandomResizedCrop = wrap_v1(_t.RandomResizedCrop, "RandomResizedCrop")
RandomRotation = wrap_v1(_a.RandomRotation, "RandomRotation")
RandomVerticalFlip = wrap_v1(_t.RandomVerticalFlip, "RandomVerticalFlip")
Resize = wrap_v1(_t.Resize, "Resize")
ToPILImage = wrap_v1(_t.ToPILImage, "ToPILImage")
AugMix = wrap_v1(_aa.AugMix, "AugMix")
AutoAugment = wrap_v1(_aa.AutoAugment, "AutoAugment")
RandAugment = wrap_v1(_aa.RandAugment, "RandAugment")
TrivialAugmentWide = wrap_v1(_aa.TrivialAugmentWide, "TrivialAugmentWide")
ElasticTransform = wrap_v1(_g.ElasticTransform, "ElasticTransform")
FiveCrop = wrap_v1(_g.FiveCrop, "FiveCrop")
LinearTransformation = wrap_v1(_g.LinearTransformation, "LinearTransformation")
RandomAffine = wrap_v1(_g.RandomAffine, "RandomAffine")
RandomErasing = wrap_v1(_g.RandomErasing, "RandomErasing")
RandomPerspective = wrap_v1(_g.RandomPerspective, "RandomPerspective")
TenCrop = wrap_v1(_g.TenCrop, "TenCrop")
RandomAdjustSharpness = wrap_v1(_a.RandomAdjustSharpness, "RandomAdjustSharpness")
RandomAutocontrast = wrap_v1(_a.RandomAutocontrast, "RandomAutocontrast")
RandomEqualize = wrap_v1(_a.RandomEqualize, "RandomEqualize")
RandomInvert = wrap_v1(_a.RandomInvert, "RandomInvert")
RandomPosterize = wrap_v1(_a.RandomPosterize, "RandomPosterize")
RandomSolarize = wrap_v1(_a.RandomSolarize, "RandomSolarize")

# torchvision's v2 transforms jtorch lacks: stand-in classes (importable, subclassable; making
# one raises NotImplementedError naming it), as lightly.transforms imports
# ConvertBoundingBoxFormat at import time; AutoAugmentPolicy (an enum) raises when read
__getattr__ = missing_names("torchvision.transforms.v2", (), classes=(
    "ClampBoundingBoxes", "ClampKeyPoints", "ConvertBoundingBoxFormat", "RandomIoUCrop",
    "SanitizeBoundingBoxes", "SanitizeKeyPoints", "SetClampingMode",
    "UniformTemporalSubsample"),
    bases=(Transform,))


class Compose(Transform):
    """Chains v2 transforms (each sees the whole sample)."""

    def __init__(self, transforms):
        super().__init__()
        if not isinstance(transforms, (list, tuple)):
            raise TypeError("Argument transforms should be a sequence of callables")
        if not transforms:
            raise ValueError("Pass at least one transform")
        self.transforms = transforms

    def forward(self, *inputs):
        needs_unpacking = len(inputs) > 1
        for t in self.transforms:
            outputs = t(*inputs)
            inputs = outputs if needs_unpacking else (outputs,)
        return outputs

    def __repr__(self):
        body = "".join(f"\n    {t}" for t in self.transforms)
        return f"{self.__class__.__name__}({body}\n)"


class RandomApply(Compose):
    """Applies ``transforms`` with probability ``p``."""

    def __init__(self, transforms, p=0.5):
        super().__init__(transforms)
        if not (0.0 <= p <= 1.0):
            raise ValueError("`p` should be a floating point value in the interval [0.0, 1.0].")
        self.p = p

    def forward(self, *inputs):
        sample = inputs if len(inputs) > 1 else inputs[0]
        if _random.uniform() >= self.p:
            return sample
        return super().forward(*inputs)


class RandomChoice(Compose):
    """Applies one of ``transforms``, picked with probabilities ``p`` (normalized; default
    uniform)."""

    def __init__(self, transforms, p=None):
        if not isinstance(transforms, (list, tuple)):
            raise TypeError("Argument transforms should be a sequence of callables")
        if p is None:
            p = [1] * len(transforms)
        elif len(p) != len(transforms):
            raise ValueError(f"Length of p doesn't match the number of transforms: {len(p)} != "
                             f"{len(transforms)}")
        super().__init__(transforms)
        total = sum(p)
        self.p = [prob / total for prob in p]

    def forward(self, *inputs):
        return self.transforms[_random.choice(len(self.transforms), self.p)](*inputs)


class RandomOrder(Compose):
    """Applies ``transforms`` in a random order."""

    def forward(self, *inputs):
        needs_unpacking = len(inputs) > 1
        for i in _random.randperm(len(self.transforms)):
            outputs = self.transforms[i](*inputs)
            inputs = outputs if needs_unpacking else (outputs,)
        return outputs


class Lambda(Transform):
    """Applies ``lambd`` to every leaf of the sample of one of ``types`` (default all)."""

    _all_leaves = True

    def __init__(self, lambd, *types):
        super().__init__()
        self.lambd = lambd
        self.types = types or (object,)

    def extra_repr(self):
        name = getattr(self.lambd, "__name__", None)
        return ", ".join(([name] if name else [])
                         + [f"types={[t.__name__ for t in self.types]}"])

    def _transform_image(self, x):
        return self.lambd(x) if isinstance(x, self.types) else x


class Identity(Transform):
    """Returns its input."""

    def forward(self, *inputs):
        return inputs if len(inputs) > 1 else inputs[0]


class ToImage(Transform):
    """PIL image or NumPy ``H x W (x C)`` -> ``C x H x W`` tensor (dtype kept); tensors pass."""

    def _transform_image(self, img):
        if isinstance(img, Tensor):
            return img
        if isinstance(img, np.ndarray):
            arr = img[..., None] if img.ndim == 2 else img
            return from_numpy(np.ascontiguousarray(arr.transpose(2, 0, 1)))
        return functional.pil_to_tensor(img)


class ToPureTensor(Identity):
    """Identity in jtorch (there are no ``tv_tensors`` subclasses to unwrap)."""


class ToDtype(Transform):
    """Converts image tensors to ``dtype``; ``scale=True`` rescales the value range.

    Args:
        dtype (jtorch.dtype or dict): the target dtype (a dict keyed by type is not
            supported).
        scale (bool): rescale (``uint8`` 255 <-> float 1.0). Default False
    """

    def __init__(self, dtype, scale: bool = False):
        super().__init__()
        if isinstance(dtype, dict):
            raise NotImplementedError("jtorch does not implement torchvision.transforms.v2."
                                      "ToDtype with a dict of dtypes (it has no tv_tensors)")
        self.dtype = dtype
        self.scale = scale

    def _transform_image(self, img):
        if not isinstance(img, Tensor):
            return img
        return functional.to_dtype(img, self.dtype, scale=self.scale)


class ConvertImageDtype(ToDtype):
    """Deprecated in v2: ``ToDtype(dtype, scale=True)`` (v2's scaling, not v1's)."""

    def __init__(self, dtype=float32):
        super().__init__(dtype, scale=True)


class ToTensor(Transform):
    """Deprecated in v2 (use ``ToImage()`` then ``ToDtype(float32, scale=True)``)."""

    def __init__(self):
        warnings.warn("The transform `ToTensor()` is deprecated and will be removed in a future "
                      "release. Instead, please use `v2.Compose([v2.ToImage(), "
                      "v2.ToDtype(torch.float32, scale=True)])`.Output is equivalent up to "
                      "float precision.", stacklevel=2)
        super().__init__()

    def _transform_image(self, img):
        return img if isinstance(img, Tensor) else functional.to_tensor(img)
