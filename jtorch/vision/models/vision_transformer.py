"""Vision Transformers ViT-B/16, B/32, L/16, L/32, H/14 and ``interpolate_embeddings``
(torchvision's ``models/vision_transformer.py``)."""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable
from functools import partial
from typing import Any, NamedTuple

import jtorch.nn.functional as F
from jtorch import nn

from ..._ops.creation import empty, zeros
from ..._ops.shape_copy import cat
from ..._ops.typeinfo import _assert
from ..ops.misc import MLP, Conv2dNormActivation
from ._api import WeightsEnum
from ._utils import _build, _model_builder, _weights_enum

__all__ = ["VisionTransformer", "ViT_B_16_Weights", "ViT_B_32_Weights", "ViT_L_16_Weights",
           "ViT_L_32_Weights", "ViT_H_14_Weights", "vit_b_16", "vit_b_32", "vit_l_16", "vit_l_32",
           "vit_h_14"]


class ConvStemConfig(NamedTuple):
    out_channels: int
    kernel_size: int
    stride: int
    norm_layer: Callable[..., nn.Module] = nn.BatchNorm2d
    activation_layer: Callable[..., nn.Module] = nn.ReLU


class MLPBlock(MLP):
    """Transformer MLP block: Linear, GELU, Dropout, Linear, Dropout."""

    _version = 2

    def __init__(self, in_dim: int, mlp_dim: int, dropout: float):
        super().__init__(in_dim, [mlp_dim, in_dim], activation_layer=nn.GELU, inplace=None,
                         dropout=dropout)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.xavier_uniform_(m.weight)
                if m.bias is not None:
                    nn.init.normal_(m.bias, std=1e-6)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        version = local_metadata.get("version", None)
        if version is None or version < 2:  # checkpoints from before MLPBlock was an MLP
            for i in range(2):
                for kind in ["weight", "bias"]:
                    old_key = f"{prefix}linear_{i + 1}.{kind}"
                    if old_key in state_dict:
                        state_dict[f"{prefix}{3 * i}.{kind}"] = state_dict.pop(old_key)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)


def _check_3d(input):
    # torch._assert, as torchvision's (symbolic tracing records it: feature extraction)
    _assert(input.dim() == 3, f"Expected (batch_size, seq_length, hidden_dim) got {input.shape}")


class EncoderBlock(nn.Module):
    """Pre-norm transformer encoder block (self-attention, then MLP)."""

    def __init__(self, num_heads: int, hidden_dim: int, mlp_dim: int, dropout: float,
                 attention_dropout: float,
                 norm_layer: Callable[..., nn.Module] = partial(nn.LayerNorm, eps=1e-6)):
        super().__init__()
        self.num_heads = num_heads
        self.ln_1 = norm_layer(hidden_dim)
        self.self_attention = nn.MultiheadAttention(hidden_dim, num_heads,
                                                    dropout=attention_dropout, batch_first=True)
        self.dropout = nn.Dropout(dropout)
        self.ln_2 = norm_layer(hidden_dim)
        self.mlp = MLPBlock(hidden_dim, mlp_dim, dropout)

    def forward(self, input):
        _check_3d(input)
        x = self.ln_1(input)
        x, _ = self.self_attention(x, x, x, need_weights=False)
        x = self.dropout(x) + input
        return x + self.mlp(self.ln_2(x))


class Encoder(nn.Module):
    """Position embedding, dropout, the encoder blocks and a final norm."""

    def __init__(self, seq_length: int, num_layers: int, num_heads: int, hidden_dim: int,
                 mlp_dim: int, dropout: float, attention_dropout: float,
                 norm_layer: Callable[..., nn.Module] = partial(nn.LayerNorm, eps=1e-6)):
        super().__init__()
        self.pos_embedding = nn.Parameter(
            empty(1, seq_length, hidden_dim).normal_(std=0.02))  # from BERT
        self.dropout = nn.Dropout(dropout)
        layers: OrderedDict[str, nn.Module] = OrderedDict()
        for i in range(num_layers):
            layers[f"encoder_layer_{i}"] = EncoderBlock(num_heads, hidden_dim, mlp_dim, dropout,
                                                        attention_dropout, norm_layer)
        self.layers = nn.Sequential(layers)
        self.ln = norm_layer(hidden_dim)

    def forward(self, input):
        _check_3d(input)
        input = input + self.pos_embedding
        return self.ln(self.layers(self.dropout(input)))


