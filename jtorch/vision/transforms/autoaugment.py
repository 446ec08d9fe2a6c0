"""``torchvision.transforms.autoaugment``: AutoAugment (the learned ImageNet, CIFAR-10 and SVHN
policies), RandAugment, TrivialAugmentWide and AugMix, on uint8 tensors, PIL and NumPy images
through ``functional``.

Differences from torchvision: the random choices come from jtorch's generator (``_random.py``),
so they are not the ones torch's RNG would make; the operations and their magnitudes are
torchvision's.
"""

from __future__ import annotations

import math
from enum import Enum

import numpy as np

from jtorch import nn
from jtorch._tensor import Tensor

from ..._ops.creation import from_numpy, tensor as torch_tensor
from ..._ops.creation_math import linspace
from . import _random, functional as F
from ._augment_geometry import _tensor_fill
from .functional import InterpolationMode

__all__ = ["AugMix", "AutoAugment", "AutoAugmentPolicy", "RandAugment", "TrivialAugmentWide"]


def _shear(img, magnitude, axis, interpolation, fill):
    shear = [0.0, 0.0]
    shear[axis] = math.degrees(math.atan(magnitude))
    return F.affine(img, angle=0.0, translate=[0, 0], scale=1.0, shear=shear,
                    interpolation=interpolation, fill=fill, center=[0, 0])


def _translate(img, magnitude, axis, interpolation, fill):
    translate = [0, 0]
    translate[axis] = int(magnitude)
    return F.affine(img, angle=0.0, translate=translate, scale=1.0, shear=[0.0, 0.0],
                    interpolation=interpolation, fill=fill)


# op name -> fn(img, magnitude, interpolation, fill)
_OPS = {
    "ShearX": lambda img, m, i, f: _shear(img, m, 0, i, f),
    "ShearY": lambda img, m, i, f: _shear(img, m, 1, i, f),
    "TranslateX": lambda img, m, i, f: _translate(img, m, 0, i, f),
    "TranslateY": lambda img, m, i, f: _translate(img, m, 1, i, f),
    "Rotate": lambda img, m, i, f: F.rotate(img, m, interpolation=i, fill=f),
    "Brightness": lambda img, m, i, f: F.adjust_brightness(img, 1.0 + m),
    "Color": lambda img, m, i, f: F.adjust_saturation(img, 1.0 + m),
    "Contrast": lambda img, m, i, f: F.adjust_contrast(img, 1.0 + m),
    "Sharpness": lambda img, m, i, f: F.adjust_sharpness(img, 1.0 + m),
    "Posterize": lambda img, m, i, f: F.posterize(img, int(m)),
    "Solarize": lambda img, m, i, f: F.solarize(img, m),
    "AutoContrast": lambda img, m, i, f: F.autocontrast(img),
    "Equalize": lambda img, m, i, f: F.equalize(img),
    "Invert": lambda img, m, i, f: F.invert(img),
    "Identity": lambda img, m, i, f: img,
}


def _apply_op(img, op_name: str, magnitude: float, interpolation, fill):
    if op_name not in _OPS:
        raise ValueError(f"The provided operator {op_name} is not recognized.")
    return _OPS[op_name](img, magnitude, interpolation, fill)


class AutoAugmentPolicy(Enum):
    """The AutoAugment policies learned on ImageNet, CIFAR-10 and SVHN."""

    IMAGENET = "imagenet"
    CIFAR10 = "cifar10"
    SVHN = "svhn"


