"""torch._dynamo._trace_wrapped_higher_order_op: ``TransformGetItemToIndex``, which makes
``t[i]`` with an integer 0-d tensor ``i`` index with the tensor instead of ``i.item()`` inside
``vmap``ped mask functions (flex attention, transformers' masks)."""

from __future__ import annotations

import contextlib

__all__ = ["TransformGetItemToIndex"]


class TransformGetItemToIndex(contextlib.AbstractContextManager):
    """Nothing to switch: jtorch's ``t[i]`` with a 0-d integer tensor already indexes with the
    tensor (a gather that works under ``vmap`` and tracing), never with ``i.item()``."""

    def __exit__(self, *exc):
        return None
