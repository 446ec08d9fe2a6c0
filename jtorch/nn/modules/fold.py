"""nn.modules.fold: Fold (col2im) and Unfold (im2col)."""

from __future__ import annotations

from .. import functional as F
from ._generated import functional_module
from .module import Module

__all__ = ["Fold", "Unfold"]


@functional_module(F.fold, "output_size, kernel_size, dilation=1, padding=0, stride=1")
class Fold(Module):
    """``torch.nn.Fold``: sums sliding local blocks back into a (N, C, *output_size) tensor."""


@functional_module(F.unfold, "kernel_size, dilation=1, padding=0, stride=1")
class Unfold(Module):
    """``torch.nn.Unfold``: extracts sliding local blocks as columns."""