# each policy: 25 sub-policies ";"-separated, each two "op probability [magnitude bin]" steps
_POLICIES = {
    "imagenet": (
        "Posterize 0.4 8/Rotate 0.6 9; Solarize 0.6 5/AutoContrast 0.6;"
        "Equalize 0.8/Equalize 0.6; Posterize 0.6 7/Posterize 0.6 6;"
        "Equalize 0.4/Solarize 0.2 4; Equalize 0.4/Rotate 0.8 8; Solarize 0.6 3/Equalize 0.6;"
        "Posterize 0.8 5/Equalize 1.0; Rotate 0.2 3/Solarize 0.6 8;"
        "Equalize 0.6/Posterize 0.4 6; Rotate 0.8 8/Color 0.4 0; Rotate 0.4 9/Equalize 0.6;"
        "Equalize 0.0/Equalize 0.8; Invert 0.6/Equalize 1.0; Color 0.6 4/Contrast 1.0 8;"
        "Rotate 0.8 8/Color 1.0 2; Color 0.8 8/Solarize 0.8 7; Sharpness 0.4 7/Invert 0.6;"
        "ShearX 0.6 5/Equalize 1.0; Color 0.4 0/Equalize 0.6; Equalize 0.4/Solarize 0.2 4;"
        "Solarize 0.6 5/AutoContrast 0.6; Invert 0.6/Equalize 1.0; Color 0.6 4/Contrast 1.0 8;"
        "Equalize 0.8/Equalize 0.6"),
    "cifar10": (
        "Invert 0.1/Contrast 0.2 6; Rotate 0.7 2/TranslateX 0.3 9;"
        "Sharpness 0.8 1/Sharpness 0.9 3; ShearY 0.5 8/TranslateY 0.7 9;"
        "AutoContrast 0.5/Equalize 0.9; ShearY 0.2 7/Posterize 0.3 7;"
        "Color 0.4 3/Brightness 0.6 7; Sharpness 0.3 9/Brightness 0.7 9;"
        "Equalize 0.6/Equalize 0.5; Contrast 0.6 7/Sharpness 0.6 5;"
        "Color 0.7 7/TranslateX 0.5 8; Equalize 0.3/AutoContrast 0.4;"
        "TranslateY 0.4 3/Sharpness 0.2 6; Brightness 0.9 6/Color 0.2 8;"
        "Solarize 0.5 2/Invert 0.0; Equalize 0.2/AutoContrast 0.6; Equalize 0.2/Equalize 0.6;"
        "Color 0.9 9/Equalize 0.6; AutoContrast 0.8/Solarize 0.2 8;"
        "Brightness 0.1 3/Color 0.7 0; Solarize 0.4 5/AutoContrast 0.9;"
        "TranslateY 0.9 9/TranslateY 0.7 9; AutoContrast 0.9/Solarize 0.8 3;"
        "Equalize 0.8/Invert 0.1; TranslateY 0.7 9/AutoContrast 0.9"),
    "svhn": (
        "ShearX 0.9 4/Invert 0.2; ShearY 0.9 8/Invert 0.7; Equalize 0.6/Solarize 0.6 6;"
        "Invert 0.9/Equalize 0.6; Equalize 0.6/Rotate 0.9 3; ShearX 0.9 4/AutoContrast 0.8;"
        "ShearY 0.9 8/Invert 0.4; ShearY 0.9 5/Solarize 0.2 6; Invert 0.9/AutoContrast 0.8;"
        "Equalize 0.6/Rotate 0.9 3; ShearX 0.9 4/Solarize 0.3 3; ShearY 0.8 8/Invert 0.7;"
        "Equalize 0.9/TranslateY 0.6 6; Invert 0.9/Equalize 0.6; Contrast 0.3 3/Rotate 0.8 4;"
        "Invert 0.8/TranslateY 0.0 2; ShearY 0.7 6/Solarize 0.4 8; Invert 0.6/Rotate 0.8 4;"
        "ShearY 0.3 7/TranslateX 0.9 3; ShearX 0.1 6/Invert 0.6;"
        "Solarize 0.7 2/TranslateY 0.6 7; ShearY 0.8 4/Invert 0.8;"
        "ShearX 0.7 9/TranslateY 0.8 3; ShearY 0.8 5/AutoContrast 0.7;"
        "ShearX 0.7 2/Invert 0.1"),
}


