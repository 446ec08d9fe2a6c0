"""torch.fx.passes.shape_prop: ``ShapeProp`` runs a GraphModule on example inputs and records
each node's tensor metadata (``node.meta['tensor_meta']``: shape, dtype, requires_grad,
stride, memory_format: contiguous_format or None; a structure of them for nodes returning
several tensors) and ``node.meta['type']``."""

from __future__ import annotations

from typing import Any, NamedTuple

from ..._core.layout import contiguous_format
from ..._tensor import Tensor
from ...types import Size
from ..interpreter import Interpreter
from ..node import map_aggregate

__all__ = ["ShapeProp", "TensorMetadata"]

class TensorMetadata(NamedTuple):
    """What ShapeProp records of a tensor."""
    shape: Size
    dtype: Any
    requires_grad: bool
    stride: tuple
    memory_format: Any
    is_quantized: bool
    qparams: dict


def _extract_tensor_metadata(result):
    fmt = contiguous_format if result.is_contiguous() else None
    return TensorMetadata(result.shape, result.dtype, result.requires_grad, result.stride(),
                          fmt, False, {})


class ShapeProp(Interpreter):
    """``torch.fx.passes.shape_prop.ShapeProp``: ``propagate(*args)`` runs the module and
    annotates every node that produced tensors."""

    def run_node(self, n):
        result = super().run_node(n)
        found = []

        def extract(obj):
            if isinstance(obj, Tensor):
                found.append(obj)
                return _extract_tensor_metadata(obj)
            return obj
        meta = map_aggregate(result, extract)
        if found:
            n.meta["tensor_meta"] = meta
        n.meta["type"] = type(result)
        return result

    def propagate(self, *args):
        return super().run(*args)
