"""``torchvision.ops.drop_block2d``/``drop_block3d`` and ``DropBlock2d``/``DropBlock3d``
(DropBlock, arXiv:1810.12890): block centres drawn by ``bernoulli_`` on the valid region,
grown to ``block_size`` cubes by a stride-1 max pool, dropped, and the rest rescaled by
``numel / (eps + kept)``; as torchvision computes it."""

from __future__ import annotations

import jtorch.nn.functional as F
from jtorch import nn

from ..._ops.creation import empty

__all__ = ["DropBlock2d", "DropBlock3d", "drop_block2d", "drop_block3d"]


def _drop_block(input, p, block_size, inplace, eps, training, dims):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"drop probability has to be between 0 and 1, but got {p}.")
    if input.ndim != dims + 2:
        raise ValueError(f"input should be {dims + 2} dimensional. Got {input.ndim} dimensions.")
    if not training or p == 0.0:
        return input
    sizes = tuple(input.shape[2:])
    block_size = min(block_size, *sizes)
    if block_size % 2 == 0:
        raise ValueError(f"block size should be odd. Got {block_size} which is even.")
    valid = [s - block_size + 1 for s in sizes]
    numel, centres = 1, 1
    for s, v in zip(sizes, valid):
        numel, centres = numel * s, centres * v
    gamma = (p * numel) / ((block_size ** dims) * centres)
    noise = empty((*input.shape[:2], *valid), dtype=input.dtype, device=input.device)
    noise.bernoulli_(gamma)
    noise = F.pad(noise, [block_size // 2] * (2 * dims), value=0)
    pool = F.max_pool2d if dims == 2 else F.max_pool3d
    noise = 1 - pool(noise, stride=(1,) * dims, kernel_size=(block_size,) * dims,
                     padding=block_size // 2)
    normalize_scale = noise.numel() / (eps + noise.sum())
    if inplace:
        return input.mul_(noise).mul_(normalize_scale)
    return input * noise * normalize_scale


def drop_block2d(input, p, block_size, inplace=False, eps=1e-06, training=True):
    """DropBlock on ``(N, C, H, W)``: square blocks of ``block_size`` dropped with
    probability ``p`` per element."""
    return _drop_block(input, p, block_size, inplace, eps, training, 2)


def drop_block3d(input, p, block_size, inplace=False, eps=1e-06, training=True):
    """DropBlock on ``(N, C, D, H, W)``: cubes of ``block_size``."""
    return _drop_block(input, p, block_size, inplace, eps, training, 3)


class DropBlock2d(nn.Module):
    """See :func:`drop_block2d`."""

    def __init__(self, p, block_size, inplace=False, eps=1e-06):
        super().__init__()
        self.p = p
        self.block_size = block_size
        self.inplace = inplace
        self.eps = eps

    def forward(self, input):
        return drop_block2d(input, self.p, self.block_size, self.inplace, self.eps,
                            self.training)

    def __repr__(self):
        return (f"{self.__class__.__name__}(p={self.p}, block_size={self.block_size}, "
                f"inplace={self.inplace})")


class DropBlock3d(DropBlock2d):
    """See :func:`drop_block3d`."""

    def forward(self, input):
        return drop_block3d(input, self.p, self.block_size, self.inplace, self.eps,
                            self.training)
