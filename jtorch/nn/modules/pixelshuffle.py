"""nn.modules.pixelshuffle: PixelShuffle, PixelUnshuffle and ChannelShuffle."""

from __future__ import annotations

from .. import functional as F
from ._generated import functional_module
from .module import Module

__all__ = ["PixelShuffle", "PixelUnshuffle", "ChannelShuffle"]


@functional_module(F.pixel_shuffle, "upscale_factor")
class PixelShuffle(Module):
    """``torch.nn.PixelShuffle``: (*, C*r^2, H, W) -> (*, C, H*r, W*r)."""


@functional_module(F.pixel_unshuffle, "downscale_factor")
class PixelUnshuffle(Module):
    """``torch.nn.PixelUnshuffle``: (*, C, H*r, W*r) -> (*, C*r^2, H, W)."""


@functional_module(F.channel_shuffle, "groups")
class ChannelShuffle(Module):
    """``torch.nn.ChannelShuffle``: interleaves ``groups`` channel groups."""
