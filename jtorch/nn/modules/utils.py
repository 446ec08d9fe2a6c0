"""``torch.nn.modules.utils``: the argument helpers layers and user code import from here
(``_pair(3) == (3, 3)``, ``_reverse_repeat_tuple`` for ``F.pad``), and
``consume_prefix_in_state_dict_if_present`` (a DataParallel/DDP checkpoint's ``module.``
prefix stripped in place)."""

from __future__ import annotations

import collections.abc
from itertools import repeat
from typing import Any

__all__ = ["consume_prefix_in_state_dict_if_present"]


def _ntuple(n, name="parse"):
    def parse(x):
        if isinstance(x, collections.abc.Iterable):
            return tuple(x)
        return tuple(repeat(x, n))

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t, n):
    """``t`` reversed, each element repeated ``n`` times: a layer's per-dimension padding as
    ``F.pad`` takes it (last dimension first)."""
    return tuple(x for x in reversed(t) for _ in range(n))


def _list_with_default(out_size, defaults):
    """An adaptive pooling's output size with its ``None`` entries taken from ``defaults`` (the
    input's trailing sizes)."""
    if isinstance(out_size, int):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size):])]


def consume_prefix_in_state_dict_if_present(state_dict: dict[str, Any], prefix: str) -> None:
    """Strip ``prefix`` from the keys of ``state_dict`` (and of its ``_metadata``) in place,
    where present: a DataParallel/DDP model's state dict then loads into a plain model."""
    for key in list(state_dict.keys()):
        if key.startswith(prefix):
            state_dict[key[len(prefix):]] = state_dict.pop(key)
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is not None:
        for key in list(metadata.keys()):
            if key and (key == prefix.replace(".", "") or key.startswith(prefix)):
                metadata[key[len(prefix):]] = metadata.pop(key)
