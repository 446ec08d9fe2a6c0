"""LayerNorm, GroupNorm, RMSNorm, LocalResponseNorm (each forward is one op), and the
weight-and-bias part the batch and instance norms share."""

from __future__ import annotations

import numbers

from ..._core.errors import missing_class
from ..._ops.creation import empty
from .. import functional as F, init
from ..parameter import Parameter
from ._generated import functional_module
from .linear import register_weight_and_bias
from .module import Module

__all__ = ["LocalResponseNorm", "CrossMapLRN2d", "LayerNorm", "GroupNorm", "RMSNorm"]


@functional_module(F.local_response_norm, "size, alpha=1e-4, beta=0.75, k=1.0",
                   extra_repr="{size}, alpha={alpha}, beta={beta}, k={k}")
class LocalResponseNorm(Module):
    """Normalizes each element over ``size`` neighbouring channels."""


CrossMapLRN2d = missing_class("torch.nn.CrossMapLRN2d", bases=(Module,))


def _as_shape(normalized_shape):
    """``normalized_shape`` as a tuple (an int is one dim)."""
    if isinstance(normalized_shape, numbers.Integral):
        return (normalized_shape,)
    return tuple(normalized_shape)


class _AffineNorm(Module):
    """A normalization layer with an optional learnt elementwise ``weight`` (initialised to
    ones) and ``bias`` (zeros): LayerNorm, GroupNorm and the batch/instance norms."""

    def _register_affine(self, shape, affine, bias, factory_kwargs):
        shape = shape if affine else None
        register_weight_and_bias(self, shape, shape if bias else None, factory_kwargs)

    def reset_parameters(self):
        if self.weight is not None:
            init.ones_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)


class LayerNorm(_AffineNorm):
    """Normalizes over the trailing ``normalized_shape`` dims (mean and variance of each
    sample)."""

    __constants__ = ["normalized_shape", "eps", "elementwise_affine"]

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
                 device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.normalized_shape = _as_shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        self._register_affine(self.normalized_shape, elementwise_affine, bias, factory_kwargs)
        self.reset_parameters()

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return ("{normalized_shape}, eps={eps}, elementwise_affine={elementwise_affine}, "
                "bias={use_bias}".format(**self.__dict__, use_bias=self.bias is not None))


class GroupNorm(_AffineNorm):
    """Normalizes each of ``num_groups`` groups of channels of each sample."""

    __constants__ = ["num_groups", "num_channels", "eps", "affine"]

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None,
                 dtype=None, *, bias=True):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups "
                             f"({num_groups})")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        self._register_affine(num_channels, affine, bias, factory_kwargs)
        self.reset_parameters()

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return ("{num_groups}, {num_channels}, eps={eps}, affine={affine}, bias={use_bias}"
                .format(**self.__dict__, use_bias=self.bias is not None))


class RMSNorm(Module):
    """Divides by the root mean square over the trailing ``normalized_shape`` dims."""

    __constants__ = ["normalized_shape", "eps", "elementwise_affine"]

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None,
                 dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.normalized_shape = _as_shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        self.register_parameter("weight", Parameter(empty(self.normalized_shape, **factory_kwargs))
                                if elementwise_affine else None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.weight is not None:
            init.ones_(self.weight)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return ("{normalized_shape}, eps={eps}, elementwise_affine={elementwise_affine}"
                .format(**self.__dict__))
