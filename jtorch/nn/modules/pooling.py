"""nn.modules.pooling: max, average, power-average and adaptive pooling, max-unpooling."""

from __future__ import annotations

from .. import functional as F
from .module import Module

__all__ = ["MaxPool1d", "MaxPool2d", "MaxPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d",
           "AvgPool1d", "AvgPool2d", "AvgPool3d", "FractionalMaxPool2d", "FractionalMaxPool3d",
           "LPPool1d", "LPPool2d", "LPPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
           "AdaptiveMaxPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d"]


def _ntuple(v, n):
    return tuple(v) if isinstance(v, (list, tuple)) else (v,) * n


class _MaxPoolNd(Module):
    __constants__ = ["kernel_size", "stride", "padding", "dilation", "return_indices",
                     "ceil_mode"]
    _n = 0

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def extra_repr(self):
        return ("kernel_size={kernel_size}, stride={stride}, padding={padding}"
                ", dilation={dilation}, ceil_mode={ceil_mode}".format(**self.__dict__))

    def forward(self, input):
        return getattr(F, f"max_pool{self._n}d")(
            input, self.kernel_size, self.stride, self.padding, self.dilation,
            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


class MaxPool1d(_MaxPoolNd):
    """``torch.nn.MaxPool1d``."""

    _n = 1


class MaxPool2d(_MaxPoolNd):
    """``torch.nn.MaxPool2d``."""

    _n = 2


class MaxPool3d(_MaxPoolNd):
    """``torch.nn.MaxPool3d``."""

    _n = 3


class _MaxUnpoolNd(Module):
    _n = 0

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        n = self._n
        self.kernel_size = _ntuple(kernel_size, n)
        self.stride = _ntuple(stride if (stride is not None) else kernel_size, n)
        self.padding = _ntuple(padding, n)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"

    def forward(self, input, indices, output_size=None):
        return getattr(F, f"max_unpool{self._n}d")(input, indices, self.kernel_size,
                                                   self.stride, self.padding, output_size)


class MaxUnpool1d(_MaxUnpoolNd):
    """``torch.nn.MaxUnpool1d``."""

    _n = 1


class MaxUnpool2d(_MaxUnpoolNd):
    """``torch.nn.MaxUnpool2d``."""

    _n = 2


class MaxUnpool3d(_MaxUnpoolNd):
    """``torch.nn.MaxUnpool3d``."""

    _n = 3


class _AvgPoolNd(Module):
    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad"]

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    """``torch.nn.AvgPool1d``."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):
        super().__init__()
        self.kernel_size = _ntuple(kernel_size, 1)
        self.stride = _ntuple(stride if stride is not None else kernel_size, 1)
        self.padding = _ntuple(padding, 1)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class _AvgPool23(_AvgPoolNd):
    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad",
                     "divisor_override"]
    _n = 0

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return getattr(F, f"avg_pool{self._n}d")(input, self.kernel_size, self.stride,
                                                 self.padding, self.ceil_mode,
                                                 self.count_include_pad, self.divisor_override)


class AvgPool2d(_AvgPool23):
    """``torch.nn.AvgPool2d``."""

    _n = 2


class AvgPool3d(_AvgPool23):
    """``torch.nn.AvgPool3d``."""

    _n = 3


class _Fractional(Module):
    def __init__(self, *args, **kwargs):
        raise NotImplementedError(f"jtorch does not implement torch.nn.{type(self).__name__} "
                                  "yet")


class FractionalMaxPool2d(_Fractional):
    """``torch.nn.FractionalMaxPool2d`` (not implemented)."""


class FractionalMaxPool3d(_Fractional):
    """``torch.nn.FractionalMaxPool3d`` (not implemented)."""


class _LPPoolNd(Module):
    __constants__ = ["norm_type", "kernel_size", "stride", "ceil_mode"]
    _n = 0

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def extra_repr(self):
        return ("norm_type={norm_type}, kernel_size={kernel_size}, stride={stride}, "
                "ceil_mode={ceil_mode}".format(**self.__dict__))

    def forward(self, input):
        return getattr(F, f"lp_pool{self._n}d")(input, float(self.norm_type), self.kernel_size,
                                                self.stride, self.ceil_mode)


class LPPool1d(_LPPoolNd):
    """``torch.nn.LPPool1d``."""

    _n = 1


class LPPool2d(_LPPoolNd):
    """``torch.nn.LPPool2d``."""

    _n = 2


class LPPool3d(_LPPoolNd):
    """``torch.nn.LPPool3d``."""

    _n = 3


class _AdaptiveMaxPoolNd(Module):
    __constants__ = ["output_size", "return_indices"]
    _n = 0

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def extra_repr(self):
        return f"output_size={self.output_size}"

    def forward(self, input):
        return getattr(F, f"adaptive_max_pool{self._n}d")(input, self.output_size,
                                                          self.return_indices)


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """``torch.nn.AdaptiveMaxPool1d``."""

    _n = 1


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """``torch.nn.AdaptiveMaxPool2d``."""

    _n = 2


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """``torch.nn.AdaptiveMaxPool3d``."""

    _n = 3


class _AdaptiveAvgPoolNd(Module):
    __constants__ = ["output_size"]
    _n = 0

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def extra_repr(self):
        return f"output_size={self.output_size}"

    def forward(self, input):
        return getattr(F, f"adaptive_avg_pool{self._n}d")(input, self.output_size)


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """``torch.nn.AdaptiveAvgPool1d``."""

    _n = 1


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """``torch.nn.AdaptiveAvgPool2d``."""

    _n = 2


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """``torch.nn.AdaptiveAvgPool3d``."""

    _n = 3
