"""torchvision.ops.misc: the building blocks of torchvision's models (``Conv2dNormActivation``,
``SqueezeExcitation``, ``MLP``, ``Permute``, ``FrozenBatchNorm2d``), with torchvision's module
structure so that state_dict keys match."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence

from jtorch import nn

from ..._ops.creation import ones, zeros
from ..._ops.shape import permute

__all__ = ["Conv2dNormActivation", "Conv3dNormActivation", "FrozenBatchNorm2d", "MLP",
           "Permute", "SqueezeExcitation"]


def _make_ntuple(x, n):
    if isinstance(x, Sequence) and not isinstance(x, str):
        return tuple(x)
    return tuple([x] * n)


class FrozenBatchNorm2d(nn.Module):
    """BatchNorm2d whose statistics and affine parameters are fixed buffers.

    Args:
        num_features (int): ``C`` of an ``(N, C, H, W)`` input.
        eps (float): added to the variance. Default: 1e-5
    """

    def __init__(self, num_features: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.register_buffer("weight", ones(num_features))
        self.register_buffer("bias", zeros(num_features))
        self.register_buffer("running_mean", zeros(num_features))
        self.register_buffer("running_var", ones(num_features))

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        state_dict.pop(prefix + "num_batches_tracked", None)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)

    def forward(self, x):
        w = self.weight.reshape(1, -1, 1, 1)
        b = self.bias.reshape(1, -1, 1, 1)
        rv = self.running_var.reshape(1, -1, 1, 1)
        rm = self.running_mean.reshape(1, -1, 1, 1)
        scale = w * (rv + self.eps).rsqrt()
        return x * scale + (b - rm * scale)

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({self.weight.shape[0]}, eps={self.eps})"


class ConvNormActivation(nn.Sequential):
    """Convolution, then an optional norm layer, then an optional activation (a Sequential:
    keys ``0.weight``, ``1.running_mean``...)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size=3, stride=1,
                 padding=None, groups: int = 1,
                 norm_layer: Callable[..., nn.Module] | None = nn.BatchNorm2d,
                 activation_layer: Callable[..., nn.Module] | None = nn.ReLU, dilation=1,
                 inplace: bool | None = True, bias: bool | None = None,
                 conv_layer: Callable[..., nn.Module] = nn.Conv2d) -> None:
        if padding is None:
            if isinstance(kernel_size, int) and isinstance(dilation, int):
                padding = (kernel_size - 1) // 2 * dilation
            else:
                n = len(kernel_size) if isinstance(kernel_size, Sequence) else len(dilation)
                kernel_size = _make_ntuple(kernel_size, n)
                dilation = _make_ntuple(dilation, n)
                padding = tuple((kernel_size[i] - 1) // 2 * dilation[i] for i in range(n))
        if bias is None:
            bias = norm_layer is None
        layers = [conv_layer(in_channels, out_channels, kernel_size, stride, padding,
                             dilation=dilation, groups=groups, bias=bias)]
        if norm_layer is not None:
            layers.append(norm_layer(out_channels))
        if activation_layer is not None:
            params = {} if inplace is None else {"inplace": inplace}
            layers.append(activation_layer(**params))
        super().__init__(*layers)
        self.out_channels = out_channels
        if self.__class__ == ConvNormActivation:
            warnings.warn("Don't use ConvNormActivation directly, please use Conv2dNormActivation "
                          "and Conv3dNormActivation instead.", stacklevel=2)


class Conv2dNormActivation(ConvNormActivation):
    """Conv2d, norm layer (default BatchNorm2d), activation (default ReLU).

    Args:
        in_channels (int): input channels.
        out_channels (int): output channels.
        kernel_size, stride, groups, dilation: as ``nn.Conv2d``.
        padding: default ``(kernel_size - 1) // 2 * dilation``.
        norm_layer, activation_layer: module constructors, or None to leave them out.
        inplace (bool): passed to the activation. Default True
        bias (bool): default: only when there is no norm layer.
    """

    def __init__(self, in_channels, out_channels, kernel_size=3, stride=1, padding=None,
                 groups=1, norm_layer=nn.BatchNorm2d, activation_layer=nn.ReLU, dilation=1,
                 inplace=True, bias=None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, groups,
                         norm_layer, activation_layer, dilation, inplace, bias, nn.Conv2d)


class Conv3dNormActivation(ConvNormActivation):
    """Conv3d, norm layer (default BatchNorm3d), activation (default ReLU); args as
    ``Conv2dNormActivation``."""

    def __init__(self, in_channels, out_channels, kernel_size=3, stride=1, padding=None,
                 groups=1, norm_layer=nn.BatchNorm3d, activation_layer=nn.ReLU, dilation=1,
                 inplace=True, bias=None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, groups,
                         norm_layer, activation_layer, dilation, inplace, bias, nn.Conv3d)


class SqueezeExcitation(nn.Module):
    """Squeeze-and-Excitation: ``input * sigma(fc2(delta(fc1(avgpool(input)))))``.

    Args:
        input_channels (int): channels of the input.
        squeeze_channels (int): channels of the bottleneck.
        activation: ``delta``. Default: ``nn.ReLU``
        scale_activation: ``sigma``. Default: ``nn.Sigmoid``
    """

    def __init__(self, input_channels: int, squeeze_channels: int, activation=nn.ReLU,
                 scale_activation=nn.Sigmoid) -> None:
        super().__init__()
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc1 = nn.Conv2d(input_channels, squeeze_channels, 1)
        self.fc2 = nn.Conv2d(squeeze_channels, input_channels, 1)
        self.activation = activation()
        self.scale_activation = scale_activation()

    def _scale(self, input):
        scale = self.activation(self.fc1(self.avgpool(input)))
        return self.scale_activation(self.fc2(scale))

    def forward(self, input):
        return self._scale(input) * input


class MLP(nn.Sequential):
    """Linear layers with optional norm, an activation and dropout between them.

    Args:
        in_channels (int): input features.
        hidden_channels (list[int]): the width of each linear layer (the last is the output).
        norm_layer: after each hidden linear layer, or None. Default None
        activation_layer: after each hidden layer. Default ``nn.ReLU``
        inplace (bool, optional): passed to the activation and dropout layers.
        bias (bool): linear biases. Default True
        dropout (float): dropout probability. Default 0.0
    """

    def __init__(self, in_channels: int, hidden_channels: list[int], norm_layer=None,
                 activation_layer=nn.ReLU, inplace: bool | None = None, bias: bool = True,
                 dropout: float = 0.0):
        params = {} if inplace is None else {"inplace": inplace}
        layers = []
        in_dim = in_channels
        for hidden_dim in hidden_channels[:-1]:
            layers.append(nn.Linear(in_dim, hidden_dim, bias=bias))
            if norm_layer is not None:
                layers.append(norm_layer(hidden_dim))
            layers.append(activation_layer(**params))
            layers.append(nn.Dropout(dropout, **params))
            in_dim = hidden_dim
        layers.append(nn.Linear(in_dim, hidden_channels[-1], bias=bias))
        layers.append(nn.Dropout(dropout, **params))
        super().__init__(*layers)


class Permute(nn.Module):
    """Returns ``jtorch.permute(x, dims)``."""

    def __init__(self, dims: list[int]):
        super().__init__()
        self.dims = dims

    def forward(self, x):
        return permute(x, self.dims)
