"""nn.modules.pooling: max, average, power-average and adaptive pooling, max-unpooling."""

from __future__ import annotations

from .. import functional as F
from ._generated import CallsFunctional, functional_module
from ._ndim import as_tuple, ndim_variants
from .module import Module

__all__ = ["MaxPool1d", "MaxPool2d", "MaxPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d",
           "AvgPool1d", "AvgPool2d", "AvgPool3d", "FractionalMaxPool2d", "FractionalMaxPool3d",
           "LPPool1d", "LPPool2d", "LPPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
           "AdaptiveMaxPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d"]


class _WindowPoolNd(CallsFunctional, Module):
    """Pooling over windows of ``kernel_size`` every ``stride`` (default: ``kernel_size``),
    the input padded by ``padding``."""

    _spatial_dims = 0     # set per variant by ndim_variants, with the functional

    def __init__(self, kernel_size, stride, padding, ceil_mode):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode


class _MaxPoolNd(_WindowPoolNd):
    __constants__ = ["kernel_size", "stride", "padding", "dilation", "return_indices",
                     "ceil_mode"]

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__(kernel_size, stride, padding, ceil_mode)
        self.dilation = dilation
        self.return_indices = return_indices

    def extra_repr(self):
        return ("kernel_size={kernel_size}, stride={stride}, padding={padding}"
                ", dilation={dilation}, ceil_mode={ceil_mode}".format(**self.__dict__))

    def forward(self, input):
        return self._functional(
            input, self.kernel_size, self.stride, self.padding, self.dilation,
            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


MaxPool1d, MaxPool2d, MaxPool3d = ndim_variants(
    _MaxPoolNd, "MaxPool{}d", (F.max_pool1d, F.max_pool2d, F.max_pool3d))


class _MaxUnpoolNd(CallsFunctional, Module):
    _spatial_dims = 0     # set per variant by ndim_variants, with the functional

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        n = self._spatial_dims
        self.kernel_size = as_tuple(kernel_size, n)
        self.stride = as_tuple(stride if (stride is not None) else kernel_size, n)
        self.padding = as_tuple(padding, n)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"

    def forward(self, input, indices, output_size=None):
        return self._functional(input, indices, self.kernel_size, self.stride, self.padding,
                                output_size)


MaxUnpool1d, MaxUnpool2d, MaxUnpool3d = ndim_variants(
    _MaxUnpoolNd, "MaxUnpool{}d", (F.max_unpool1d, F.max_unpool2d, F.max_unpool3d))


class _AvgPoolNd(Module):
    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad"]

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    """``torch.nn.AvgPool1d``."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):
        super().__init__()
        self.kernel_size = as_tuple(kernel_size, 1)
        self.stride = as_tuple(stride if stride is not None else kernel_size, 1)
        self.padding = as_tuple(padding, 1)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class _AvgPool23(_WindowPoolNd, _AvgPoolNd):
    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad",
                     "divisor_override"]

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__(kernel_size, stride, padding, ceil_mode)
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return self._functional(input, self.kernel_size, self.stride, self.padding,
                                self.ceil_mode, self.count_include_pad, self.divisor_override)


AvgPool2d, AvgPool3d = ndim_variants(_AvgPool23, "AvgPool{}d", (F.avg_pool2d, F.avg_pool3d),
                                     dims=(2, 3))


class _FractionalMaxPoolNd(CallsFunctional, Module):
    """Max pooling over pseudo-random windows (``F.fractional_max_pool{n}d``); the buffer
    ``_random_samples`` (None by default: drawn anew on every call) fixes the windows."""

    __constants__ = ["kernel_size", "return_indices", "output_size", "output_ratio"]
    _spatial_dims = 0     # set per variant by ndim_variants, with the functional

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):
        super().__init__()
        n, name = self._spatial_dims, type(self).__name__
        self.kernel_size = as_tuple(kernel_size, n)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = as_tuple(output_size, n) if output_size is not None else None
        self.output_ratio = as_tuple(output_ratio, n) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output size, or a pooling "
                             "ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        return self._functional(input, self.kernel_size, self.output_size, self.output_ratio,
                                self.return_indices, _random_samples=self._random_samples)


FractionalMaxPool2d, FractionalMaxPool3d = ndim_variants(
    _FractionalMaxPoolNd, "FractionalMaxPool{}d",
    (F.fractional_max_pool2d, F.fractional_max_pool3d), dims=(2, 3))


@functional_module(None, "norm_type, kernel_size, stride=None, ceil_mode=False",
                   extra_repr="norm_type={norm_type}, kernel_size={kernel_size}, "
                              "stride={stride}, ceil_mode={ceil_mode}")
class _LPPoolNd(CallsFunctional, Module):
    _spatial_dims = 0     # set per variant by ndim_variants, with the functional

    def forward(self, input):
        return self._functional(input, float(self.norm_type), self.kernel_size, self.stride,
                                self.ceil_mode)


LPPool1d, LPPool2d, LPPool3d = ndim_variants(
    _LPPoolNd, "LPPool{}d", (F.lp_pool1d, F.lp_pool2d, F.lp_pool3d))


@functional_module(None, "output_size, return_indices=False",
                   extra_repr="output_size={output_size}")
class _AdaptiveMaxPoolNd(CallsFunctional, Module):
    _spatial_dims = 0     # set per variant by ndim_variants, with the functional


AdaptiveMaxPool1d, AdaptiveMaxPool2d, AdaptiveMaxPool3d = ndim_variants(
    _AdaptiveMaxPoolNd, "AdaptiveMaxPool{}d",
    (F.adaptive_max_pool1d, F.adaptive_max_pool2d, F.adaptive_max_pool3d))


@functional_module(None, "output_size", extra_repr="output_size={output_size}")
class _AdaptiveAvgPoolNd(CallsFunctional, Module):
    _spatial_dims = 0     # set per variant by ndim_variants, with the functional


AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveAvgPool3d = ndim_variants(
    _AdaptiveAvgPoolNd, "AdaptiveAvgPool{}d",
    (F.adaptive_avg_pool1d, F.adaptive_avg_pool2d, F.adaptive_avg_pool3d))
