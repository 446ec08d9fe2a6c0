"""nn.modules.conv: Conv1d/2d/3d and ConvTranspose1d/2d/3d (``torch.nn.Conv2d``...)."""

from __future__ import annotations

from ..._ops.nn_conv import string_padding
from .. import functional as F
from ._generated import CallsFunctional
from ._ndim import as_tuple, ndim_variants
from .lazy import LazyModuleMixin, lazy_variant, uninitialized_weight_and_bias
from .linear import register_weight_and_bias, reset_linear_parameters
from .module import Module

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
           "ConvTranspose3d", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
           "LazyConvTranspose2d", "LazyConvTranspose3d"]


class _ConvNd(Module):
    """Shared parameters, initialisation and repr of convolution layers."""

    __constants__ = ["stride", "padding", "dilation", "groups", "padding_mode", "output_padding",
                     "in_channels", "out_channels", "kernel_size"]

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
                 transposed, output_padding, groups, bias, padding_mode, device=None,
                 dtype=None):
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        valid_padding_strings = {"same", "valid"}
        if isinstance(padding, str):
            if padding not in valid_padding_strings:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 f"{valid_padding_strings}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        valid_padding_modes = {"zeros", "reflect", "replicate", "circular"}
        if padding_mode not in valid_padding_modes:
            raise ValueError(f"padding_mode must be one of {valid_padding_modes}, but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        # F.pad's order: last spatial dim first, (left, right) each
        pairs = (string_padding(padding, kernel_size, dilation) if isinstance(padding, str)
                 else [(p, p) for p in padding])
        reversed_pairs = [p for pair in reversed(pairs) for p in pair]
        # PyTorch keeps a list for string padding and a tuple for numeric padding
        self._reversed_padding_repeated_twice = (reversed_pairs if isinstance(padding, str)
                                                 else tuple(reversed_pairs))
        shape = ((in_channels, out_channels // groups) if transposed
                 else (out_channels, in_channels // groups))
        register_weight_and_bias(self, (*shape, *kernel_size), out_channels if bias else None,
                                 {"device": device, "dtype": dtype})
        self.reset_parameters()

    def reset_parameters(self):
        reset_linear_parameters(self)

    def extra_repr(self):
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)


class _Conv(CallsFunctional, _ConvNd):
    _spatial_dims = 0     # set per variant by ndim_variants, with the functional

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        n = self._spatial_dims
        super().__init__(in_channels, out_channels, as_tuple(kernel_size, n),
                         as_tuple(stride, n),
                         padding if isinstance(padding, str) else as_tuple(padding, n),
                         as_tuple(dilation, n), False, as_tuple(0, n), groups, bias,
                         padding_mode, device=device, dtype=dtype)

    def _conv_forward(self, input, weight, bias):
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return self._functional(padded, weight, bias, self.stride,
                                    as_tuple(0, self._spatial_dims), self.dilation, self.groups)
        return self._functional(input, weight, bias, self.stride, self.padding, self.dilation,
                                self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


Conv1d, Conv2d, Conv3d = ndim_variants(_Conv, "Conv{}d", (F.conv1d, F.conv2d, F.conv3d))


class _ConvTransposeNd(CallsFunctional, _ConvNd):
    _spatial_dims = 0     # set per variant by ndim_variants, with the functional

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for '
                             f"{type(self).__name__}")
        n = self._spatial_dims
        super().__init__(in_channels, out_channels, as_tuple(kernel_size, n),
                         as_tuple(stride, n), as_tuple(padding, n), as_tuple(dilation, n), True,
                         as_tuple(output_padding, n), groups, bias, padding_mode,
                         device=device, dtype=dtype)

    def _output_padding(self, input, output_size, stride, padding, kernel_size,
                        num_spatial_dims, dilation=None):
        if output_size is None:
            return tuple(self.output_padding)
        has_batch = input.dim() == num_spatial_dims + 2
        non_spatial = 2 if has_batch else 1
        if len(output_size) == non_spatial + num_spatial_dims:
            output_size = output_size[non_spatial:]
        if len(output_size) != num_spatial_dims:
            raise ValueError(f"ConvTranspose{num_spatial_dims}D: for {input.dim()}D input, "
                             f"output_size must have {num_spatial_dims} or "
                             f"{non_spatial + num_spatial_dims} elements (got "
                             f"{len(output_size)})")
        min_sizes, max_sizes = [], []
        for d in range(num_spatial_dims):
            size = ((input.size(d + non_spatial) - 1) * stride[d] - 2 * padding[d]
                    + (dilation[d] if dilation is not None else 1) * (kernel_size[d] - 1) + 1)
            min_sizes.append(size)
            max_sizes.append(size + stride[d] - 1)
        for i, size in enumerate(output_size):
            if size < min_sizes[i] or size > max_sizes[i]:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes "
                                 f"range from {min_sizes} to {max_sizes} (for an input of "
                                 f"{input.size()[2:]})")
        return tuple(output_size[d] - min_sizes[d] for d in range(num_spatial_dims))

    def forward(self, input, output_size=None):
        if self.padding_mode != "zeros":
            raise ValueError(f"Only `zeros` padding mode is supported for {type(self).__name__}")
        output_padding = self._output_padding(input, output_size, self.stride, self.padding,
                                              self.kernel_size, self._spatial_dims, self.dilation)
        return self._functional(input, self.weight, self.bias, self.stride, self.padding,
                                output_padding, self.groups, self.dilation)


ConvTranspose1d, ConvTranspose2d, ConvTranspose3d = ndim_variants(
    _ConvTransposeNd, "ConvTranspose{}d",
    (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d))


class _LazyConvXdMixin(LazyModuleMixin):
    """A convolution whose ``in_channels`` is inferred from the first input (``input.size(1)``,
    or ``size(0)`` unbatched); it then becomes its eager class."""

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            per_group = ((self.in_channels, self.out_channels // self.groups) if self.transposed
                         else (self.out_channels, self.in_channels // self.groups))
            self.weight.materialize((*per_group, *self.kernel_size))
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()

    def _get_in_channels(self, input):
        no_batch = self._get_num_spatial_dims() + 1
        if input.dim() not in (no_batch, no_batch + 1):
            raise RuntimeError(f"Expected {no_batch}D (unbatched) or {no_batch + 1}D (batched) "
                               f"input to {self.__class__.__name__}, but got input of size: "
                               f"{input.shape}")
        return input.shape[1] if input.dim() == no_batch + 1 else input.shape[0]

    def _get_num_spatial_dims(self):
        return self._spatial_dims


class _LazyConv(_LazyConvXdMixin):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        # in_channels 0 and bias=False: no tensor made only to be replaced
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False,
                         padding_mode, device=device, dtype=dtype)
        self.out_channels = out_channels
        uninitialized_weight_and_bias(self, bias, device, dtype)


class _LazyConvTranspose(_LazyConvXdMixin):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
                 groups=1, bias=True, dilation=1, padding_mode="zeros", device=None,
                 dtype=None):
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False,
                         dilation, padding_mode, device=device, dtype=dtype)
        self.out_channels = out_channels
        uninitialized_weight_and_bias(self, bias, device, dtype)


LazyConv1d, LazyConv2d, LazyConv3d = (lazy_variant(c, (_LazyConv, c))
                                      for c in (Conv1d, Conv2d, Conv3d))
LazyConvTranspose1d, LazyConvTranspose2d, LazyConvTranspose3d = (
    lazy_variant(c, (_LazyConvTranspose, c))
    for c in (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d))
