"""v2's own color transforms: ``Grayscale``, ``RandomGrayscale`` and ``RGB`` (v2's
``rgb_to_grayscale``: a 1-channel tensor can become 3 channels), ``RandomChannelPermutation``,
``RandomPhotometricDistort`` (SSD's) and ``GaussianNoise``; one random draw per call from
jtorch's generator."""

from __future__ import annotations

from .. import _random
from . import functional as F
from ._transform import Transform, _RandomApplyTransform, query_chw


class Grayscale(Transform):
    """Converts images to grayscale with ``num_output_channels`` (1 or 3) channels."""

    def __init__(self, num_output_channels: int = 1):
        super().__init__()
        self.num_output_channels = num_output_channels

    def transform(self, inpt, params):
        return F.rgb_to_grayscale(inpt, num_output_channels=self.num_output_channels)


class RandomGrayscale(_RandomApplyTransform):
    """Converts images to grayscale with probability ``p`` (default 0.1), keeping the number
    of channels."""

    def __init__(self, p: float = 0.1):
        super().__init__(p=p)

    def make_params(self, flat_inputs):
        return {"num_input_channels": query_chw(flat_inputs)[0]}

    def transform(self, inpt, params):
        return F.rgb_to_grayscale(inpt, num_output_channels=params["num_input_channels"])


class RGB(Transform):
    """Converts 1-channel images to 3 channels (3-channel images pass unchanged)."""

    def transform(self, inpt, params):
        return F.grayscale_to_rgb(inpt)


class RandomChannelPermutation(Transform):
    """Permutes the channels of the images randomly."""

    def make_params(self, flat_inputs):
        return {"permutation": _random.randperm(query_chw(flat_inputs)[0])}

    def transform(self, inpt, params):
        return F.permute_channels(inpt, params["permutation"])


class RandomPhotometricDistort(Transform):
    """SSD's photometric distortion (`SSD <https://arxiv.org/abs/1512.02325>`_): each of the
    brightness, contrast, saturation and hue changes (factors uniform in their ranges) and a
    channel permutation applies with probability ``p``; contrast goes first or after hue (even
    odds).

    Args:
        brightness, contrast, saturation, hue ((min, max)): the factor ranges. Defaults
            ``(0.875, 1.125)``, ``(0.5, 1.5)``, ``(0.5, 1.5)``, ``(-0.05, 0.05)``
        p (float): each operation's probability. Default 0.5
    """

    def __init__(self, brightness=(0.875, 1.125), contrast=(0.5, 1.5), saturation=(0.5, 1.5),
                 hue=(-0.05, 0.05), p: float = 0.5):
        super().__init__()
        self.brightness = brightness
        self.contrast = contrast
        self.hue = hue
        self.saturation = saturation
        self.p = p

    def make_params(self, flat_inputs):
        num_channels = query_chw(flat_inputs)[0]
        params = {key: _random.uniform(lo, hi) if _random.uniform() < self.p else None
                  for key, (lo, hi) in (("brightness_factor", self.brightness),
                                        ("contrast_factor", self.contrast),
                                        ("saturation_factor", self.saturation),
                                        ("hue_factor", self.hue))}
        params["contrast_before"] = _random.uniform() < 0.5
        params["channel_permutation"] = (_random.randperm(num_channels)
                                         if _random.uniform() < self.p else None)
        return params

    def transform(self, inpt, params):
        contrast = params["contrast_factor"]
        if params["brightness_factor"] is not None:
            inpt = F.adjust_brightness(inpt, params["brightness_factor"])
        if contrast is not None and params["contrast_before"]:
            inpt = F.adjust_contrast(inpt, contrast)
        if params["saturation_factor"] is not None:
            inpt = F.adjust_saturation(inpt, params["saturation_factor"])
        if params["hue_factor"] is not None:
            inpt = F.adjust_hue(inpt, params["hue_factor"])
        if contrast is not None and not params["contrast_before"]:
            inpt = F.adjust_contrast(inpt, contrast)
        if params["channel_permutation"] is not None:
            inpt = F.permute_channels(inpt, params["channel_permutation"])
        return inpt


class GaussianNoise(Transform):
    """Adds ``N(mean, sigma)`` noise to float images in ``[0, 1]`` or ``uint8`` images (on the
    same ``[0, 1]`` scale), clipped to the range when ``clip``; not for PIL images."""

    def __init__(self, mean: float = 0.0, sigma: float = 0.1, clip=True):
        super().__init__()
        self.mean = mean
        self.sigma = sigma
        self.clip = clip

    def transform(self, inpt, params):
        return F.gaussian_noise(inpt, mean=self.mean, sigma=self.sigma, clip=self.clip)
