"""RAFT (torchvision's ``models/optical_flow/raft.py``: same modules, state_dict keys,
initialization and weights enums). Both images go through a feature encoder (downsampling by
8); a correlation pyramid of all pairs of their feature vectors is built once; from the
context encoder's output of ``image1`` (split into the initial hidden state and the context),
a recurrent update block refines the flow ``num_flow_updates`` times, reading the pyramid
around the current flow's targets, and each estimate is upsampled to full resolution."""

from __future__ import annotations

from typing import Any

import jtorch.nn.functional as F
from jtorch import nn

from ...._ops.creation import tensor
from ...._ops.creation_math import linspace
from ...._ops.linalg import matmul
from ...._ops.shape_copy import cat, meshgrid, stack
from ...._ops.shape_slice import chunk, split
from ...ops.misc import Conv2dNormActivation
from .._utils import _model_builder, _weights_enum
from ._utils import grid_sample, make_coords_grid, upsample_flow

__all__ = ("RAFT", "raft_large", "raft_small", "Raft_Large_Weights", "Raft_Small_Weights")


def _conv_norm_relu(in_channels, out_channels, norm_layer, kernel_size, stride=1, relu=True):
    return Conv2dNormActivation(in_channels, out_channels, norm_layer=norm_layer,
                                kernel_size=kernel_size, stride=stride, bias=True,
                                activation_layer=nn.ReLU if relu else None)


class ResidualBlock(nn.Module):
    """Two 3x3 conv-norm-ReLUs (the first with ``stride``) plus the input (projected by a 1x1
    conv-norm when strided or ``always_project``), then ReLU; the convolutions have biases."""

    def __init__(self, in_channels, out_channels, *, norm_layer, stride=1,
                 always_project: bool = False):
        super().__init__()
        self.convnormrelu1 = _conv_norm_relu(in_channels, out_channels, norm_layer, 3, stride)
        self.convnormrelu2 = _conv_norm_relu(out_channels, out_channels, norm_layer, 3)
        self.downsample: nn.Module
        if stride == 1 and not always_project:
            self.downsample = nn.Identity()
        else:
            self.downsample = _conv_norm_relu(in_channels, out_channels, norm_layer, 1, stride,
                                              relu=False)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        y = self.convnormrelu2(self.convnormrelu1(x))
        return self.relu(self.downsample(x) + y)


class BottleneckBlock(nn.Module):
    """1x1, 3x3 (with ``stride``) and 1x1 conv-norm-ReLUs through ``out_channels // 4``
    channels, plus the input (projected when strided), then ReLU."""

    def __init__(self, in_channels, out_channels, *, norm_layer, stride=1):
        super().__init__()
        mid = out_channels // 4
        self.convnormrelu1 = _conv_norm_relu(in_channels, mid, norm_layer, 1)
        self.convnormrelu2 = _conv_norm_relu(mid, mid, norm_layer, 3, stride)
        self.convnormrelu3 = _conv_norm_relu(mid, out_channels, norm_layer, 1)
        self.relu = nn.ReLU(inplace=True)
        if stride == 1:
            self.downsample = nn.Identity()
        else:
            self.downsample = _conv_norm_relu(in_channels, out_channels, norm_layer, 1, stride,
                                              relu=False)

    def forward(self, x):
        y = self.convnormrelu3(self.convnormrelu2(self.convnormrelu1(x)))
        return self.relu(self.downsample(x) + y)