def _parse_policy(text):
    def step(s):
        name, p, *m = s.split()
        return name, float(p), int(m[0]) if m else None

    return [tuple(step(s) for s in sub.split("/")) for sub in text.split(";")]


def _linspace(start, end, num_bins):
    return linspace(start, end, num_bins).tolist()  # torch's float32 values


def _posterize_bits(num_bins, levels, top=8):
    return [top - int(round(i / ((num_bins - 1) / levels))) for i in range(num_bins)]


def _space(num_bins, image_size, shear, translate, rotate, enhance, posterize_levels,
           identity=True, invert=False):
    """``{op: (magnitudes or None, signed)}``; ``translate`` None: 150/331 of the image size."""
    tx, ty = ((150.0 / 331.0 * image_size[1], 150.0 / 331.0 * image_size[0])
              if translate is None else (translate, translate))
    space = {"Identity": (None, False)} if identity else {}
    space.update({
        "ShearX": (_linspace(0.0, shear, num_bins), True),
        "ShearY": (_linspace(0.0, shear, num_bins), True),
        "TranslateX": (_linspace(0.0, tx, num_bins), True),
        "TranslateY": (_linspace(0.0, ty, num_bins), True),
        "Rotate": (_linspace(0.0, rotate, num_bins), True),
        **{name: (_linspace(0.0, enhance, num_bins), True) for name in
           ("Brightness", "Color", "Contrast", "Sharpness")},
        "Posterize": (_posterize_bits(num_bins, posterize_levels), False),
        "Solarize": (_linspace(255.0, 0.0, num_bins), False),
        "AutoContrast": (None, False),
        "Equalize": (None, False),
    })
    if invert:
        space["Invert"] = (None, False)
    return space


class AutoAugment(nn.Module):
    """AutoAugment (Cubuk et al.): one of the policy's 25 sub-policies, drawn at random, each
    of its two operations applied with its probability (and a random sign).

    Args:
        policy (AutoAugmentPolicy): Default IMAGENET
        interpolation (InterpolationMode): Default NEAREST
        fill (number or sequence, optional): the value outside the image.
    """

    def __init__(self, policy=AutoAugmentPolicy.IMAGENET,
                 interpolation=InterpolationMode.NEAREST, fill=None):
        super().__init__()
        self.policy = policy
        self.interpolation = interpolation
        self.fill = fill
        self.policies = self._get_policies(policy)

    def _get_policies(self, policy):
        if not isinstance(policy, AutoAugmentPolicy):
            raise ValueError(f"The provided policy {policy} is not recognized.")
        return _parse_policy(_POLICIES[policy.value])

    def _augmentation_space(self, num_bins, image_size):
        return _space(num_bins, image_size, 0.3, None, 30.0, 0.9, 4, identity=False,
                      invert=True)

    @staticmethod
    def get_params(transform_num: int):
        """``(policy_id, probs, signs)``: a sub-policy index, and two uniform draws and two
        signs (0 or 1) for its operations."""
        policy_id = _random.randint(0, transform_num)
        probs = from_numpy(_random.rand((2,)))
        signs = torch_tensor([_random.randint(0, 2), _random.randint(0, 2)])
        return policy_id, probs, signs

    def forward(self, img):
        channels, height, width = F.get_dimensions(img)
        fill = _tensor_fill(img, self.fill, channels)
        transform_id, probs, signs = self.get_params(len(self.policies))
        probs, signs = probs.tolist(), signs.tolist()
        op_meta = self._augmentation_space(10, (height, width))
        for i, (op_name, p, magnitude_id) in enumerate(self.policies[transform_id]):
            if probs[i] <= p:
                magnitudes, signed = op_meta[op_name]
                magnitude = 0.0 if magnitude_id is None else float(magnitudes[magnitude_id])
                if signed and signs[i] == 0:
                    magnitude = -magnitude
                img = _apply_op(img, op_name, magnitude, self.interpolation, fill)
        return img

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(policy={self.policy}, fill={self.fill})"


