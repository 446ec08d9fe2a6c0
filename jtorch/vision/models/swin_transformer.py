"""Swin Transformer V1 (T/S/B) and V2 (T/S/B) (torchvision's ``models/swin_transformer.py``:
same modules, state_dict keys, buffers, initialization scheme and weights)."""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from typing import Any

import jtorch.nn.functional as F
from jtorch import nn
from jtorch.autograd.grad_mode import no_grad

from ..._core.dtypes import float32, int64
from ..._ops.compare import clamp, where
from ..._ops.creation import ones, zeros, zeros_like
from ..._ops.creation_math import arange
from ..._ops.shape import flatten
from ..._ops.shape_copy import cat, meshgrid, roll, stack
from ..ops.misc import MLP, Permute
from ..ops.stochastic_depth import StochasticDepth
from ._api import WeightsEnum
from ._utils import _build, _model_builder, _weights_enum

__all__ = ["SwinTransformer", "Swin_T_Weights", "Swin_S_Weights", "Swin_B_Weights",
           "Swin_V2_T_Weights", "Swin_V2_S_Weights", "Swin_V2_B_Weights", "swin_t", "swin_s",
           "swin_b", "swin_v2_t", "swin_v2_s", "swin_v2_b"]


def _patch_merging_pad(x):
    """``[..., H, W, C]`` (H, W padded to even) -> ``[..., H/2, W/2, 4C]``: the four pixels of
    each 2x2 patch side by side."""
    h, w, _ = x.shape[-3:]
    x = F.pad(x, (0, 0, 0, w % 2, 0, h % 2))
    return cat([x[..., 0::2, 0::2, :], x[..., 1::2, 0::2, :], x[..., 0::2, 1::2, :],
                x[..., 1::2, 1::2, :]], -1)


def _get_relative_position_bias(relative_position_bias_table, relative_position_index,
                                window_size: list[int]):
    """The ``(1, heads, N, N)`` bias of the ``N = Wh * Ww`` tokens of a window."""
    n = window_size[0] * window_size[1]
    bias = relative_position_bias_table[relative_position_index].view(n, n, -1)
    return bias.permute(2, 0, 1).contiguous().unsqueeze(0)


class _PatchMerging(nn.Module):
    """What both patch mergings hold: ``reduction`` (linear 4C -> 2C, no bias) and ``norm``
    over ``_norm_width * dim`` channels; each orders the two in its ``forward``."""

    _norm_width: int

    def __init__(self, dim: int, norm_layer: Callable[..., nn.Module] = nn.LayerNorm):
        super().__init__()
        self.dim = dim
        self.reduction = nn.Linear(4 * dim, 2 * dim, bias=False)
        self.norm = norm_layer(self._norm_width * dim)


class PatchMerging(_PatchMerging):
    """Patch merging: ``[..., H, W, C]`` -> norm(4C) -> linear -> ``[..., H/2, W/2, 2C]``.

    Args:
        dim (int): input channels.
        norm_layer: default ``nn.LayerNorm``.
    """

    _norm_width = 4

    def forward(self, x):
        return self.reduction(self.norm(_patch_merging_pad(x)))


class PatchMergingV2(_PatchMerging):
    """Swin V2's patch merging: linear, then norm(2C); arguments as ``PatchMerging``'s."""

    _norm_width = 2

    def forward(self, x):
        return self.norm(self.reduction(_patch_merging_pad(x)))


def _shift_window_mask(pad_h, pad_w, window_size, shift_size, num_windows, dtype, device):
    """The ``(num_windows, N, N)`` additive mask of shifted windows: -100 between tokens that
    come from different regions of the rolled image, 0 within one region. The regions are the
    rows ``[0, H-Wh)``, ``[H-Wh, H-sh)``, ``[H-sh, H)`` times the same split of the columns."""
    def region(size, window, shift):
        i = arange(size, device=device)
        return (i >= size - window).to(int64) + (i >= size - shift).to(int64)

    ids = region(pad_h, window_size[0], shift_size[0])[:, None] * 3 + \
        region(pad_w, window_size[1], shift_size[1])[None, :]
    ids = ids.view(pad_h // window_size[0], window_size[0], pad_w // window_size[1],
                   window_size[1]).permute(0, 2, 1, 3)
    ids = ids.reshape(num_windows, window_size[0] * window_size[1])
    diff = ids.unsqueeze(1) - ids.unsqueeze(2)
    return where(diff != 0, -100.0, 0.0).to(dtype)