class FeatureEncoder(nn.Module):
    """The feature (and context) encoder: a 7x7 conv-norm-ReLU, three stages of two ``block``s
    and a 1x1 conv; ``layers`` are the 5 widths, ``strides`` the stem's and stages' strides (it
    must downsample by 8)."""

    def __init__(self, *, block=ResidualBlock, layers=(64, 64, 96, 128, 256),
                 strides=(2, 1, 2, 2), norm_layer=nn.BatchNorm2d):
        super().__init__()
        if len(layers) != 5:
            raise ValueError(f"The expected number of layers is 5, instead got {len(layers)}")
        self.convnormrelu = _conv_norm_relu(3, layers[0], norm_layer, 7, strides[0])
        for i in range(3):
            block1 = block(layers[i], layers[i + 1], norm_layer=norm_layer, stride=strides[i + 1])
            block2 = block(layers[i + 1], layers[i + 1], norm_layer=norm_layer, stride=1)
            setattr(self, f"layer{i + 1}", nn.Sequential(block1, block2))
        self.conv = nn.Conv2d(layers[3], layers[4], kernel_size=1)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, (nn.BatchNorm2d, nn.InstanceNorm2d)):
                if m.weight is not None:
                    nn.init.constant_(m.weight, 1)
                if m.bias is not None:
                    nn.init.constant_(m.bias, 0)
        self.output_dim = layers[-1]
        self.downsample_factor = 2 ** sum(1 for s in strides if s == 2)

    def forward(self, x):
        x = self.convnormrelu(x)
        return self.conv(self.layer3(self.layer2(self.layer1(x))))


class MotionEncoder(nn.Module):
    """Encodes the correlation features (1 or 2 convs of ``corr_layers``) and the flow (two
    convs of ``flow_layers``) into ``out_channels - 2`` channels, then appends the flow."""

    def __init__(self, *, in_channels_corr, corr_layers=(256, 192), flow_layers=(128, 64),
                 out_channels=128):
        super().__init__()
        if len(flow_layers) != 2:
            raise ValueError(
                f"The expected number of flow_layers is 2, instead got {len(flow_layers)}")
        if len(corr_layers) not in (1, 2):
            raise ValueError(
                f"The number of corr_layers should be 1 or 2, instead got {len(corr_layers)}")
        self.convcorr1 = Conv2dNormActivation(in_channels_corr, corr_layers[0], norm_layer=None,
                                              kernel_size=1)
        if len(corr_layers) == 2:
            self.convcorr2 = Conv2dNormActivation(corr_layers[0], corr_layers[1],
                                                  norm_layer=None, kernel_size=3)
        else:
            self.convcorr2 = nn.Identity()
        self.convflow1 = Conv2dNormActivation(2, flow_layers[0], norm_layer=None, kernel_size=7)
        self.convflow2 = Conv2dNormActivation(flow_layers[0], flow_layers[1], norm_layer=None,
                                              kernel_size=3)
        self.conv = Conv2dNormActivation(corr_layers[-1] + flow_layers[-1], out_channels - 2,
                                         norm_layer=None, kernel_size=3)
        self.out_channels = out_channels

    def forward(self, flow, corr_features):
        corr = self.convcorr2(self.convcorr1(corr_features))
        flow_features = self.convflow2(self.convflow1(flow))
        return cat([self.conv(cat([corr, flow_features], dim=1)), flow], dim=1)


class ConvGRU(nn.Module):
    """A convolutional GRU cell: gates ``z``, ``r`` and candidate ``q`` from convolutions of
    ``[h, x]`` (``[r * h, x]`` for ``q``)."""

    def __init__(self, *, input_size, hidden_size, kernel_size, padding):
        super().__init__()
        for name in ("convz", "convr", "convq"):
            setattr(self, name, nn.Conv2d(hidden_size + input_size, hidden_size,
                                          kernel_size=kernel_size, padding=padding))

    def forward(self, h, x):
        hx = cat([h, x], dim=1)
        z = self.convz(hx).sigmoid()
        r = self.convr(hx).sigmoid()
        q = self.convq(cat([r * h, x], dim=1)).tanh()
        return (1 - z) * h + z * q


def _pass_through_h(h, _):
    return h