def _random_op(img, op_meta, magnitude_bin, interpolation, fill, num_bins=None):
    """One operation drawn uniformly from ``op_meta``, at ``magnitude_bin`` (None: drawn from
    the first ``num_bins``, default all), with a random sign."""
    op_name = list(op_meta)[_random.randint(0, len(op_meta))]
    magnitudes, signed = op_meta[op_name]
    magnitude = 0.0
    if magnitudes is not None:
        if magnitude_bin is None:
            magnitude_bin = _random.randint(0, num_bins or len(magnitudes))
        magnitude = float(magnitudes[magnitude_bin])
    if signed and _random.randint(0, 2):
        magnitude = -magnitude
    return _apply_op(img, op_name, magnitude, interpolation, fill)


class RandAugment(nn.Module):
    """RandAugment (Cubuk et al.): ``num_ops`` operations drawn uniformly, all at
    ``magnitude`` (of ``num_magnitude_bins``).

    Args:
        num_ops (int): Default 2
        magnitude (int): Default 9
        num_magnitude_bins (int): Default 31
        interpolation (InterpolationMode): Default NEAREST
        fill (number or sequence, optional): the value outside the image.
    """

    def __init__(self, num_ops=2, magnitude=9, num_magnitude_bins=31,
                 interpolation=InterpolationMode.NEAREST, fill=None):
        super().__init__()
        self.num_ops = num_ops
        self.magnitude = magnitude
        self.num_magnitude_bins = num_magnitude_bins
        self.interpolation = interpolation
        self.fill = fill

    def _augmentation_space(self, num_bins, image_size):
        return _space(num_bins, image_size, 0.3, None, 30.0, 0.9, 4)

    def forward(self, img):
        channels, height, width = F.get_dimensions(img)
        fill = _tensor_fill(img, self.fill, channels)
        op_meta = self._augmentation_space(self.num_magnitude_bins, (height, width))
        for _ in range(self.num_ops):
            img = _random_op(img, op_meta, self.magnitude, self.interpolation, fill)
        return img

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__}(num_ops={self.num_ops}, "
                f"magnitude={self.magnitude}, num_magnitude_bins={self.num_magnitude_bins}, "
                f"interpolation={self.interpolation}, fill={self.fill})")


class TrivialAugmentWide(nn.Module):
    """TrivialAugment Wide (Muller and Hutter): one operation and one magnitude bin, both
    drawn uniformly.

    Args:
        num_magnitude_bins (int): Default 31
        interpolation (InterpolationMode): Default NEAREST
        fill (number or sequence, optional): the value outside the image.
    """

    def __init__(self, num_magnitude_bins=31, interpolation=InterpolationMode.NEAREST,
                 fill=None):
        super().__init__()
        self.num_magnitude_bins = num_magnitude_bins
        self.interpolation = interpolation
        self.fill = fill

    def _augmentation_space(self, num_bins):
        return _space(num_bins, None, 0.99, 32.0, 135.0, 0.99, 6)

    def forward(self, img):
        channels, _, _ = F.get_dimensions(img)
        fill = _tensor_fill(img, self.fill, channels)
        op_meta = self._augmentation_space(self.num_magnitude_bins)
        return _random_op(img, op_meta, None, self.interpolation, fill)

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__}(num_magnitude_bins={self.num_magnitude_bins}, "
                f"interpolation={self.interpolation}, fill={self.fill})")


