"""``torch.nn.utils.memory_format``: put the weights of a model's convolutions in a memory
format (``torch.channels_last`` for 2-d convolutions, ``torch.channels_last_3d`` for 3-d), in
place, with PyTorch's steps (a clone and a resize in that format). jtorch accepts memory formats
and keeps its tensors' layout (XLA chooses the physical layout; docs/differences.md), so the
weights keep their values, strides and Parameter objects."""

from __future__ import annotations

from ..modules.conv import Conv2d, Conv3d, ConvTranspose2d, ConvTranspose3d

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]


def _convert(module, memory_format, layers):
    if isinstance(module, layers):
        weight = module.weight.detach().clone(memory_format=memory_format)
        module.weight.data = weight.resize_(weight.size(), memory_format=memory_format)
    for child in module.children():
        _convert(child, memory_format, layers)
    return module


def convert_conv2d_weight_memory_format(module, memory_format):
    """Every ``Conv2d``/``ConvTranspose2d`` weight in ``module`` to ``memory_format``;
    returns ``module``."""
    return _convert(module, memory_format, (Conv2d, ConvTranspose2d))


def convert_conv3d_weight_memory_format(module, memory_format):
    """Every ``Conv3d``/``ConvTranspose3d`` weight in ``module`` to ``memory_format``;
    returns ``module``."""
    return _convert(module, memory_format, (Conv3d, ConvTranspose3d))
