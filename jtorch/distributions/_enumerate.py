"""``enumerate_support``'s layout: the support's values along a new leading dimension, then
one singleton (or, expanded, full) dimension per batch dimension."""

from __future__ import annotations


def along_batch(values, batch_shape, expand):
    """``values`` (shape ``(n, *event)``) arranged as ``(n, *batch_shape, *event)``,
    expanded over the batch or with size-1 batch dimensions."""
    n, event = values.shape[0], tuple(values.shape[1:])
    values = values.reshape(n, *([1] * len(batch_shape)), *event)
    if expand:
        values = values.expand(n, *batch_shape, *event)
    return values
