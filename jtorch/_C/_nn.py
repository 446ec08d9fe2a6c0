"""``torch._C._nn``: ``_parse_to``, the argument parser of ``Tensor.to``/``Module.to``."""

from __future__ import annotations

from .._ops.convert import parse_to_values


def _parse_to(*args, **kwargs):
    """``(device, dtype, non_blocking, memory_format)`` of ``to(...)``'s arguments, each None
    (``non_blocking`` False) when not given; a ``copy`` argument is refused, as PyTorch's."""
    dtype, device, vals = parse_to_values(args, kwargs)
    if "copy" in vals:
        raise RuntimeError(".to() does not accept copy argument")
    return device, dtype, vals.get("non_blocking", False), vals.get("memory_format")
