"""MViT V1-B and V2-S (torchvision's ``models/video/mvit.py``: same modules, state_dict keys,
initialization scheme and Kinetics-400 weights). Tokens are ``(B, 1 + T*H*W, C)``: a class
token, then the patches; each block pools queries (and keys/values) with depthwise ``Conv3d``
over the patch grid, whose size ``thw`` travels with the tokens."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

import jtorch.nn.functional as F
from jtorch import nn

from ...._ops.creation import tensor, zeros
from ...._ops.linalg import matmul
from ...._ops.linalg_einsum import einsum
from ...._ops.shape_copy import cat, repeat_interleave
from ...._ops.shape_slice import tensor_split
from ...ops.misc import MLP
from ...ops.stochastic_depth import StochasticDepth
from .._utils import _build, _model_builder, _weights_enum

__all__ = ["MViT", "MViT_V1_B_Weights", "mvit_v1_b", "MViT_V2_S_Weights", "mvit_v2_s"]


@dataclass
class MSBlockConfig:
    """One block's heads, channels in and out, and pooling kernels and strides (``[]``: no
    pooling) of the queries (``q``) and of the keys and values (``kv``), each ``[T, H, W]``."""

    num_heads: int
    input_channels: int
    output_channels: int
    kernel_q: list[int]
    kernel_kv: list[int]
    stride_q: list[int]
    stride_kv: list[int]


def _prod(s: Sequence[int]) -> int:
    return math.prod(s)


def _unsqueeze(x, target_dim: int, expand_dim: int):
    """``x`` with ``target_dim`` dimensions (one inserted at ``expand_dim`` when it has one
    fewer), and its original number of dimensions."""
    tensor_dim = x.dim()
    if tensor_dim == target_dim - 1:
        x = x.unsqueeze(expand_dim)
    elif tensor_dim != target_dim:
        raise ValueError(f"Unsupported input dimension {x.shape}")
    return x, tensor_dim


def _squeeze(x, target_dim: int, expand_dim: int, tensor_dim: int):
    return x.squeeze(expand_dim) if tensor_dim == target_dim - 1 else x


class Pool(nn.Module):
    """Pools the patch tokens of ``(B, heads, N, C)`` (or ``(B, N, C)``) over their ``thw``
    grid with ``pool``, keeping the class token; ``norm`` and ``activation`` (in
    ``norm_act``) follow the pooling (precede it with ``norm_before_pool``)."""

    def __init__(self, pool: nn.Module, norm: nn.Module | None,
                 activation: nn.Module | None = None, norm_before_pool: bool = False) -> None:
        super().__init__()
        self.pool = pool
        layers = [m for m in (norm, activation) if m is not None]
        self.norm_act = nn.Sequential(*layers) if layers else None
        self.norm_before_pool = norm_before_pool

    def forward(self, x, thw: tuple[int, int, int]):
        x, tensor_dim = _unsqueeze(x, 4, 1)
        class_token, x = tensor_split(x, (1,), dim=2)
        x = x.transpose(2, 3)
        b, n, c = x.shape[:3]
        x = x.reshape((b * n, c) + tuple(thw)).contiguous()
        if self.norm_before_pool and self.norm_act is not None:
            x = self.norm_act(x)
        x = self.pool(x)
        t, h, w = x.shape[2:]
        x = cat((class_token, x.reshape(b, n, c, -1).transpose(2, 3)), dim=2)
        if not self.norm_before_pool and self.norm_act is not None:
            x = self.norm_act(x)
        return _squeeze(x, 4, 1, tensor_dim), (t, h, w)


def _interpolate(embedding, d: int):
    """A ``(L, C)`` table linearly resampled to ``d`` rows."""
    if embedding.shape[0] == d:
        return embedding
    return F.interpolate(embedding.permute(1, 0).unsqueeze(0), size=d,
                         mode="linear").squeeze(0).permute(1, 0)


def _rel_index(q: int, k: int):
    """torchvision's ``(q, k)`` offsets between query and key positions (each grid scaled up
    to the finer one), computed in float32 as torch does and truncated to table rows: a
    constant of the sizes (numpy: no kernels to compile, and it traces under ``compile``)."""
    f32 = np.float32
    q_ratio, k_ratio = f32(max(k / q, 1.0)), f32(max(q / k, 1.0))
    dist = (np.arange(q, dtype=f32)[:, None] * q_ratio
            - (np.arange(k, dtype=f32)[None, :] + f32(1.0 - k)) * k_ratio)
    return tensor(dist.astype(np.int64))


def _add_rel_pos(attn, q, q_thw, k_thw, rel_pos_h, rel_pos_w, rel_pos_t):
    """MViTv2's decomposed relative position bias (height, width and time tables, resampled
    where the grids need other sizes) added to the patch-to-patch logits of ``attn``."""
    (q_t, q_h, q_w), (k_t, k_h, k_w) = q_thw, k_thw
    rh = _interpolate(rel_pos_h, 2 * max(q_h, k_h) - 1)[_rel_index(q_h, k_h)]
    rw = _interpolate(rel_pos_w, 2 * max(q_w, k_w) - 1)[_rel_index(q_w, k_w)]
    rt = _interpolate(rel_pos_t, 2 * max(q_t, k_t) - 1)[_rel_index(q_t, k_t)]
    b, heads, _, dim = q.shape
    r_q = q[:, :, 1:].reshape(b, heads, q_t, q_h, q_w, dim)
    rel_h = einsum("bythwc,hkc->bythwk", r_q, rh)
    rel_w = einsum("bythwc,wkc->bythwk", r_q, rw)
    rel_t = einsum("bythwc,tkc->bythwk", r_q, rt)
    rel_pos = (rel_h[:, :, :, :, :, None, :, None] + rel_w[:, :, :, :, :, None, None, :]
               + rel_t[:, :, :, :, :, :, None, None])
    rel_pos = rel_pos.reshape(b, heads, q_t * q_h * q_w, k_t * k_h * k_w)
    return attn + F.pad(rel_pos, (1, 0, 1, 0))  # (torchvision: attn[:, :, 1:, 1:] += ...)


def _add_shortcut(x, shortcut, residual_with_cls_embed: bool):
    if residual_with_cls_embed:
        return x + shortcut
    return x + F.pad(shortcut[:, :, 1:, :], (0, 0, 1, 0))  # not the class token's row


def _pool_conv(head_dim: int, kernel: list[int], stride: list[int], norm_layer) -> Pool:
    """A depthwise ``Conv3d`` pooling (``kernel // 2`` padding) then ``norm_layer``."""
    conv = nn.Conv3d(head_dim, head_dim, kernel, stride=stride,
                     padding=[int(k // 2) for k in kernel], groups=head_dim, bias=False)
    return Pool(conv, norm_layer(head_dim))


class MultiscaleAttention(nn.Module):
    """Multi-head pooling attention: ``qkv`` projects the tokens; ``pool_q`` and
    ``pool_k``/``pool_v`` (where their kernel or stride is larger than one) pool them over the
    patch grid; with ``rel_pos_embed``, MViTv2's relative position tables ``rel_pos_h/w/t``;
    with ``residual_pool`` the pooled queries are added to the output (the class token's too
    with ``residual_with_cls_embed``); then ``project``.

    Args: input_size (``[T, H, W]`` of the patch grid), embed_dim, output_dim, num_heads,
    kernel_q, kernel_kv, stride_q, stride_kv, residual_pool, residual_with_cls_embed,
    rel_pos_embed, dropout (default 0.0), norm_layer (default ``nn.LayerNorm``).
    Forward: ``(x, thw)`` -> ``(x, thw of the queries)``.
    """

    def __init__(self, input_size: list[int], embed_dim: int, output_dim: int, num_heads: int,
                 kernel_q: list[int], kernel_kv: list[int], stride_q: list[int],
                 stride_kv: list[int], residual_pool: bool, residual_with_cls_embed: bool,
                 rel_pos_embed: bool, dropout: float = 0.0,
                 norm_layer: Callable[..., nn.Module] = nn.LayerNorm) -> None:
        super().__init__()
        self.embed_dim = embed_dim
        self.output_dim = output_dim
        self.num_heads = num_heads
        self.head_dim = output_dim // num_heads
        self.scaler = 1.0 / math.sqrt(self.head_dim)
        self.residual_pool = residual_pool
        self.residual_with_cls_embed = residual_with_cls_embed
        self.qkv = nn.Linear(embed_dim, 3 * output_dim)
        layers: list[nn.Module] = [nn.Linear(output_dim, output_dim)]
        if dropout > 0.0:
            layers.append(nn.Dropout(dropout, inplace=True))
        self.project = nn.Sequential(*layers)
        self.pool_q = self.pool_k = self.pool_v = None
        if _prod(kernel_q) > 1 or _prod(stride_q) > 1:
            self.pool_q = _pool_conv(self.head_dim, kernel_q, stride_q, norm_layer)
        if _prod(kernel_kv) > 1 or _prod(stride_kv) > 1:
            self.pool_k = _pool_conv(self.head_dim, kernel_kv, stride_kv, norm_layer)
            self.pool_v = _pool_conv(self.head_dim, kernel_kv, stride_kv, norm_layer)
        self.rel_pos_h = self.rel_pos_w = self.rel_pos_t = None
        if rel_pos_embed:
            size = max(input_size[1:])
            q_size = size // stride_q[1] if len(stride_q) > 0 else size
            kv_size = size // stride_kv[1] if len(stride_kv) > 0 else size
            spatial_dim = 2 * max(q_size, kv_size) - 1
            for name, rows in (("h", spatial_dim), ("w", spatial_dim),
                               ("t", 2 * input_size[0] - 1)):
                setattr(self, f"rel_pos_{name}", nn.Parameter(zeros(rows, self.head_dim)))
            for p in (self.rel_pos_h, self.rel_pos_w, self.rel_pos_t):
                nn.init.trunc_normal_(p, std=0.02)

    def forward(self, x, thw: tuple[int, int, int]):
        b, n, _ = x.shape
        qkv = self.qkv(x).reshape(b, n, 3, self.num_heads, self.head_dim).transpose(1, 3)
        q, k, v = qkv.unbind(dim=2)
        k, k_thw = (k, thw) if self.pool_k is None else self.pool_k(k, thw)
        if self.pool_v is not None:
            v = self.pool_v(v, thw)[0]
        if self.pool_q is not None:
            q, thw = self.pool_q(q, thw)
        attn = matmul(self.scaler * q, k.transpose(2, 3))
        if self.rel_pos_h is not None:
            attn = _add_rel_pos(attn, q, thw, k_thw, self.rel_pos_h, self.rel_pos_w,
                                self.rel_pos_t)
        x = matmul(attn.softmax(dim=-1), v)
        if self.residual_pool:
            x = _add_shortcut(x, q, self.residual_with_cls_embed)
        x = x.transpose(1, 2).reshape(b, -1, self.output_dim)
        return self.project(x), thw


class MultiscaleBlock(nn.Module):
    """A pre-norm transformer block of ``MultiscaleAttention`` and an ``MLP`` (GELU, 4x
    hidden), with stochastic depth; the skip connection is max-pooled where the queries are
    strided, and ``project`` (a ``Linear``, where the channels change) maps it, from the
    normalized tokens before the MLP (``proj_after_attn``: before the attention).

    Args: input_size, cnf (:class:`MSBlockConfig`), residual_pool, residual_with_cls_embed,
    rel_pos_embed, proj_after_attn, dropout (default 0.0), stochastic_depth_prob (default 0.0),
    norm_layer (default ``nn.LayerNorm``; ``nn.BatchNorm1d`` normalizes over the channels).
    """

    def __init__(self, input_size: list[int], cnf: MSBlockConfig, residual_pool: bool,
                 residual_with_cls_embed: bool, rel_pos_embed: bool, proj_after_attn: bool,
                 dropout: float = 0.0, stochastic_depth_prob: float = 0.0,
                 norm_layer: Callable[..., nn.Module] = nn.LayerNorm) -> None:
        super().__init__()
        self.proj_after_attn = proj_after_attn
        self.pool_skip = None
        if _prod(cnf.stride_q) > 1:
            kernel_skip = [s + 1 if s > 1 else s for s in cnf.stride_q]
            self.pool_skip = Pool(nn.MaxPool3d(kernel_skip, stride=cnf.stride_q,
                                               padding=[int(k // 2) for k in kernel_skip]), None)
        attn_dim = cnf.output_channels if proj_after_attn else cnf.input_channels
        self.norm1 = norm_layer(cnf.input_channels)
        self.norm2 = norm_layer(attn_dim)
        self.needs_transposal = isinstance(self.norm1, nn.BatchNorm1d)
        self.attn = MultiscaleAttention(
            input_size, cnf.input_channels, attn_dim, cnf.num_heads, kernel_q=cnf.kernel_q,
            kernel_kv=cnf.kernel_kv, stride_q=cnf.stride_q, stride_kv=cnf.stride_kv,
            rel_pos_embed=rel_pos_embed, residual_pool=residual_pool,
            residual_with_cls_embed=residual_with_cls_embed, dropout=dropout,
            norm_layer=norm_layer)
        self.mlp = MLP(attn_dim, [4 * attn_dim, cnf.output_channels], activation_layer=nn.GELU,
                       dropout=dropout, inplace=None)
        self.stochastic_depth = StochasticDepth(stochastic_depth_prob, "row")
        self.project = None
        if cnf.input_channels != cnf.output_channels:
            self.project = nn.Linear(cnf.input_channels, cnf.output_channels)

    def _norm(self, norm, x):
        return norm(x.transpose(1, 2)).transpose(1, 2) if self.needs_transposal else norm(x)

    def forward(self, x, thw: tuple[int, int, int]):
        x_norm1 = self._norm(self.norm1, x)
        x_attn, thw_new = self.attn(x_norm1, thw)
        if self.project is not None and self.proj_after_attn:
            x = self.project(x_norm1)
        x_skip = x if self.pool_skip is None else self.pool_skip(x, thw)[0]
        x = x_skip + self.stochastic_depth(x_attn)
        x_norm2 = self._norm(self.norm2, x)
        x_proj = x if self.project is None or self.proj_after_attn else self.project(x_norm2)
        return x_proj + self.stochastic_depth(self.mlp(x_norm2)), thw_new


class PositionalEncoding(nn.Module):
    """Prepends the learned ``class_token``; without ``rel_pos_embed``, adds the learned
    absolute position embeddings (``spatial_pos`` per patch of a frame, ``temporal_pos`` per
    frame, ``class_pos``).

    Args: embed_size, spatial_size (``(H, W)`` of the patch grid), temporal_size, rel_pos_embed
    """

    def __init__(self, embed_size: int, spatial_size: tuple[int, int], temporal_size: int,
                 rel_pos_embed: bool) -> None:
        super().__init__()
        self.spatial_size = spatial_size
        self.temporal_size = temporal_size
        self.class_token = nn.Parameter(zeros(embed_size))
        self.spatial_pos = self.temporal_pos = self.class_pos = None
        if not rel_pos_embed:
            self.spatial_pos = nn.Parameter(zeros(spatial_size[0] * spatial_size[1], embed_size))
            self.temporal_pos = nn.Parameter(zeros(temporal_size, embed_size))
            self.class_pos = nn.Parameter(zeros(embed_size))

    def forward(self, x):
        x = cat((self.class_token.expand(x.size(0), -1).unsqueeze(1), x), dim=1)
        if self.spatial_pos is not None:
            hw_size, embed_size = self.spatial_pos.shape
            pos = repeat_interleave(self.temporal_pos, hw_size, dim=0) + self.spatial_pos.unsqueeze(
                0).expand(self.temporal_size, -1, -1).reshape(-1, embed_size)
            x = x + cat((self.class_pos.unsqueeze(0), pos), dim=0).unsqueeze(0)
        return x


class MViT(nn.Module):
    """Multiscale Vision Transformer: a strided ``Conv3d`` patch embedding (``conv_proj``),
    ``PositionalEncoding``, the ``MultiscaleBlock`` of each ``MSBlockConfig``, a final norm
    and a classifier head on the class token.

    Args:
        spatial_size (tuple[int, int]): the input's ``(H, W)``.
        temporal_size (int): the input's ``T``.
        block_setting (sequence of MSBlockConfig): the blocks.
        residual_pool, residual_with_cls_embed, rel_pos_embed, proj_after_attn (bool): the
            MViTv2 options (see :class:`MultiscaleAttention` and :class:`MultiscaleBlock`).
        dropout (float): before the head. Default 0.5
        attention_dropout (float): in the blocks. Default 0.0
        stochastic_depth_prob (float): the last block's; linear in the block index. Default 0.0
        num_classes (int): Default 400
        block (callable, optional): default :class:`MultiscaleBlock`.
        norm_layer (callable, optional): default ``LayerNorm(eps=1e-6)``.
        patch_embed_kernel, patch_embed_stride, patch_embed_padding (tuple[int, int, int]):
            ``conv_proj``'s. Default ``(3, 7, 7)``, ``(2, 4, 4)``, ``(1, 3, 3)``

    Shape:
        - Input: ``(N, 3, T, H, W)`` (or ``(N, 3, H, W)``: one frame) of the given sizes.
        - Output: ``(N, num_classes)``
    """

    def __init__(self, spatial_size: tuple[int, int], temporal_size: int,
                 block_setting: Sequence[MSBlockConfig], residual_pool: bool,
                 residual_with_cls_embed: bool, rel_pos_embed: bool, proj_after_attn: bool,
                 dropout: float = 0.5, attention_dropout: float = 0.0,
                 stochastic_depth_prob: float = 0.0, num_classes: int = 400,
                 block: Callable[..., nn.Module] | None = None,
                 norm_layer: Callable[..., nn.Module] | None = None,
                 patch_embed_kernel: tuple[int, int, int] = (3, 7, 7),
                 patch_embed_stride: tuple[int, int, int] = (2, 4, 4),
                 patch_embed_padding: tuple[int, int, int] = (1, 3, 3)) -> None:
        super().__init__()
        total_stage_blocks = len(block_setting)
        if total_stage_blocks == 0:
            raise ValueError("The configuration parameter can't be empty.")
        block = MultiscaleBlock if block is None else block
        norm_layer = partial(nn.LayerNorm, eps=1e-6) if norm_layer is None else norm_layer
        self.conv_proj = nn.Conv3d(in_channels=3, out_channels=block_setting[0].input_channels,
                                   kernel_size=patch_embed_kernel, stride=patch_embed_stride,
                                   padding=patch_embed_padding)
        input_size = [size // stride for size, stride in
                      zip((temporal_size,) + spatial_size, self.conv_proj.stride)]
        self.pos_encoding = PositionalEncoding(
            embed_size=block_setting[0].input_channels,
            spatial_size=(input_size[1], input_size[2]), temporal_size=input_size[0],
            rel_pos_embed=rel_pos_embed)
        self.blocks = nn.ModuleList()
        for stage_block_id, cnf in enumerate(block_setting):
            sd_prob = stochastic_depth_prob * stage_block_id / (total_stage_blocks - 1.0)
            self.blocks.append(block(
                input_size=input_size, cnf=cnf, residual_pool=residual_pool,
                residual_with_cls_embed=residual_with_cls_embed, rel_pos_embed=rel_pos_embed,
                proj_after_attn=proj_after_attn, dropout=attention_dropout,
                stochastic_depth_prob=sd_prob, norm_layer=norm_layer))
            if len(cnf.stride_q) > 0:
                input_size = [size // stride for size, stride in zip(input_size, cnf.stride_q)]
        self.norm = norm_layer(block_setting[-1].output_channels)
        self.head = nn.Sequential(nn.Dropout(dropout, inplace=True),
                                  nn.Linear(block_setting[-1].output_channels, num_classes))
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.trunc_normal_(m.weight, std=0.02)
                if m.bias is not None:
                    nn.init.constant_(m.bias, 0.0)
            elif isinstance(m, nn.LayerNorm):
                if m.weight is not None:
                    nn.init.constant_(m.weight, 1.0)
                if m.bias is not None:
                    nn.init.constant_(m.bias, 0.0)
            elif isinstance(m, PositionalEncoding):
                for weights in m.parameters():
                    nn.init.trunc_normal_(weights, std=0.02)

    def forward(self, x):
        x = self.conv_proj(_unsqueeze(x, 5, 2)[0])
        x = self.pos_encoding(x.flatten(2).transpose(1, 2))
        thw = (self.pos_encoding.temporal_size,) + self.pos_encoding.spatial_size
        for block in self.blocks:
            x, thw = block(x, thw)
        return self.head(self.norm(x)[:, 0])


def _mvit(block_setting: list[MSBlockConfig], stochastic_depth_prob: float, weights,
          progress: bool, **kwargs: Any) -> MViT:
    if weights is not None:
        assert weights.meta["min_size"][0] == weights.meta["min_size"][1]

    def model(**kw):
        return MViT(spatial_size=kw.pop("spatial_size", (224, 224)),
                    temporal_size=kw.pop("temporal_size", 16), block_setting=block_setting,
                    residual_pool=kw.pop("residual_pool", False),
                    residual_with_cls_embed=kw.pop("residual_with_cls_embed", True),
                    rel_pos_embed=kw.pop("rel_pos_embed", False),
                    proj_after_attn=kw.pop("proj_after_attn", False),
                    stochastic_depth_prob=stochastic_depth_prob, **kw)
    return _build(model, weights, progress, kwargs, spatial_size=lambda m: m["min_size"],
                  temporal_size=lambda m: m["min_temporal_size"])


def _block_setting(v2: bool) -> list[MSBlockConfig]:
    """The 16 blocks of ``mvit_v1_b`` (``v2`` False) or ``mvit_v2_s``: heads 1, 2 x2, 4 x11,
    8 x2; keys and values pooled ``3x3x3`` with strides ``[1, 8, 8]``, ``[1, 4, 4]`` x2,
    ``[1, 2, 2]`` x11, ``[1, 1, 1]`` x2; queries strided ``[1, 2, 2]`` (pooled ``3x3x3``) at
    blocks 1, 3 and 14, elsewhere unpooled (V1: ``[]``) or pooled ``3x3x3`` unstrided (V2)."""
    heads = [1, 2, 2] + [4] * 11 + [8, 8]
    stride_kv = [[1, 8, 8]] + [[1, 4, 4]] * 2 + [[1, 2, 2]] * 11 + [[1, 1, 1]] * 2
    channels = ([96, 96, 192, 192] + [384] * 11 + [768] * 2 if v2 else
                [96, 192, 192, 384] + [384] * 10 + [768] * 3)  # in/out widths
    strided = (1, 3, 14)
    return [MSBlockConfig(
        num_heads=heads[i], input_channels=channels[i], output_channels=channels[i + 1],
        kernel_q=[3, 3, 3] if v2 or i in strided else [], kernel_kv=[3, 3, 3],
        stride_q=[1, 2, 2] if i in strided else [1, 1, 1] if v2 else [],
        stride_kv=list(stride_kv[i])) for i in range(16)]


MViT_V1_B_Weights = _weights_enum(__name__, "MViT_V1_B_Weights")
MViT_V2_S_Weights = _weights_enum(__name__, "MViT_V2_S_Weights")


def _build_v1_b(weights, progress, kwargs: dict[str, Any]) -> MViT:
    return _mvit(spatial_size=(224, 224), temporal_size=16, block_setting=_block_setting(False),
                 residual_pool=False, residual_with_cls_embed=False,
                 stochastic_depth_prob=kwargs.pop("stochastic_depth_prob", 0.2),
                 weights=weights, progress=progress, **kwargs)


def _build_v2_s(weights, progress, kwargs: dict[str, Any]) -> MViT:
    return _mvit(spatial_size=(224, 224), temporal_size=16, block_setting=_block_setting(True),
                 residual_pool=True, residual_with_cls_embed=False, rel_pos_embed=True,
                 proj_after_attn=True,
                 stochastic_depth_prob=kwargs.pop("stochastic_depth_prob", 0.2),
                 weights=weights, progress=progress, **kwargs)


mvit_v1_b = _model_builder(
    __name__, "mvit_v1_b", MViT_V1_B_Weights, MViT, _build_v1_b,
    "Constructs a base MViTV1 architecture from `Multiscale Vision Transformers "
    "<https://arxiv.org/abs/2104.11227>`__.", legacy_weights="KINETICS400_V1")
mvit_v2_s = _model_builder(
    __name__, "mvit_v2_s", MViT_V2_S_Weights, MViT, _build_v2_s,
    "Constructs a small MViTV2 architecture from `Multiscale Vision Transformers "
    "<https://arxiv.org/abs/2104.11227>`__ and `MViTv2: Improved Multiscale Vision "
    "Transformers for Classification and Detection <https://arxiv.org/abs/2112.01526>`__.",
    legacy_weights="KINETICS400_V1")
