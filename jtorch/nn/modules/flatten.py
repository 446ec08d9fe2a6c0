"""Flatten and Unflatten (``torch.nn.modules.flatten``)."""

from __future__ import annotations

from ..._ops.shape import flatten
from ._generated import functional_module
from .module import Module

__all__ = ["Flatten", "Unflatten"]


@functional_module(flatten, "start_dim=1, end_dim=-1")
class Flatten(Module):
    """Flattens dims ``start_dim..end_dim`` into one (a view where possible)."""


class Unflatten(Module):
    """Expands dim ``dim`` into ``unflattened_size``. Named-tensor forms (a str ``dim``) are
    not supported: jtorch has no named tensors."""

    __constants__ = ["dim", "unflattened_size"]

    def __init__(self, dim, unflattened_size):
        super().__init__()
        if isinstance(dim, str):
            raise NotImplementedError("jtorch does not implement torch.nn.Unflatten with named "
                                      "dims yet")
        self._require_tuple_int(unflattened_size)
        self.dim = dim
        self.unflattened_size = unflattened_size

    def _require_tuple_int(self, input):
        if isinstance(input, (tuple, list)):
            for idx, elem in enumerate(input):
                if not isinstance(elem, int):
                    raise TypeError("unflattened_size must be tuple of ints, but found element "
                                    f"of type {type(elem).__name__} at pos {idx}")
            return
        raise TypeError("unflattened_size must be a tuple of ints, but found type "
                        f"{type(input).__name__}")

    def forward(self, input):
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