def shifted_window_attention(input, qkv_weight, proj_weight, relative_position_bias,
                             window_size: list[int], num_heads: int, shift_size: list[int],
                             attention_dropout: float = 0.0, dropout: float = 0.0,
                             qkv_bias=None, proj_bias=None, logit_scale=None,
                             training: bool = True):
    """Window multi-head self-attention (W-MSA) with relative position bias, over shifted or
    unshifted windows.

    Args:
        input (Tensor[N, H, W, C]): the feature map.
        qkv_weight (Tensor[3C, C]), proj_weight (Tensor[C, C]): the projections' weights.
        relative_position_bias (Tensor): added to the attention logits.
        window_size (list[int]): the window.
        num_heads (int): attention heads.
        shift_size (list[int]): the cyclic shift (0 where the window covers the padded map).
        attention_dropout, dropout (float): dropout of the attention weights and of the output.
        qkv_bias, proj_bias (Tensor, optional): the projections' biases.
        logit_scale (Tensor, optional): cosine attention with this (clamped, exponentiated)
            scale, as in Swin V2 (the key bias is then left out).
        training (bool): apply the dropouts.

    Returns:
        Tensor[N, H, W, C]
    """
    b, h, w, c = input.shape
    pad_r = (window_size[1] - w % window_size[1]) % window_size[1]
    pad_b = (window_size[0] - h % window_size[0]) % window_size[0]
    x = F.pad(input, (0, 0, 0, pad_r, 0, pad_b))
    _, pad_h, pad_w, _ = x.shape
    shift_size = list(shift_size)
    if window_size[0] >= pad_h:
        shift_size[0] = 0
    if window_size[1] >= pad_w:
        shift_size[1] = 0
    shifted = sum(shift_size) > 0
    if shifted:
        x = roll(x, shifts=(-shift_size[0], -shift_size[1]), dims=(1, 2))
    num_windows = (pad_h // window_size[0]) * (pad_w // window_size[1])
    x = x.view(b, pad_h // window_size[0], window_size[0], pad_w // window_size[1],
               window_size[1], c)
    x = x.permute(0, 1, 3, 2, 4, 5).reshape(b * num_windows, window_size[0] * window_size[1], c)
    if logit_scale is not None and qkv_bias is not None:
        length = qkv_bias.numel() // 3
        qkv_bias = cat([qkv_bias[:length], zeros_like(qkv_bias[length:2 * length]),
                        qkv_bias[2 * length:]])
    qkv = F.linear(x, qkv_weight, qkv_bias)
    qkv = qkv.reshape(x.size(0), x.size(1), 3, num_heads, c // num_heads).permute(2, 0, 3, 1, 4)
    q, k, v = qkv[0], qkv[1], qkv[2]
    if logit_scale is not None:  # cosine attention
        attn = F.normalize(q, dim=-1) @ F.normalize(k, dim=-1).transpose(-2, -1)
        attn = attn * clamp(logit_scale, max=math.log(100.0)).exp()
    else:
        attn = (q * (c // num_heads) ** -0.5).matmul(k.transpose(-2, -1))
    attn = attn + relative_position_bias
    if shifted:
        mask = _shift_window_mask(pad_h, pad_w, window_size, shift_size, num_windows, attn.dtype,
                                  attn.device)
        attn = attn.view(x.size(0) // num_windows, num_windows, num_heads, x.size(1), x.size(1))
        attn = (attn + mask.unsqueeze(1).unsqueeze(0)).view(-1, num_heads, x.size(1), x.size(1))
    attn = F.dropout(F.softmax(attn, dim=-1), p=attention_dropout, training=training)
    x = attn.matmul(v).transpose(1, 2).reshape(x.size(0), x.size(1), c)
    x = F.dropout(F.linear(x, proj_weight, proj_bias), p=dropout, training=training)
    x = x.view(b, pad_h // window_size[0], pad_w // window_size[1], window_size[0],
               window_size[1], c)
    x = x.permute(0, 1, 3, 2, 4, 5).reshape(b, pad_h, pad_w, c)
    if shifted:
        x = roll(x, shifts=(shift_size[0], shift_size[1]), dims=(1, 2))
    return x[:, :h, :w, :].contiguous()


class ShiftedWindowAttention(nn.Module):
    """See :func:`shifted_window_attention`: a learned table of relative position biases.

    Args:
        dim (int): channels.
        window_size, shift_size (list[int]): two each.
        num_heads (int): attention heads.
        qkv_bias, proj_bias (bool): Default True
        attention_dropout, dropout (float): Default 0.0
    """

    def __init__(self, dim: int, window_size: list[int], shift_size: list[int], num_heads: int,
                 qkv_bias: bool = True, proj_bias: bool = True, attention_dropout: float = 0.0,
                 dropout: float = 0.0):
        super().__init__()
        if len(window_size) != 2 or len(shift_size) != 2:
            raise ValueError("window_size and shift_size must be of length 2")
        self.window_size = window_size
        self.shift_size = shift_size
        self.num_heads = num_heads
        self.attention_dropout = attention_dropout
        self.dropout = dropout
        self.qkv = nn.Linear(dim, dim * 3, bias=qkv_bias)
        self.proj = nn.Linear(dim, dim, bias=proj_bias)
        self.define_relative_position_bias_table()
        self.define_relative_position_index()

    def define_relative_position_bias_table(self):
        self.relative_position_bias_table = nn.Parameter(zeros(
            (2 * self.window_size[0] - 1) * (2 * self.window_size[1] - 1), self.num_heads))
        nn.init.trunc_normal_(self.relative_position_bias_table, std=0.02)

    def define_relative_position_index(self):
        """For each pair of the window's tokens, the row of their offset ``(dh, dw)`` in the
        ``(2Wh-1) x (2Ww-1)`` table (int64, ``N * N`` entries)."""
        wh, ww = self.window_size
        coords = flatten(stack(meshgrid(arange(wh), arange(ww), indexing="ij")), 1)
        rel = coords[:, :, None] - coords[:, None, :]  # 2, N, N
        index = (rel[0] + (wh - 1)) * (2 * ww - 1) + (rel[1] + (ww - 1))
        self.register_buffer("relative_position_index", index.flatten())

    def get_relative_position_bias(self):
        return _get_relative_position_bias(self.relative_position_bias_table,
                                           self.relative_position_index, self.window_size)

    def forward(self, x):
        return shifted_window_attention(
            x, self.qkv.weight, self.proj.weight, self.get_relative_position_bias(),
            self.window_size, self.num_heads, shift_size=self.shift_size,
            attention_dropout=self.attention_dropout, dropout=self.dropout,
            qkv_bias=self.qkv.bias, proj_bias=self.proj.bias, training=self.training)


class ShiftedWindowAttentionV2(ShiftedWindowAttention):
    """Swin V2's window attention: cosine attention with a learned ``logit_scale``, and the
    relative position bias from a small MLP (``cpb_mlp``) over log-spaced offsets."""

    def __init__(self, dim: int, window_size: list[int], shift_size: list[int], num_heads: int,
                 qkv_bias: bool = True, proj_bias: bool = True, attention_dropout: float = 0.0,
                 dropout: float = 0.0):
        super().__init__(dim, window_size, shift_size, num_heads, qkv_bias=qkv_bias,
                         proj_bias=proj_bias, attention_dropout=attention_dropout,
                         dropout=dropout)
        self.logit_scale = nn.Parameter((10 * ones((num_heads, 1, 1))).log())
        self.cpb_mlp = nn.Sequential(nn.Linear(2, 512, bias=True), nn.ReLU(inplace=True),
                                     nn.Linear(512, num_heads, bias=False))
        if qkv_bias:
            length = self.qkv.bias.numel() // 3
            with no_grad():
                self.qkv.bias[length:2 * length].zero_()

    def define_relative_position_bias_table(self):
        """The ``(1, 2Wh-1, 2Ww-1, 2)`` float32 buffer of offsets scaled to [-8, 8], then
        ``sign(t) * log2(|t| + 1) / 3``."""
        wh, ww = self.window_size
        h = arange(-(wh - 1), wh, dtype=float32) / (wh - 1) * 8
        w = arange(-(ww - 1), ww, dtype=float32) / (ww - 1) * 8
        table = stack(meshgrid([h, w], indexing="ij")).permute(1, 2, 0).contiguous().unsqueeze(0)
        table = table.sign() * (table.abs() + 1.0).log2() / 3.0
        self.register_buffer("relative_coords_table", table)

    def get_relative_position_bias(self):
        bias = _get_relative_position_bias(
            self.cpb_mlp(self.relative_coords_table).view(-1, self.num_heads),
            self.relative_position_index, self.window_size)
        return 16 * bias.sigmoid()

    def forward(self, x):
        return shifted_window_attention(
            x, self.qkv.weight, self.proj.weight, self.get_relative_position_bias(),
            self.window_size, self.num_heads, shift_size=self.shift_size,
            attention_dropout=self.attention_dropout, dropout=self.dropout,
            qkv_bias=self.qkv.bias, proj_bias=self.proj.bias, logit_scale=self.logit_scale,
            training=self.training)


class SwinTransformerBlock(nn.Module):
    """Swin block: ``x + attn(norm1(x))``, then ``x + mlp(norm2(x))`` (stochastic depth on
    both branches).

    Args:
        dim (int): channels.
        num_heads (int): attention heads.
        window_size, shift_size (list[int]): the attention's windows.
        mlp_ratio (float): MLP hidden width over ``dim``. Default 4.0
        dropout, attention_dropout, stochastic_depth_prob (float): Default 0.0
        norm_layer: default ``nn.LayerNorm``.
        attn_layer: default ``ShiftedWindowAttention``.
    """

    def __init__(self, dim: int, num_heads: int, window_size: list[int], shift_size: list[int],
                 mlp_ratio: float = 4.0, dropout: float = 0.0, attention_dropout: float = 0.0,
                 stochastic_depth_prob: float = 0.0,
                 norm_layer: Callable[..., nn.Module] = nn.LayerNorm,
                 attn_layer: Callable[..., nn.Module] = ShiftedWindowAttention):
        super().__init__()
        self.norm1 = norm_layer(dim)
        self.attn = attn_layer(dim, window_size, shift_size, num_heads,
                               attention_dropout=attention_dropout, dropout=dropout)
        self.stochastic_depth = StochasticDepth(stochastic_depth_prob, "row")
        self.norm2 = norm_layer(dim)
        self.mlp = MLP(dim, [int(dim * mlp_ratio), dim], activation_layer=nn.GELU, inplace=None,
                       dropout=dropout)
        for m in self.mlp.modules():
            if isinstance(m, nn.Linear):
                nn.init.xavier_uniform_(m.weight)
                if m.bias is not None:
                    nn.init.normal_(m.bias, std=1e-6)

    def forward(self, x):
        x = x + self.stochastic_depth(self.attn(self.norm1(x)))
        return x + self.stochastic_depth(self.mlp(self.norm2(x)))


class SwinTransformerBlockV2(SwinTransformerBlock):
    """Swin V2 block: the norms after the attention and the MLP (``x + norm1(attn(x))``);
    ``attn_layer`` defaults to ``ShiftedWindowAttentionV2``."""

    def __init__(self, dim: int, num_heads: int, window_size: list[int], shift_size: list[int],
                 mlp_ratio: float = 4.0, dropout: float = 0.0, attention_dropout: float = 0.0,
                 stochastic_depth_prob: float = 0.0,
                 norm_layer: Callable[..., nn.Module] = nn.LayerNorm,
                 attn_layer: Callable[..., nn.Module] = ShiftedWindowAttentionV2):
        super().__init__(dim, num_heads, window_size, shift_size, mlp_ratio=mlp_ratio,
                         dropout=dropout, attention_dropout=attention_dropout,
                         stochastic_depth_prob=stochastic_depth_prob, norm_layer=norm_layer,
                         attn_layer=attn_layer)

    def forward(self, x):
        x = x + self.stochastic_depth(self.norm1(self.attn(x)))
        return x + self.stochastic_depth(self.norm2(self.mlp(x)))


class SwinTransformer(nn.Module):
    """Swin Transformer (https://arxiv.org/abs/2103.14030; V2: https://arxiv.org/abs/2111.09883).

    Args:
        patch_size (list[int]): the patch embedding's patch.
        embed_dim (int): the first stage's channels (doubled by each patch merging).
        depths, num_heads (list[int]): blocks and attention heads of each stage.
        window_size (list[int]): the attention window.
        mlp_ratio (float): Default 4.0
        dropout, attention_dropout (float): Default 0.0
        stochastic_depth_prob (float): the last block's drop probability. Default 0.1
        num_classes (int): Default 1000
        norm_layer: default ``nn.LayerNorm(eps=1e-5)``.
        block: default ``SwinTransformerBlock``.
        downsample_layer: default ``PatchMerging``.

    Shape:
        - Input: ``(N, 3, H, W)``
        - Output: ``(N, num_classes)``
    """

    def __init__(self, patch_size: list[int], embed_dim: int, depths: list[int],
                 num_heads: list[int], window_size: list[int], mlp_ratio: float = 4.0,
                 dropout: float = 0.0, attention_dropout: float = 0.0,
                 stochastic_depth_prob: float = 0.1, num_classes: int = 1000,
                 norm_layer: Callable[..., nn.Module] | None = None,
                 block: Callable[..., nn.Module] | None = None,
                 downsample_layer: Callable[..., nn.Module] = PatchMerging):
        super().__init__()
        self.num_classes = num_classes
        if block is None:
            block = SwinTransformerBlock
        if norm_layer is None:
            norm_layer = partial(nn.LayerNorm, eps=1e-5)
        layers: list[nn.Module] = [nn.Sequential(
            nn.Conv2d(3, embed_dim, kernel_size=(patch_size[0], patch_size[1]),
                      stride=(patch_size[0], patch_size[1])),
            Permute([0, 2, 3, 1]), norm_layer(embed_dim))]
        total_stage_blocks = sum(depths)
        stage_block_id = 0
        for i_stage in range(len(depths)):
            stage: list[nn.Module] = []
            dim = embed_dim * 2 ** i_stage
            for i_layer in range(depths[i_stage]):
                sd_prob = stochastic_depth_prob * float(stage_block_id) / (total_stage_blocks - 1)
                stage.append(block(
                    dim, num_heads[i_stage], window_size=window_size,
                    shift_size=[0 if i_layer % 2 == 0 else w // 2 for w in window_size],
                    mlp_ratio=mlp_ratio, dropout=dropout, attention_dropout=attention_dropout,
                    stochastic_depth_prob=sd_prob, norm_layer=norm_layer))
                stage_block_id += 1
            layers.append(nn.Sequential(*stage))
            if i_stage < len(depths) - 1:
                layers.append(downsample_layer(dim, norm_layer))
        self.features = nn.Sequential(*layers)
        num_features = embed_dim * 2 ** (len(depths) - 1)
        self.norm = norm_layer(num_features)
        self.permute = Permute([0, 3, 1, 2])
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.flatten = nn.Flatten(1)
        self.head = nn.Linear(num_features, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.trunc_normal_(m.weight, std=0.02)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)

    def forward(self, x):
        x = self.permute(self.norm(self.features(x)))
        return self.head(self.flatten(self.avgpool(x)))


Swin_T_Weights = _weights_enum(__name__, "Swin_T_Weights")
Swin_S_Weights = _weights_enum(__name__, "Swin_S_Weights")
Swin_B_Weights = _weights_enum(__name__, "Swin_B_Weights")
Swin_V2_T_Weights = _weights_enum(__name__, "Swin_V2_T_Weights")
Swin_V2_S_Weights = _weights_enum(__name__, "Swin_V2_S_Weights")
Swin_V2_B_Weights = _weights_enum(__name__, "Swin_V2_B_Weights")


def _swin_transformer(config: dict[str, Any], weights: WeightsEnum | None, progress: bool,
                      kwargs: dict[str, Any]) -> SwinTransformer:
    return _build(partial(SwinTransformer, **config), weights, progress, kwargs)


def _builder(name, weights_enum, embed_dim, depth3, heads, sd_prob, v2, summary):
    config = {"patch_size": [4, 4], "embed_dim": embed_dim, "depths": [2, 2, depth3, 2],
              "num_heads": [heads, 2 * heads, 4 * heads, 8 * heads],
              "window_size": [8, 8] if v2 else [7, 7], "stochastic_depth_prob": sd_prob}
    if v2:
        config.update(block=SwinTransformerBlockV2, downsample_layer=PatchMergingV2)
    paper = ("Swin Transformer V2: Scaling Up Capacity and Resolution" if v2 else
             "Swin Transformer: Hierarchical Vision Transformer using Shifted Windows")
    return _model_builder(__name__, name, weights_enum, SwinTransformer,
                          partial(_swin_transformer, config), f"{summary} from `{paper}`.")


swin_t = _builder("swin_t", Swin_T_Weights, 96, 6, 3, 0.2, False, "swin_tiny")
swin_s = _builder("swin_s", Swin_S_Weights, 96, 18, 3, 0.3, False, "swin_small")
swin_b = _builder("swin_b", Swin_B_Weights, 128, 18, 4, 0.5, False, "swin_base")
swin_v2_t = _builder("swin_v2_t", Swin_V2_T_Weights, 96, 6, 3, 0.2, True, "swin_v2_tiny")
swin_v2_s = _builder("swin_v2_s", Swin_V2_S_Weights, 96, 18, 3, 0.3, True, "swin_v2_small")
swin_v2_b = _builder("swin_v2_b", Swin_V2_B_Weights, 128, 18, 4, 0.5, True, "swin_v2_base")