class RecurrentBlock(nn.Module):
    """One or two ``ConvGRU``s (one per ``kernel_size``/``padding``) updating the hidden state
    from ``x`` (the motion features and the context)."""

    def __init__(self, *, input_size, hidden_size, kernel_size=((1, 5), (5, 1)),
                 padding=((0, 2), (2, 0))):
        super().__init__()
        if len(kernel_size) != len(padding):
            raise ValueError(
                "kernel_size should have the same length as padding, instead got "
                f"len(kernel_size) = {len(kernel_size)} and len(padding) = {len(padding)}")
        if len(kernel_size) not in (1, 2):
            raise ValueError(f"kernel_size should either 1 or 2, instead got {len(kernel_size)}")
        self.convgru1 = ConvGRU(input_size=input_size, hidden_size=hidden_size,
                                kernel_size=kernel_size[0], padding=padding[0])
        if len(kernel_size) == 2:
            self.convgru2 = ConvGRU(input_size=input_size, hidden_size=hidden_size,
                                    kernel_size=kernel_size[1], padding=padding[1])
        else:
            self.convgru2 = _pass_through_h
        self.hidden_size = hidden_size

    def forward(self, h, x):
        return self.convgru2(self.convgru1(h, x), x)


class FlowHead(nn.Module):
    """Two 3x3 convs (ReLU between) from the hidden state to the 2-channel flow update."""

    def __init__(self, *, in_channels, hidden_size):
        super().__init__()
        self.conv1 = nn.Conv2d(in_channels, hidden_size, 3, padding=1)
        self.conv2 = nn.Conv2d(hidden_size, 2, 3, padding=1)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        return self.conv2(self.relu(self.conv1(x)))


class UpdateBlock(nn.Module):
    """Motion encoder, recurrent block and flow head: returns the new hidden state and the
    flow update; ``hidden_state_size`` is the recurrent block's."""

    def __init__(self, *, motion_encoder, recurrent_block, flow_head):
        super().__init__()
        self.motion_encoder = motion_encoder
        self.recurrent_block = recurrent_block
        self.flow_head = flow_head
        self.hidden_state_size = recurrent_block.hidden_size

    def forward(self, hidden_state, context, corr_features, flow):
        x = cat([context, self.motion_encoder(flow, corr_features)], dim=1)
        hidden_state = self.recurrent_block(hidden_state, x)
        return hidden_state, self.flow_head(hidden_state)


class MaskPredictor(nn.Module):
    """The upsampling mask ``(B, 8 * 8 * 9, h, w)`` from the hidden state (conv-ReLU, 1x1
    conv), scaled by ``multiplier``; not used by ``raft_small``."""

    def __init__(self, *, in_channels, hidden_size, multiplier=0.25):
        super().__init__()
        self.convrelu = Conv2dNormActivation(in_channels, hidden_size, norm_layer=None,
                                             kernel_size=3)
        self.conv = nn.Conv2d(hidden_size, 8 * 8 * 9, 1, padding=0)
        self.multiplier = multiplier

    def forward(self, x):
        return self.multiplier * self.conv(self.convrelu(x))