class AugMix(nn.Module):
    """AugMix (Hendrycks et al.): ``mixture_width`` chains of ``chain_depth`` random
    operations (depth 1-3 when ``chain_depth`` <= 0, magnitudes among the first ``severity``
    of 10 bins), mixed with Dirichlet weights, then mixed with the original image by a Beta
    weight.

    Args:
        severity (int): 1-10. Default 3
        mixture_width (int): Default 3
        chain_depth (int): Default -1
        alpha (float): the Dirichlet/Beta concentration. Default 1.0
        all_ops (bool): include brightness, color, contrast and sharpness. Default True
        interpolation (InterpolationMode): Default BILINEAR
        fill (number or sequence, optional): the value outside the image.
    """

    def __init__(self, severity=3, mixture_width=3, chain_depth=-1, alpha=1.0, all_ops=True,
                 interpolation=InterpolationMode.BILINEAR, fill=None):
        super().__init__()
        self._PARAMETER_MAX = 10
        if not 1 <= severity <= self._PARAMETER_MAX:
            raise ValueError(f"The severity must be between [1, {self._PARAMETER_MAX}]. Got "
                             f"{severity} instead.")
        self.severity = severity
        self.mixture_width = mixture_width
        self.chain_depth = chain_depth
        self.alpha = alpha
        self.all_ops = all_ops
        self.interpolation = interpolation
        self.fill = fill

    def _augmentation_space(self, num_bins, image_size):
        space = {
            "ShearX": (_linspace(0.0, 0.3, num_bins), True),
            "ShearY": (_linspace(0.0, 0.3, num_bins), True),
            "TranslateX": (_linspace(0.0, image_size[1] / 3.0, num_bins), True),
            "TranslateY": (_linspace(0.0, image_size[0] / 3.0, num_bins), True),
            "Rotate": (_linspace(0.0, 30.0, num_bins), True),
            "Posterize": (_posterize_bits(num_bins, 4, top=4), False),
            "Solarize": (_linspace(255.0, 0.0, num_bins), False),
            "AutoContrast": (None, False),
            "Equalize": (None, False),
        }
        if self.all_ops:
            space.update({name: (_linspace(0.0, 0.9, num_bins), True) for name in
                          ("Brightness", "Color", "Contrast", "Sharpness")})
        return space

    def _sample_dirichlet(self, params):
        """One Dirichlet draw per row of concentrations ``params`` (``B x K``)."""
        return from_numpy(np.stack([_random.dirichlet(row) for row in params.tolist()]))

    def forward(self, orig_img):
        channels, height, width = F.get_dimensions(orig_img)
        fill = _tensor_fill(orig_img, self.fill, channels)
        img = orig_img if isinstance(orig_img, Tensor) else F.pil_to_tensor(
            orig_img if F._is_pil_image(orig_img) else F._pil().Image.fromarray(orig_img))
        op_meta = self._augmentation_space(self._PARAMETER_MAX, (height, width))
        orig_dims = list(img.shape)
        batch = img.view([1] * max(4 - img.ndim, 0) + orig_dims)
        batch_dims = [batch.shape[0]] + [1] * (batch.ndim - 1)
        # the Beta weight of the original (column 0) and of the mix (column 1), then the mix's
        # Dirichlet weights
        m = self._sample_dirichlet(torch_tensor([[self.alpha] * 2] * batch_dims[0]))
        weights = self._sample_dirichlet(torch_tensor(
            [[self.alpha] * self.mixture_width] * batch_dims[0])) * m[:, 1].view(
            batch_dims[0], -1)
        mix = m[:, 0].view(batch_dims) * batch
        for i in range(self.mixture_width):
            aug = batch
            depth = self.chain_depth if self.chain_depth > 0 else _random.randint(1, 4)
            for _ in range(depth):
                aug = _random_op(aug, op_meta, None, self.interpolation, fill, self.severity)
            mix = mix + weights[:, i].view(batch_dims) * aug
        mix = mix.view(orig_dims).to(img.dtype)
        if isinstance(orig_img, Tensor):
            return mix
        out = F.to_pil_image(mix)
        return np.asarray(out) if isinstance(orig_img, np.ndarray) else out

    def __repr__(self) -> str:
        return (f"{self.__class__.__name__}(severity={self.severity}, "
                f"mixture_width={self.mixture_width}, chain_depth={self.chain_depth}, "
                f"alpha={self.alpha}, all_ops={self.all_ops}, "
                f"interpolation={self.interpolation}, fill={self.fill})")
