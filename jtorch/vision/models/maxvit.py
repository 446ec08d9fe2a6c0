"""MaxViT-T (torchvision's ``models/maxvit.py``: same modules, state_dict keys, buffers,
initialization scheme and weights)."""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable, Sequence
from functools import partial

import numpy as np

import jtorch.nn.functional as F
from jtorch import nn

from ..._ops.creation import empty
from ..._ops.creation_math import arange
from ..._ops.shape import flatten
from ..._ops.shape_copy import meshgrid, stack
from ..ops.misc import Conv2dNormActivation, SqueezeExcitation
from ..ops.stochastic_depth import StochasticDepth
from ._api import WeightsEnum
from ._utils import _build, _model_builder, _weights_enum

__all__ = ["MaxVit", "MaxVit_T_Weights", "maxvit_t"]


def _get_conv_output_shape(input_size: tuple[int, int], kernel_size: int, stride: int,
                           padding: int) -> tuple[int, int]:
    return ((input_size[0] - kernel_size + 2 * padding) // stride + 1,
            (input_size[1] - kernel_size + 2 * padding) // stride + 1)


def _make_block_input_shapes(input_size: tuple[int, int], n_blocks: int) -> list[tuple[int, int]]:
    """The feature size entering each block (after the stride-2 stem and each block's stride 2)."""
    shapes = []
    shape = _get_conv_output_shape(input_size, 3, 2, 1)
    for _ in range(n_blocks):
        shape = _get_conv_output_shape(shape, 3, 2, 1)
        shapes.append(shape)
    return shapes


def _get_relative_position_index(height: int, width: int):
    """``(H*W, H*W)`` int64: for each pair of positions, the row of their offset in the
    ``(2H-1) x (2W-1)`` bias table."""
    coords = flatten(stack(meshgrid([arange(height), arange(width)], indexing="ij")), 1)
    rel = coords[:, :, None] - coords[:, None, :]
    return (rel[0] + (height - 1)) * (2 * width - 1) + (rel[1] + (width - 1))


class MBConv(nn.Module):
    """MaxViT's pre-norm inverted bottleneck: norm, 1x1 expand, depthwise 3x3, squeeze-excitation,
    1x1 project; the shortcut is (average-pooled and) 1x1-projected when the shape changes.

    Args:
        in_channels, out_channels (int): channels.
        expansion_ratio, squeeze_ratio (float): of ``out_channels``.
        stride (int): the depthwise convolution's.
        activation_layer, norm_layer: module constructors.
        p_stochastic_dropout (float): stochastic depth (``nn.Identity`` when 0). Default 0.0
    """

    def __init__(self, in_channels: int, out_channels: int, expansion_ratio: float,
                 squeeze_ratio: float, stride: int, activation_layer: Callable[..., nn.Module],
                 norm_layer: Callable[..., nn.Module], p_stochastic_dropout: float = 0.0) -> None:
        super().__init__()
        if stride != 1 or in_channels != out_channels:
            proj: list[nn.Module] = [nn.Conv2d(in_channels, out_channels, kernel_size=1, stride=1,
                                               bias=True)]
            if stride == 2:
                proj = [nn.AvgPool2d(kernel_size=3, stride=stride, padding=1)] + proj
            self.proj: nn.Module = nn.Sequential(*proj)
        else:
            self.proj = nn.Identity()
        mid_channels = int(out_channels * expansion_ratio)
        sqz_channels = int(out_channels * squeeze_ratio)
        self.stochastic_depth: nn.Module = (
            StochasticDepth(p_stochastic_dropout, mode="row") if p_stochastic_dropout
            else nn.Identity())
        layers: OrderedDict[str, nn.Module] = OrderedDict()
        layers["pre_norm"] = norm_layer(in_channels)
        layers["conv_a"] = Conv2dNormActivation(
            in_channels, mid_channels, kernel_size=1, stride=1, padding=0,
            activation_layer=activation_layer, norm_layer=norm_layer, inplace=None)
        layers["conv_b"] = Conv2dNormActivation(
            mid_channels, mid_channels, kernel_size=3, stride=stride, padding=1,
            activation_layer=activation_layer, norm_layer=norm_layer, groups=mid_channels,
            inplace=None)
        layers["squeeze_excitation"] = SqueezeExcitation(mid_channels, sqz_channels,
                                                         activation=nn.SiLU)
        layers["conv_c"] = nn.Conv2d(in_channels=mid_channels, out_channels=out_channels,
                                     kernel_size=1, bias=True)
        self.layers = nn.Sequential(layers)

    def forward(self, x):
        return self.proj(x) + self.stochastic_depth(self.layers(x))


class RelativePositionalMultiHeadAttention(nn.Module):
    """Multi-head self-attention over ``[B, G, P, D]`` (G groups of P tokens) with a learned
    relative position bias.

    Args:
        feat_dim (int): ``D``.
        head_dim (int): features per head (divides ``feat_dim``).
        max_seq_len (int): ``P``, a square.
    """

    def __init__(self, feat_dim: int, head_dim: int, max_seq_len: int) -> None:
        super().__init__()
        if feat_dim % head_dim != 0:
            raise ValueError(f"feat_dim: {feat_dim} must be divisible by head_dim: {head_dim}")
        self.n_heads = feat_dim // head_dim
        self.head_dim = head_dim
        self.size = int(math.sqrt(max_seq_len))
        self.max_seq_len = max_seq_len
        self.to_qkv = nn.Linear(feat_dim, self.n_heads * self.head_dim * 3)
        self.scale_factor = feat_dim ** -0.5
        self.merge = nn.Linear(self.head_dim * self.n_heads, feat_dim)
        self.relative_position_bias_table = nn.Parameter(
            empty((2 * self.size - 1) * (2 * self.size - 1), self.n_heads))
        self.register_buffer("relative_position_index",
                             _get_relative_position_index(self.size, self.size))
        nn.init.trunc_normal_(self.relative_position_bias_table, std=0.02)

    def get_relative_positional_bias(self):
        bias = self.relative_position_bias_table[self.relative_position_index.view(-1)]
        bias = bias.view(self.max_seq_len, self.max_seq_len, -1).permute(2, 0, 1).contiguous()
        return bias.unsqueeze(0)

    def forward(self, x):
        b, g, p, d = x.shape
        h, dh = self.n_heads, self.head_dim
        q, k, v = self.to_qkv(x).chunk(3, dim=-1)
        q = q.reshape(b, g, p, h, dh).permute(0, 1, 3, 2, 4)
        k = k.reshape(b, g, p, h, dh).permute(0, 1, 3, 2, 4) * self.scale_factor
        v = v.reshape(b, g, p, h, dh).permute(0, 1, 3, 2, 4)
        attn = F.softmax(q @ k.transpose(-2, -1) + self.get_relative_positional_bias(), dim=-1)
        out = (attn @ v).permute(0, 1, 3, 2, 4).reshape(b, g, p, d)
        return self.merge(out)


class SwapAxes(nn.Module):
    """``x.swapaxes(a, b)``."""

    def __init__(self, a: int, b: int) -> None:
        super().__init__()
        self.a = a
        self.b = b

    def forward(self, x):
        return x.transpose(self.a, self.b)


class WindowPartition(nn.Module):
    """``[B, C, H, W]`` -> ``[B, H/P * W/P, P*P, C]``: the non-overlapping P x P windows."""

    def forward(self, x, p: int):
        b, c, h, w = x.shape
        x = x.reshape(b, c, h // p, p, w // p, p).permute(0, 2, 4, 3, 5, 1)
        return x.reshape(b, (h // p) * (w // p), p * p, c)


class WindowDepartition(nn.Module):
    """The inverse of ``WindowPartition``: ``[B, HP * WP, P*P, C]`` -> ``[B, C, HP*P, WP*P]``."""

    def forward(self, x, p: int, h_partitions: int, w_partitions: int):
        b, _, _, c = x.shape
        x = x.reshape(b, h_partitions, w_partitions, p, p, c).permute(0, 5, 1, 3, 2, 4)
        return x.reshape(b, c, h_partitions * p, w_partitions * p)


class PartitionAttentionLayer(nn.Module):
    """Attention within windows (``partition_type="window"``: P x P neighbours) or across a
    sparse grid (``"grid"``: tokens ``grid_size / P`` apart), then an MLP; pre-norm residuals
    with stochastic depth.

    Args:
        in_channels, head_dim (int): channels and features per head.
        partition_size (int): ``P``.
        partition_type (str): ``"window"`` or ``"grid"``.
        grid_size (tuple[int, int]): the feature map's size.
        mlp_ratio (int): MLP hidden width over ``in_channels``.
        activation_layer, norm_layer: module constructors.
        attention_dropout, mlp_dropout, p_stochastic_dropout (float): dropouts.
    """

    def __init__(self, in_channels: int, head_dim: int, partition_size: int, partition_type: str,
                 grid_size: tuple[int, int], mlp_ratio: int,
                 activation_layer: Callable[..., nn.Module],
                 norm_layer: Callable[..., nn.Module], attention_dropout: float,
                 mlp_dropout: float, p_stochastic_dropout: float) -> None:
        super().__init__()
        self.n_heads = in_channels // head_dim
        self.head_dim = head_dim
        self.n_partitions = grid_size[0] // partition_size
        self.partition_type = partition_type
        self.grid_size = grid_size
        if partition_type not in ["grid", "window"]:
            raise ValueError("partition_type must be either 'grid' or 'window'")
        if partition_type == "window":
            self.p, self.g = partition_size, self.n_partitions
        else:
            self.p, self.g = self.n_partitions, partition_size
        self.partition_op = WindowPartition()
        self.departition_op = WindowDepartition()
        grid = partition_type == "grid"
        self.partition_swap = SwapAxes(-2, -3) if grid else nn.Identity()
        self.departition_swap = SwapAxes(-2, -3) if grid else nn.Identity()
        self.attn_layer = nn.Sequential(
            norm_layer(in_channels),
            RelativePositionalMultiHeadAttention(in_channels, head_dim, partition_size ** 2),
            nn.Dropout(attention_dropout))
        self.mlp_layer = nn.Sequential(
            nn.LayerNorm(in_channels), nn.Linear(in_channels, in_channels * mlp_ratio),
            activation_layer(), nn.Linear(in_channels * mlp_ratio, in_channels),
            nn.Dropout(mlp_dropout))
        self.stochastic_dropout = StochasticDepth(p_stochastic_dropout, mode="row")

    def forward(self, x):
        gh, gw = self.grid_size[0] // self.p, self.grid_size[1] // self.p
        if self.grid_size[0] % self.p != 0 or self.grid_size[1] % self.p != 0:
            raise AssertionError(
                f"Grid size must be divisible by partition size. Got grid size of "
                f"{self.grid_size} and partition size of {self.p}")
        x = self.partition_swap(self.partition_op(x, self.p))
        x = x + self.stochastic_dropout(self.attn_layer(x))
        x = x + self.stochastic_dropout(self.mlp_layer(x))
        return self.departition_op(self.departition_swap(x), self.p, gh, gw)


class MaxVitLayer(nn.Module):
    """``MBconv``, then window attention, then grid attention (``layers``)."""

    def __init__(self, in_channels: int, out_channels: int, squeeze_ratio: float,
                 expansion_ratio: float, stride: int, norm_layer: Callable[..., nn.Module],
                 activation_layer: Callable[..., nn.Module], head_dim: int, mlp_ratio: int,
                 mlp_dropout: float, attention_dropout: float, p_stochastic_dropout: float,
                 partition_size: int, grid_size: tuple[int, int]) -> None:
        super().__init__()
        layers: OrderedDict[str, nn.Module] = OrderedDict()
        layers["MBconv"] = MBConv(
            in_channels=in_channels, out_channels=out_channels, expansion_ratio=expansion_ratio,
            squeeze_ratio=squeeze_ratio, stride=stride, activation_layer=activation_layer,
            norm_layer=norm_layer, p_stochastic_dropout=p_stochastic_dropout)
        for kind in ("window", "grid"):
            layers[f"{kind}_attention"] = PartitionAttentionLayer(
                in_channels=out_channels, head_dim=head_dim, partition_size=partition_size,
                partition_type=kind, grid_size=grid_size, mlp_ratio=mlp_ratio,
                activation_layer=activation_layer, norm_layer=nn.LayerNorm,
                attention_dropout=attention_dropout, mlp_dropout=mlp_dropout,
                p_stochastic_dropout=p_stochastic_dropout)
        self.layers = nn.Sequential(layers)

    def forward(self, x):
        return self.layers(x)


class MaxVitBlock(nn.Module):
    """``n_layers`` MaxViT layers (``layers``, a ModuleList), the first one striding by 2."""

    def __init__(self, in_channels: int, out_channels: int, squeeze_ratio: float,
                 expansion_ratio: float, norm_layer: Callable[..., nn.Module],
                 activation_layer: Callable[..., nn.Module], head_dim: int, mlp_ratio: int,
                 mlp_dropout: float, attention_dropout: float, partition_size: int,
                 input_grid_size: tuple[int, int], n_layers: int,
                 p_stochastic: list[float]) -> None:
        super().__init__()
        if not len(p_stochastic) == n_layers:
            raise ValueError(f"p_stochastic must have length n_layers={n_layers}, got "
                             f"p_stochastic={p_stochastic}.")
        self.layers = nn.ModuleList()
        self.grid_size = _get_conv_output_shape(input_grid_size, kernel_size=3, stride=2,
                                                padding=1)
        for idx, p in enumerate(p_stochastic):
            self.layers += [MaxVitLayer(
                in_channels=in_channels if idx == 0 else out_channels,
                out_channels=out_channels, squeeze_ratio=squeeze_ratio,
                expansion_ratio=expansion_ratio, stride=2 if idx == 0 else 1,
                norm_layer=norm_layer, activation_layer=activation_layer, head_dim=head_dim,
                mlp_ratio=mlp_ratio, mlp_dropout=mlp_dropout,
                attention_dropout=attention_dropout, partition_size=partition_size,
                grid_size=self.grid_size, p_stochastic_dropout=p)]

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


class MaxVit(nn.Module):
    """MaxViT (https://arxiv.org/abs/2204.01697).

    Args:
        input_size (tuple[int, int]): the input image's size (fixed: the attention grids
            depend on it).
        stem_channels (int): the stem's channels.
        partition_size (int): the window / grid size; divides every block's input size.
        block_channels, block_layers (list[int]): channels and layers of each block.
        head_dim (int): features per attention head.
        stochastic_depth_prob (float): the last layer's (linear ramp from 0).
        norm_layer: default ``BatchNorm2d(eps=1e-3, momentum=0.01)``.
        activation_layer: default ``nn.GELU``.
        squeeze_ratio (float): Default 0.25
        expansion_ratio (float): Default 4
        mlp_ratio (int): Default 4
        mlp_dropout, attention_dropout (float): Default 0.0
        num_classes (int): Default 1000

    Shape:
        - Input: ``(N, 3, *input_size)``
        - Output: ``(N, num_classes)``
    """

    def __init__(self, input_size: tuple[int, int], stem_channels: int, partition_size: int,
                 block_channels: list[int], block_layers: list[int], head_dim: int,
                 stochastic_depth_prob: float,
                 norm_layer: Callable[..., nn.Module] | None = None,
                 activation_layer: Callable[..., nn.Module] = nn.GELU,
                 squeeze_ratio: float = 0.25, expansion_ratio: float = 4, mlp_ratio: int = 4,
                 mlp_dropout: float = 0.0, attention_dropout: float = 0.0,
                 num_classes: int = 1000) -> None:
        super().__init__()
        if norm_layer is None:
            norm_layer = partial(nn.BatchNorm2d, eps=1e-3, momentum=0.01)
        block_input_sizes = _make_block_input_shapes(input_size, len(block_channels))
        for idx, size in enumerate(block_input_sizes):
            if size[0] % partition_size != 0 or size[1] % partition_size != 0:
                raise ValueError(
                    f"Input size {size} of block {idx} is not divisible by partition size "
                    f"{partition_size}. Consider changing the partition size or the input size."
                    f"\nCurrent configuration yields the following block input sizes: "
                    f"{block_input_sizes}.")
        self.stem = nn.Sequential(
            Conv2dNormActivation(3, stem_channels, 3, stride=2, norm_layer=norm_layer,
                                 activation_layer=activation_layer, bias=False, inplace=None),
            Conv2dNormActivation(stem_channels, stem_channels, 3, stride=1, norm_layer=None,
                                 activation_layer=None, bias=True))
        input_size = _get_conv_output_shape(input_size, kernel_size=3, stride=2, padding=1)
        self.partition_size = partition_size
        self.blocks = nn.ModuleList()
        in_channels = [stem_channels] + list(block_channels[:-1])
        p_stochastic = np.linspace(0, stochastic_depth_prob, sum(block_layers)).tolist()
        p_idx = 0
        for in_channel, out_channel, num_layers in zip(in_channels, block_channels, block_layers):
            self.blocks.append(MaxVitBlock(
                in_channels=in_channel, out_channels=out_channel, squeeze_ratio=squeeze_ratio,
                expansion_ratio=expansion_ratio, norm_layer=norm_layer,
                activation_layer=activation_layer, head_dim=head_dim, mlp_ratio=mlp_ratio,
                mlp_dropout=mlp_dropout, attention_dropout=attention_dropout,
                partition_size=partition_size, input_grid_size=input_size, n_layers=num_layers,
                p_stochastic=p_stochastic[p_idx:p_idx + num_layers]))
            input_size = self.blocks[-1].grid_size
            p_idx += num_layers
        self.classifier = nn.Sequential(
            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.LayerNorm(block_channels[-1]),
            nn.Linear(block_channels[-1], block_channels[-1]), nn.Tanh(),
            nn.Linear(block_channels[-1], num_classes, bias=False))
        self._init_weights()

    def forward(self, x):
        x = self.stem(x)
        for block in self.blocks:
            x = block(x)
        return self.classifier(x)

    def _init_weights(self):
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.normal_(m.weight, std=0.02)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.constant_(m.weight, 1)
                nn.init.constant_(m.bias, 0)
            elif isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, std=0.02)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)


MaxVit_T_Weights = _weights_enum(__name__, "MaxVit_T_Weights")


def _maxvit(weights: WeightsEnum | None, progress: bool, kwargs: dict) -> MaxVit:
    def make(input_size: Sequence[int] = (224, 224), **kw):
        return MaxVit(input_size=input_size, stem_channels=64, block_channels=[64, 128, 256, 512],
                      block_layers=[2, 2, 5, 2], head_dim=32, stochastic_depth_prob=0.2,
                      partition_size=7, **kw)

    return _build(make, weights, progress, kwargs, input_size=lambda meta: meta["min_size"])


maxvit_t = _model_builder(
    __name__, "maxvit_t", MaxVit_T_Weights, MaxVit, _maxvit,
    "Constructs a maxvit_t architecture from `MaxViT: Multi-Axis Vision Transformer`.",
    " (``input_size`` defaults to (224, 224))")