class CorrBlock(nn.Module):
    """The correlation pyramid: ``build_pyramid`` takes the dot products of all pairs of
    feature vectors (over sqrt(channels)), average-pooled ``num_levels - 1`` times over the
    second image's positions; ``index_pyramid`` samples each level bilinearly on the
    ``(2 * radius + 1)**2`` square around each centroid (halved per level)."""

    def __init__(self, *, num_levels: int = 4, radius: int = 4):
        super().__init__()
        self.num_levels = num_levels
        self.radius = radius
        self.corr_pyramid: list = [tensor(0)]
        self.out_channels = num_levels * (2 * radius + 1) ** 2

    def build_pyramid(self, fmap1, fmap2):
        if fmap1.shape != fmap2.shape:
            raise ValueError(
                f"Input feature maps should have the same shape, instead got {fmap1.shape} "
                f"(fmap1.shape) != {fmap2.shape} (fmap2.shape)")
        min_fmap_size = 2 * (2 ** (self.num_levels - 1))
        if any(fmap_size < min_fmap_size for fmap_size in fmap1.shape[-2:]):
            raise ValueError(
                "Feature maps are too small to be down-sampled by the correlation pyramid. "
                f"H and W of feature maps should be at least {min_fmap_size}; got: "
                f"{fmap1.shape[-2:]}. Remember that input images to the model are downsampled "
                "by 8, so that means their dimensions should be at least 8 * "
                f"{min_fmap_size} = {8 * min_fmap_size}.")
        corr_volume = self._compute_corr_volume(fmap1, fmap2)
        batch_size, h, w, num_channels, _, _ = corr_volume.shape
        corr_volume = corr_volume.reshape(batch_size * h * w, num_channels, h, w)
        self.corr_pyramid = [corr_volume]
        for _ in range(self.num_levels - 1):
            corr_volume = F.avg_pool2d(corr_volume, kernel_size=2, stride=2)
            self.corr_pyramid.append(corr_volume)

    def index_pyramid(self, centroids_coords):
        side = 2 * self.radius + 1
        d = linspace(-self.radius, self.radius, side)
        delta = stack(meshgrid(d, d, indexing="ij"), dim=-1).to(centroids_coords.device)
        delta = delta.view(1, side, side, 2)
        batch_size, _, h, w = centroids_coords.shape
        centroids = centroids_coords.permute(0, 2, 3, 1).reshape(batch_size * h * w, 1, 1, 2)
        indexed = []
        for corr_volume in self.corr_pyramid:
            sampled = grid_sample(corr_volume, centroids + delta, align_corners=True,
                                  mode="bilinear")
            indexed.append(sampled.view(batch_size, h, w, -1))
            centroids = centroids / 2
        corr_features = cat(indexed, dim=-1).permute(0, 3, 1, 2).contiguous()
        expected_output_shape = (batch_size, self.out_channels, h, w)
        if corr_features.shape != expected_output_shape:
            raise ValueError("Output shape of index pyramid is incorrect. Should be "
                             f"{expected_output_shape}, got {corr_features.shape}")
        return corr_features

    def _compute_corr_volume(self, fmap1, fmap2):
        batch_size, num_channels, h, w = fmap1.shape
        fmap1 = fmap1.view(batch_size, num_channels, h * w)
        fmap2 = fmap2.view(batch_size, num_channels, h * w)
        corr = matmul(fmap1.transpose(1, 2), fmap2).view(batch_size, h, w, 1, h, w)
        return corr / tensor(num_channels).sqrt()


