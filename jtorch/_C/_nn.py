"""``torch._C._nn``: ``_parse_to``, the argument parser of ``Tensor.to``/``Module.to``, and the
torch.nn.functional functions that are PyTorch's bindings from here (torch.fx names them so in
graphs and generated code: ``torch._C._nn.gelu``)."""

from __future__ import annotations

from .._ops.convert import parse_to_values
from ..nn.functional import (
    avg_pool2d as avg_pool2d,
    avg_pool3d as avg_pool3d,
    elu_ as elu_,
    gelu as gelu,
    leaky_relu_ as leaky_relu_,
    linear as linear,
    one_hot as one_hot,
    scaled_dot_product_attention as scaled_dot_product_attention,
    softplus as softplus,
    softshrink as softshrink,
)


def _parse_to(*args, **kwargs):
    """``(device, dtype, non_blocking, memory_format)`` of ``to(...)``'s arguments, each None
    (``non_blocking`` False) when not given; a ``copy`` argument is refused, as PyTorch's."""
    dtype, device, vals = parse_to_values(args, kwargs)
    if "copy" in vals:
        raise RuntimeError(".to() does not accept copy argument")
    return device, dtype, vals.get("non_blocking", False), vals.get("memory_format")
