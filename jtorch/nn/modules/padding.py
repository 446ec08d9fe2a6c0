"""Padding modules (``torch.nn.modules.padding``): each forward is one ``F.pad``."""

from __future__ import annotations

from .. import functional as F
from ._ndim import as_tuple, ndim_variants
from .module import Module

__all__ = ["CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d",
           "ConstantPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
           "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d",
           "ZeroPad3d"]


class _PadNd(Module):
    __constants__ = ["padding"]
    _spatial_dims = 1
    _mode = "constant"

    def __init__(self, padding):
        super().__init__()
        self.padding = as_tuple(padding, 2 * self._spatial_dims)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}"


class _CircularPadNd(_PadNd):
    _mode = "circular"

    def forward(self, input):
        dims = self._spatial_dims
        if input.dim() not in (dims + 1, dims + 2):
            raise ValueError(f"expected {dims + 1}D or {dims + 2}D input (got {input.dim()}D "
                             "input)")
        return F.pad(input, self.padding, "circular")


CircularPad1d, CircularPad2d, CircularPad3d = ndim_variants(_CircularPadNd, "CircularPad{}d")


class _ConstantPadNd(_PadNd):
    __constants__ = ["padding", "value"]

    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


ConstantPad1d, ConstantPad2d, ConstantPad3d = ndim_variants(_ConstantPadNd, "ConstantPad{}d")


class _ReflectionPadNd(_PadNd):
    _mode = "reflect"


ReflectionPad1d, ReflectionPad2d, ReflectionPad3d = ndim_variants(_ReflectionPadNd,
                                                                  "ReflectionPad{}d")


class _ReplicationPadNd(_PadNd):
    _mode = "replicate"


ReplicationPad1d, ReplicationPad2d, ReplicationPad3d = ndim_variants(_ReplicationPadNd,
                                                                     "ReplicationPad{}d")


class _ZeroPad:
    """Makes a ConstantPad class pad with zeros."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad1d(_ZeroPad, ConstantPad1d):
    """``torch.nn.ZeroPad1d``."""


class ZeroPad2d(_ZeroPad, ConstantPad2d):
    """``torch.nn.ZeroPad2d``."""


class ZeroPad3d(_ZeroPad, ConstantPad3d):
    """``torch.nn.ZeroPad3d``."""