class RAFT(nn.Module):
    """RAFT from `RAFT: Recurrent All Pairs Field Transforms for Optical Flow
    <https://arxiv.org/abs/2003.12039>`_.

    Args (keyword only): feature_encoder (downsamples ``cat([image1, image2])`` by 8),
    context_encoder (of ``image1``; more output channels than the update block's
    ``hidden_state_size``), corr_block (``build_pyramid``, ``index_pyramid``,
    ``out_channels``), update_block (exposes ``hidden_state_size``), mask_predictor (None:
    bilinear upsampling of the flow).

    ``forward(image1, image2, num_flow_updates=12)``: images ``(B, 3, H, W)``, H and W
    multiples of 8; returns the list of the ``num_flow_updates`` flow estimates
    ``(B, 2, H, W)``, the last the best.
    """

    def __init__(self, *, feature_encoder, context_encoder, corr_block, update_block,
                 mask_predictor=None):
        super().__init__()
        self.feature_encoder = feature_encoder
        self.context_encoder = context_encoder
        self.corr_block = corr_block
        self.update_block = update_block
        self.mask_predictor = mask_predictor
        if not hasattr(self.update_block, "hidden_state_size"):
            raise ValueError(
                "The update_block parameter should expose a 'hidden_state_size' attribute.")

    def forward(self, image1, image2, num_flow_updates: int = 12):
        batch_size, _, h, w = image1.shape
        if (h, w) != image2.shape[-2:]:
            raise ValueError("input images should have the same shape, instead got "
                             f"({h}, {w}) != {image2.shape[-2:]}")
        if not (h % 8 == 0 and w % 8 == 0):
            raise ValueError("input image H and W should be divisible by 8, instead got "
                             f"{h} (h) and {w} (w)")
        fmap1, fmap2 = chunk(self.feature_encoder(cat([image1, image2], dim=0)), chunks=2, dim=0)
        if fmap1.shape[-2:] != (h // 8, w // 8):
            raise ValueError("The feature encoder should downsample H and W by 8")
        self.corr_block.build_pyramid(fmap1, fmap2)
        context_out = self.context_encoder(image1)
        if context_out.shape[-2:] != (h // 8, w // 8):
            raise ValueError("The context encoder should downsample H and W by 8")
        hidden_state_size = self.update_block.hidden_state_size
        out_channels_context = context_out.shape[1] - hidden_state_size
        if out_channels_context <= 0:
            raise ValueError(
                f"The context encoder outputs {context_out.shape[1]} channels, but it should "
                f"have at strictly more than hidden_state={hidden_state_size} channels")
        hidden_state, context = split(context_out, [hidden_state_size, out_channels_context],
                                      dim=1)
        hidden_state, context = hidden_state.tanh(), F.relu(context)
        coords0 = make_coords_grid(batch_size, h // 8, w // 8).to(fmap1.device)
        coords1 = make_coords_grid(batch_size, h // 8, w // 8).to(fmap1.device)
        flow_predictions = []
        for _ in range(num_flow_updates):
            coords1 = coords1.detach()  # no gradient through the sampling positions (paper)
            corr_features = self.corr_block.index_pyramid(centroids_coords=coords1)
            hidden_state, delta_flow = self.update_block(hidden_state, context, corr_features,
                                                         coords1 - coords0)
            coords1 = coords1 + delta_flow
            up_mask = None if self.mask_predictor is None else self.mask_predictor(hidden_state)
            flow_predictions.append(upsample_flow(flow=coords1 - coords0, up_mask=up_mask))
        return flow_predictions


Raft_Large_Weights = _weights_enum(__name__, "Raft_Large_Weights")
Raft_Small_Weights = _weights_enum(__name__, "Raft_Small_Weights")


def _raft(*, weights=None, progress=False,
          feature_encoder_layers, feature_encoder_block, feature_encoder_norm_layer,
          context_encoder_layers, context_encoder_block, context_encoder_norm_layer,
          corr_block_num_levels, corr_block_radius,
          motion_encoder_corr_layers, motion_encoder_flow_layers, motion_encoder_out_channels,
          recurrent_block_hidden_state_size, recurrent_block_kernel_size,
          recurrent_block_padding, flow_head_hidden_size, use_mask_predictor, **kwargs):
    """torchvision's ``_raft``: the sub-modules from the settings (or taken from ``kwargs``:
    ``feature_encoder``, ``context_encoder``, ``corr_block``, ``update_block``,
    ``mask_predictor``), the rest of ``kwargs`` passed to ``RAFT``, then the weights."""
    feature_encoder = kwargs.pop("feature_encoder", None) or FeatureEncoder(
        block=feature_encoder_block, layers=feature_encoder_layers,
        norm_layer=feature_encoder_norm_layer)
    context_encoder = kwargs.pop("context_encoder", None) or FeatureEncoder(
        block=context_encoder_block, layers=context_encoder_layers,
        norm_layer=context_encoder_norm_layer)
    corr_block = kwargs.pop("corr_block", None) or CorrBlock(num_levels=corr_block_num_levels,
                                                             radius=corr_block_radius)
    update_block = kwargs.pop("update_block", None)
    if update_block is None:
        motion_encoder = MotionEncoder(
            in_channels_corr=corr_block.out_channels, corr_layers=motion_encoder_corr_layers,
            flow_layers=motion_encoder_flow_layers, out_channels=motion_encoder_out_channels)
        out_channels_context = context_encoder_layers[-1] - recurrent_block_hidden_state_size
        recurrent_block = RecurrentBlock(
            input_size=motion_encoder.out_channels + out_channels_context,
            hidden_size=recurrent_block_hidden_state_size,
            kernel_size=recurrent_block_kernel_size, padding=recurrent_block_padding)
        flow_head = FlowHead(in_channels=recurrent_block_hidden_state_size,
                             hidden_size=flow_head_hidden_size)
        update_block = UpdateBlock(motion_encoder=motion_encoder,
                                   recurrent_block=recurrent_block, flow_head=flow_head)
    mask_predictor = kwargs.pop("mask_predictor", None)
    if mask_predictor is None and use_mask_predictor:
        mask_predictor = MaskPredictor(in_channels=recurrent_block_hidden_state_size,
                                       hidden_size=256, multiplier=0.25)
    model = RAFT(feature_encoder=feature_encoder, context_encoder=context_encoder,
                 corr_block=corr_block, update_block=update_block,
                 mask_predictor=mask_predictor, **kwargs)
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
    return model


def _build_large(weights, progress, kwargs: dict[str, Any]) -> RAFT:
    return _raft(
        weights=weights, progress=progress,
        feature_encoder_layers=(64, 64, 96, 128, 256), feature_encoder_block=ResidualBlock,
        feature_encoder_norm_layer=nn.InstanceNorm2d,
        context_encoder_layers=(64, 64, 96, 128, 256), context_encoder_block=ResidualBlock,
        context_encoder_norm_layer=nn.BatchNorm2d,
        corr_block_num_levels=4, corr_block_radius=4,
        motion_encoder_corr_layers=(256, 192), motion_encoder_flow_layers=(128, 64),
        motion_encoder_out_channels=128,
        recurrent_block_hidden_state_size=128, recurrent_block_kernel_size=((1, 5), (5, 1)),
        recurrent_block_padding=((0, 2), (2, 0)),
        flow_head_hidden_size=256, use_mask_predictor=True, **kwargs)


def _build_small(weights, progress, kwargs: dict[str, Any]) -> RAFT:
    return _raft(
        weights=weights, progress=progress,
        feature_encoder_layers=(32, 32, 64, 96, 128), feature_encoder_block=BottleneckBlock,
        feature_encoder_norm_layer=nn.InstanceNorm2d,
        context_encoder_layers=(32, 32, 64, 96, 160), context_encoder_block=BottleneckBlock,
        context_encoder_norm_layer=None,
        corr_block_num_levels=4, corr_block_radius=3,
        motion_encoder_corr_layers=(96,), motion_encoder_flow_layers=(64, 32),
        motion_encoder_out_channels=82,
        recurrent_block_hidden_state_size=96, recurrent_block_kernel_size=(3,),
        recurrent_block_padding=(1,),
        flow_head_hidden_size=128, use_mask_predictor=False, **kwargs)


raft_large = _model_builder(
    __name__, "raft_large", Raft_Large_Weights, RAFT, _build_large,
    "RAFT model from `RAFT: Recurrent All Pairs Field Transforms for Optical Flow "
    "<https://arxiv.org/abs/2003.12039>`_.", legacy_weights="C_T_SKHT_V2")
raft_small = _model_builder(
    __name__, "raft_small", Raft_Small_Weights, RAFT, _build_small,
    "RAFT \"small\" model from `RAFT: Recurrent All Pairs Field Transforms for Optical Flow "
    "<https://arxiv.org/abs/2003.12039>`__.", legacy_weights="C_T_V2")