class VisionTransformer(nn.Module):
    """Vision Transformer (https://arxiv.org/abs/2010.11929).

    Args:
        image_size (int): the (square) input size; a multiple of ``patch_size``.
        patch_size (int): the patch side.
        num_layers, num_heads, hidden_dim, mlp_dim: the encoder's shape.
        dropout, attention_dropout (float): Default 0.0
        num_classes (int): Default 1000
        representation_size (int, optional): a tanh pre-logits layer of this width.
        norm_layer: default ``LayerNorm(eps=1e-6)``.
        conv_stem_configs (list[ConvStemConfig], optional): a convolutional stem instead of
            the patch projection.

    Shape:
        - Input: ``(N, 3, image_size, image_size)``
        - Output: ``(N, num_classes)``
    """

    def __init__(self, image_size: int, patch_size: int, num_layers: int, num_heads: int,
                 hidden_dim: int, mlp_dim: int, dropout: float = 0.0,
                 attention_dropout: float = 0.0, num_classes: int = 1000,
                 representation_size: int | None = None,
                 norm_layer: Callable[..., nn.Module] = partial(nn.LayerNorm, eps=1e-6),
                 conv_stem_configs: list[ConvStemConfig] | None = None):
        super().__init__()
        if image_size % patch_size != 0:
            raise AssertionError("Input shape indivisible by patch size!")
        self.image_size = image_size
        self.patch_size = patch_size
        self.hidden_dim = hidden_dim
        self.mlp_dim = mlp_dim
        self.attention_dropout = attention_dropout
        self.dropout = dropout
        self.num_classes = num_classes
        self.representation_size = representation_size
        self.norm_layer = norm_layer
        if conv_stem_configs is not None:
            seq_proj = nn.Sequential()
            prev_channels = 3
            for i, cfg in enumerate(conv_stem_configs):
                seq_proj.add_module(f"conv_bn_relu_{i}", Conv2dNormActivation(
                    in_channels=prev_channels, out_channels=cfg.out_channels,
                    kernel_size=cfg.kernel_size, stride=cfg.stride, norm_layer=cfg.norm_layer,
                    activation_layer=cfg.activation_layer))
                prev_channels = cfg.out_channels
            seq_proj.add_module("conv_last", nn.Conv2d(in_channels=prev_channels,
                                                       out_channels=hidden_dim, kernel_size=1))
            self.conv_proj: nn.Module = seq_proj
        else:
            self.conv_proj = nn.Conv2d(in_channels=3, out_channels=hidden_dim,
                                       kernel_size=patch_size, stride=patch_size)
        seq_length = (image_size // patch_size) ** 2
        self.class_token = nn.Parameter(zeros(1, 1, hidden_dim))
        seq_length += 1
        self.encoder = Encoder(seq_length, num_layers, num_heads, hidden_dim, mlp_dim, dropout,
                               attention_dropout, norm_layer)
        self.seq_length = seq_length
        heads_layers: OrderedDict[str, nn.Module] = OrderedDict()
        if representation_size is None:
            heads_layers["head"] = nn.Linear(hidden_dim, num_classes)
        else:
            heads_layers["pre_logits"] = nn.Linear(hidden_dim, representation_size)
            heads_layers["act"] = nn.Tanh()
            heads_layers["head"] = nn.Linear(representation_size, num_classes)
        self.heads = nn.Sequential(heads_layers)
        if isinstance(self.conv_proj, nn.Conv2d):
            k = self.conv_proj.kernel_size
            fan_in = self.conv_proj.in_channels * k[0] * k[1]
            nn.init.trunc_normal_(self.conv_proj.weight, std=math.sqrt(1 / fan_in))
            if self.conv_proj.bias is not None:
                nn.init.zeros_(self.conv_proj.bias)
        elif isinstance(getattr(self.conv_proj, "conv_last", None), nn.Conv2d):
            last = self.conv_proj.conv_last
            nn.init.normal_(last.weight, mean=0.0, std=math.sqrt(2.0 / last.out_channels))
            if last.bias is not None:
                nn.init.zeros_(last.bias)
        if hasattr(self.heads, "pre_logits") and isinstance(self.heads.pre_logits, nn.Linear):
            fan_in = self.heads.pre_logits.in_features
            nn.init.trunc_normal_(self.heads.pre_logits.weight, std=math.sqrt(1 / fan_in))
            nn.init.zeros_(self.heads.pre_logits.bias)
        if isinstance(self.heads.head, nn.Linear):
            nn.init.zeros_(self.heads.head.weight)
            nn.init.zeros_(self.heads.head.bias)

    def _process_input(self, x):
        n, c, h, w = x.shape
        p = self.patch_size
        _assert(h == self.image_size,
                f"Wrong image height! Expected {self.image_size} but got {h}!")
        _assert(w == self.image_size,
                f"Wrong image width! Expected {self.image_size} but got {w}!")
        x = self.conv_proj(x)
        return x.reshape(n, self.hidden_dim, (h // p) * (w // p)).permute(0, 2, 1)

    def forward(self, x):
        x = self._process_input(x)
        batch_class_token = self.class_token.expand(x.shape[0], -1, -1)
        x = self.encoder(cat([batch_class_token, x], dim=1))
        return self.heads(x[:, 0])


def _vision_transformer(patch_size: int, num_layers: int, num_heads: int, hidden_dim: int,
                        mlp_dim: int, weights: WeightsEnum | None, progress: bool,
                        kwargs: dict[str, Any]) -> VisionTransformer:
    def make(image_size=224, **kw):
        return VisionTransformer(image_size=image_size, patch_size=patch_size,
                                 num_layers=num_layers, num_heads=num_heads,
                                 hidden_dim=hidden_dim, mlp_dim=mlp_dim, **kw)

    return _build(make, weights, progress, kwargs, image_size=lambda meta: meta["min_size"][0])


ViT_B_16_Weights = _weights_enum(__name__, "ViT_B_16_Weights")
ViT_B_32_Weights = _weights_enum(__name__, "ViT_B_32_Weights")
ViT_L_16_Weights = _weights_enum(__name__, "ViT_L_16_Weights")
ViT_L_32_Weights = _weights_enum(__name__, "ViT_L_32_Weights")
ViT_H_14_Weights = _weights_enum(__name__, "ViT_H_14_Weights")


def _builder(name, weights_enum, shape, legacy_weights="IMAGENET1K_V1"):
    """``shape``: (patch_size, num_layers, num_heads, hidden_dim, mlp_dim)."""
    label = f"ViT-{name[4].upper()}/{name[6:]}"
    return _model_builder(
        __name__, name, weights_enum, VisionTransformer, partial(_vision_transformer, *shape),
        f"{label} from `An Image is Worth 16x16 Words`.", " (``image_size`` defaults to 224)",
        legacy_weights=legacy_weights)


vit_b_16 = _builder("vit_b_16", ViT_B_16_Weights, (16, 12, 12, 768, 3072))
vit_b_32 = _builder("vit_b_32", ViT_B_32_Weights, (32, 12, 12, 768, 3072))
vit_l_16 = _builder("vit_l_16", ViT_L_16_Weights, (16, 24, 16, 1024, 4096))
vit_l_32 = _builder("vit_l_32", ViT_L_32_Weights, (32, 24, 16, 1024, 4096))
vit_h_14 = _builder("vit_h_14", ViT_H_14_Weights, (14, 32, 16, 1280, 5120), legacy_weights=None)


def interpolate_embeddings(image_size: int, patch_size: int, model_state,
                           interpolation_mode: str = "bicubic", reset_heads: bool = False):
    """A state dict's position embeddings resized (``interpolation_mode``, corners aligned)
    for ``image_size`` and ``patch_size``, to load a pre-trained model at another resolution.

    Args:
        image_size (int): the new model's image size.
        patch_size (int): the new model's patch size.
        model_state (OrderedDict[str, Tensor]): the pre-trained model's state dict (its
            ``encoder.pos_embedding`` is replaced).
        interpolation_mode (str): Default ``"bicubic"``
        reset_heads (bool): leave out the ``heads`` entries (when the embedding changes).
            Default False

    Returns:
        OrderedDict[str, Tensor]: the state dict to load into the new model.
    """
    pos_embedding = model_state["encoder.pos_embedding"]
    n, seq_length, hidden_dim = pos_embedding.shape
    if n != 1:
        raise ValueError(f"Unexpected position embedding shape: {pos_embedding.shape}")
    new_seq_length = (image_size // patch_size) ** 2 + 1
    if new_seq_length != seq_length:
        seq_length -= 1
        new_seq_length -= 1
        token, img = pos_embedding[:, :1, :], pos_embedding[:, 1:, :].permute(0, 2, 1)
        side = int(math.sqrt(seq_length))
        if side * side != seq_length:
            raise ValueError("seq_length is not a perfect square! Instead got seq_length_1d * "
                             f"seq_length_1d = {side * side} and seq_length = {seq_length}")
        img = F.interpolate(img.reshape(1, hidden_dim, side, side),
                            size=image_size // patch_size, mode=interpolation_mode,
                            align_corners=True)
        img = img.reshape(1, hidden_dim, new_seq_length).permute(0, 2, 1)
        model_state["encoder.pos_embedding"] = cat([token, img], dim=1)
        if reset_heads:
            model_state = OrderedDict((k, v) for k, v in model_state.items()
                                      if not k.startswith("heads"))
    return model_state
