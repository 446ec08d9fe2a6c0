"""Indexing (basic slicing is a view; tensor indices gather) and __setitem__."""

from __future__ import annotations

from ._registry import op


@op("_getitem_basic", method=False, out=False, is_view=True, saves=False,
    grad_name="SelectBackward0")
def _getitem_basic(input, index):
    return input[index]


def getitem(t, index):
    return _getitem_basic(t, index)


def setitem(t, index, value):
    raise NotImplementedError("jtorch: Tensor.__setitem__ not implemented yet")
