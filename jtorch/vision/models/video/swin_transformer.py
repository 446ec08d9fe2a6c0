"""Video Swin Transformer T/S/B (torchvision's ``models/video/swin_transformer.py``: same modules,
state_dict keys, buffers, initialization scheme and Kinetics-400 weights). The blocks and the
patch merging are the 2D model's (``SwinTransformerBlock`` with ``ShiftedWindowAttention3d``,
``PatchMerging`` over the last two spatial axes), as in torchvision."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import jtorch.nn.functional as F
from jtorch import nn

from ...._core.dtypes import int64
from ...._ops.compare import where
from ...._ops.creation import zeros
from ...._ops.creation_math import arange
from ...._ops.shape import flatten
from ...._ops.shape_copy import meshgrid, roll, stack
from .._utils import _build, _model_builder, _weights_enum
from ..swin_transformer import PatchMerging, SwinTransformerBlock

__all__ = ["SwinTransformer3d", "Swin3D_T_Weights", "Swin3D_S_Weights", "Swin3D_B_Weights",
           "swin3d_t", "swin3d_s", "swin3d_b"]


def _get_window_and_shift_size(shift_size: list[int], size_dhw: list[int],
                               window_size: list[int]) -> tuple[list[int], list[int]]:
    """A window no larger than the input (then unshifted), per axis; edits the lists."""
    for i in range(3):
        if size_dhw[i] <= window_size[i]:
            window_size[i] = size_dhw[i]
            shift_size[i] = 0
    return window_size, shift_size


def _get_relative_position_bias(relative_position_bias_table, relative_position_index,
                                window_size: list[int]):
    """The ``(1, heads, N, N)`` bias of a window's ``N = Wd * Wh * Ww`` tokens (a window shrunk
    to the input reads the first ``N`` rows and columns of the full window's index, as
    torchvision's does)."""
    n = window_size[0] * window_size[1] * window_size[2]
    bias = relative_position_bias_table[relative_position_index[:n, :n].flatten()]
    return bias.view(n, n, -1).permute(2, 0, 1).contiguous().unsqueeze(0)


def _compute_pad_size_3d(size_dhw, patch_size) -> tuple[int, int, int]:
    pad = [(patch_size[i] - size_dhw[i] % patch_size[i]) % patch_size[i] for i in range(3)]
    return pad[0], pad[1], pad[2]


def _compute_attention_mask_3d(x, size_dhw, window_size, shift_size):
    """The ``(num_windows, N, N)`` additive mask of shifted windows: -100 between tokens from
    different regions of the rolled clip, 0 within one. Per axis the regions are torchvision's
    slices ``[0, -w)``, ``[-w, -s)``, ``[-s, end)`` (``s = 0``: one region, the whole axis),
    compared as ``arange`` thresholds (no Python loop over values: it compiles)."""
    def region(size, window, shift):
        i = arange(size, device=x.device)
        if shift == 0:
            return zeros(size, dtype=int64, device=x.device)
        return (i >= size - window).to(int64) + (i >= size - shift).to(int64)

    r = [region(size_dhw[i], window_size[i], shift_size[i]) for i in range(3)]
    ids = r[0][:, None, None] * 9 + r[1][None, :, None] * 3 + r[2][None, None, :]
    n = [size_dhw[i] // window_size[i] for i in range(3)]
    ids = ids.view(n[0], window_size[0], n[1], window_size[1], n[2], window_size[2])
    ids = ids.permute(0, 2, 4, 1, 3, 5).reshape(n[0] * n[1] * n[2], -1)
    diff = ids.unsqueeze(1) - ids.unsqueeze(2)
    return where(diff != 0, -100.0, 0.0).to(x.dtype)


def shifted_window_attention_3d(input, qkv_weight, proj_weight, relative_position_bias,
                                window_size: list[int], num_heads: int, shift_size: list[int],
                                attention_dropout: float = 0.0, dropout: float = 0.0,
                                qkv_bias=None, proj_bias=None, training: bool = True):
    """Window multi-head self-attention (W-MSA) with relative position bias over 3D windows,
    shifted or not.

    Args:
        input (Tensor[B, T, H, W, C]): the features.
        qkv_weight (Tensor[3C, C]), proj_weight (Tensor[C, C]): the projections' weights.
        relative_position_bias (Tensor): added to the attention logits.
        window_size, shift_size (list[int]): ``(T, H, W)`` each.
        num_heads (int): attention heads.
        attention_dropout, dropout (float): dropout of the attention weights and of the output.
        qkv_bias, proj_bias (Tensor, optional): the projections' biases.
        training (bool): apply the dropouts. Default True

    Returns:
        Tensor[B, T, H, W, C]
    """
    b, t, h, w, c = input.shape
    pad = _compute_pad_size_3d((t, h, w), window_size)
    x = F.pad(input, (0, 0, 0, pad[2], 0, pad[1], 0, pad[0]))
    _, tp, hp, wp, _ = x.shape
    shifted = sum(shift_size) > 0
    if shifted:
        x = roll(x, shifts=tuple(-s for s in shift_size[:3]), dims=(1, 2, 3))
    n = [tp // window_size[0], hp // window_size[1], wp // window_size[2]]
    num_windows = n[0] * n[1] * n[2]
    vol = window_size[0] * window_size[1] * window_size[2]
    x = x.view(b, n[0], window_size[0], n[1], window_size[1], n[2], window_size[2], c)
    x = x.permute(0, 1, 3, 5, 2, 4, 6, 7).reshape(b * num_windows, vol, c)
    qkv = F.linear(x, qkv_weight, qkv_bias)
    qkv = qkv.reshape(x.size(0), x.size(1), 3, num_heads, c // num_heads).permute(2, 0, 3, 1, 4)
    q, k, v = qkv[0], qkv[1], qkv[2]
    attn = (q * (c // num_heads) ** -0.5).matmul(k.transpose(-2, -1)) + relative_position_bias
    if shifted:
        mask = _compute_attention_mask_3d(x, (tp, hp, wp), window_size, shift_size)
        attn = attn.view(x.size(0) // num_windows, num_windows, num_heads, vol, vol)
        attn = (attn + mask.unsqueeze(1).unsqueeze(0)).view(-1, num_heads, vol, vol)
    attn = F.dropout(F.softmax(attn, dim=-1), p=attention_dropout, training=training)
    x = attn.matmul(v).transpose(1, 2).reshape(x.size(0), vol, c)
    x = F.dropout(F.linear(x, proj_weight, proj_bias), p=dropout, training=training)
    x = x.view(b, n[0], n[1], n[2], window_size[0], window_size[1], window_size[2], c)
    x = x.permute(0, 1, 4, 2, 5, 3, 6, 7).reshape(b, tp, hp, wp, c)
    if shifted:
        x = roll(x, shifts=tuple(shift_size[:3]), dims=(1, 2, 3))
    return x[:, :t, :h, :w, :].contiguous()


class ShiftedWindowAttention3d(nn.Module):
    """See :func:`shifted_window_attention_3d`: a learned table of relative position biases
    (``(2Wd-1)(2Wh-1)(2Ww-1) x heads``) and its ``(N, N)`` index buffer.

    Args:
        dim (int): channels.
        window_size, shift_size (list[int]): three each.
        num_heads (int): attention heads.
        qkv_bias, proj_bias (bool): Default True
        attention_dropout, dropout (float): Default 0.0
    """

    def __init__(self, dim: int, window_size: list[int], shift_size: list[int], num_heads: int,
                 qkv_bias: bool = True, proj_bias: bool = True, attention_dropout: float = 0.0,
                 dropout: float = 0.0) -> None:
        super().__init__()
        if len(window_size) != 3 or len(shift_size) != 3:
            raise ValueError("window_size and shift_size must be of length 2")  # (sic)
        self.window_size = window_size
        self.shift_size = shift_size
        self.num_heads = num_heads
        self.attention_dropout = attention_dropout
        self.dropout = dropout
        self.qkv = nn.Linear(dim, dim * 3, bias=qkv_bias)
        self.proj = nn.Linear(dim, dim, bias=proj_bias)
        self.define_relative_position_bias_table()
        self.define_relative_position_index()

    def define_relative_position_bias_table(self) -> None:
        wd, wh, ww = self.window_size
        self.relative_position_bias_table = nn.Parameter(
            zeros((2 * wd - 1) * (2 * wh - 1) * (2 * ww - 1), self.num_heads))
        nn.init.trunc_normal_(self.relative_position_bias_table, std=0.02)

    def define_relative_position_index(self) -> None:
        """For each pair of the window's tokens, the row of their offset in the table."""
        wd, wh, ww = self.window_size
        coords = flatten(stack(meshgrid(arange(wd), arange(wh), arange(ww), indexing="ij")), 1)
        rel = coords[:, :, None] - coords[:, None, :]  # 3, N, N
        index = ((rel[0] + (wd - 1)) * ((2 * wh - 1) * (2 * ww - 1))
                 + (rel[1] + (wh - 1)) * (2 * ww - 1) + (rel[2] + (ww - 1)))
        self.register_buffer("relative_position_index", index)

    def get_relative_position_bias(self, window_size: list[int]):
        return _get_relative_position_bias(self.relative_position_bias_table,
                                           self.relative_position_index, window_size)

    def forward(self, x):
        _, t, h, w, _ = x.shape
        window_size, shift_size = _get_window_and_shift_size(
            self.shift_size.copy(), [t, h, w], self.window_size.copy())
        return shifted_window_attention_3d(
            x, self.qkv.weight, self.proj.weight, self.get_relative_position_bias(window_size),
            window_size, self.num_heads, shift_size=shift_size,
            attention_dropout=self.attention_dropout, dropout=self.dropout,
            qkv_bias=self.qkv.bias, proj_bias=self.proj.bias, training=self.training)


class PatchEmbed3d(nn.Module):
    """Video to patch embedding: pad to whole patches, a strided ``Conv3d``, channels last,
    then ``norm_layer`` (``nn.Identity`` when None).

    Args: patch_size (list[int]), in_channels (default 3), embed_dim (default 96),
    norm_layer (optional)
    """

    def __init__(self, patch_size: list[int], in_channels: int = 3, embed_dim: int = 96,
                 norm_layer: Callable[..., nn.Module] | None = None) -> None:
        super().__init__()
        self.tuple_patch_size = (patch_size[0], patch_size[1], patch_size[2])
        self.proj = nn.Conv3d(in_channels, embed_dim, kernel_size=self.tuple_patch_size,
                              stride=self.tuple_patch_size)
        self.norm = norm_layer(embed_dim) if norm_layer is not None else nn.Identity()

    def forward(self, x):
        _, _, t, h, w = x.size()
        pad = _compute_pad_size_3d((t, h, w), self.tuple_patch_size)
        x = self.proj(F.pad(x, (0, pad[2], 0, pad[1], 0, pad[0])))
        return self.norm(x.permute(0, 2, 3, 4, 1))


class SwinTransformer3d(nn.Module):
    """The Video Swin Transformer ("Video Swin Transformer", arXiv:2106.13230).

    Args:
        patch_size (list[int]), embed_dim (int), depths, num_heads, window_size (list[int])
        mlp_ratio (float): Default 4.0
        dropout, attention_dropout (float): Default 0.0
        stochastic_depth_prob (float): the last block's; linear in the block's index. Default 0.1
        num_classes (int): Default 400
        norm_layer: default ``nn.LayerNorm(eps=1e-5)``.
        block: default ``SwinTransformerBlock`` with ``ShiftedWindowAttention3d``.
        downsample_layer: Default ``PatchMerging``
        patch_embed: Default ``PatchEmbed3d``

    Shape:
        - Input: ``(N, 3, T, H, W)``
        - Output: ``(N, num_classes)``
    """

    def __init__(self, patch_size: list[int], embed_dim: int, depths: list[int],
                 num_heads: list[int], window_size: list[int], mlp_ratio: float = 4.0,
                 dropout: float = 0.0, attention_dropout: float = 0.0,
                 stochastic_depth_prob: float = 0.1, num_classes: int = 400,
                 norm_layer: Callable[..., nn.Module] | None = None,
                 block: Callable[..., nn.Module] | None = None,
                 downsample_layer: Callable[..., nn.Module] = PatchMerging,
                 patch_embed: Callable[..., nn.Module] | None = None) -> None:
        super().__init__()
        self.num_classes = num_classes
        if block is None:
            block = partial(SwinTransformerBlock, attn_layer=ShiftedWindowAttention3d)
        if norm_layer is None:
            norm_layer = partial(nn.LayerNorm, eps=1e-5)
        if patch_embed is None:
            patch_embed = PatchEmbed3d
        self.patch_embed = patch_embed(patch_size=patch_size, embed_dim=embed_dim,
                                       norm_layer=norm_layer)
        self.pos_drop = nn.Dropout(p=dropout)
        layers: list[nn.Module] = []
        total, block_id = sum(depths), 0
        for i_stage, depth in enumerate(depths):
            dim = embed_dim * 2 ** i_stage
            stage = []
            for i_layer in range(depth):
                stage.append(block(
                    dim, num_heads[i_stage], window_size=window_size,
                    shift_size=[0 if i_layer % 2 == 0 else w // 2 for w in window_size],
                    mlp_ratio=mlp_ratio, dropout=dropout, attention_dropout=attention_dropout,
                    stochastic_depth_prob=stochastic_depth_prob * float(block_id) / (total - 1),
                    norm_layer=norm_layer, attn_layer=ShiftedWindowAttention3d))
                block_id += 1
            layers.append(nn.Sequential(*stage))
            if i_stage < len(depths) - 1:
                layers.append(downsample_layer(dim, norm_layer))
        self.features = nn.Sequential(*layers)
        self.num_features = embed_dim * 2 ** (len(depths) - 1)
        self.norm = norm_layer(self.num_features)
        self.avgpool = nn.AdaptiveAvgPool3d(1)
        self.head = nn.Linear(self.num_features, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.trunc_normal_(m.weight, std=0.02)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)

    def forward(self, x):
        x = self.norm(self.features(self.pos_drop(self.patch_embed(x))))
        return self.head(flatten(self.avgpool(x.permute(0, 4, 1, 2, 3)), 1))


Swin3D_T_Weights = _weights_enum(__name__, "Swin3D_T_Weights")
Swin3D_S_Weights = _weights_enum(__name__, "Swin3D_S_Weights")
Swin3D_B_Weights = _weights_enum(__name__, "Swin3D_B_Weights")


def _builder(name, weights_enum, embed_dim, depth3, heads):
    def build(weights, progress, kwargs: dict[str, Any]):
        def model(**kw):  # (a keyword given twice is a TypeError, as in torchvision)
            return SwinTransformer3d(patch_size=[2, 4, 4], embed_dim=embed_dim,
                                     depths=[2, 2, depth3, 2], num_heads=heads,
                                     window_size=[8, 7, 7], stochastic_depth_prob=0.1, **kw)
        return _build(model, weights, progress, kwargs)
    return _model_builder(
        __name__, name, weights_enum, SwinTransformer3d, build,
        f"Constructs a {name} architecture from `Video Swin Transformer "
        "<https://arxiv.org/abs/2106.13230>`_.", legacy_weights="KINETICS400_V1")


swin3d_t = _builder("swin3d_t", Swin3D_T_Weights, 96, 6, [3, 6, 12, 24])
swin3d_s = _builder("swin3d_s", Swin3D_S_Weights, 96, 18, [3, 6, 12, 24])
swin3d_b = _builder("swin3d_b", Swin3D_B_Weights, 128, 18, [4, 8, 16, 32])
