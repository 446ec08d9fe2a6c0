"""torch.jit.annotations on jtorch: the typing names TorchScript code imports from it.

Model code writes ``from torch.jit.annotations import List, Tuple, Optional`` (older
torchvision and timm models); these are ``typing``'s own objects, as in PyTorch, and
``BroadcastingList1/2/3[T]`` are PyTorch's annotation markers (subscripting gives None). Its
TorchScript type-parsing helpers (``ann_to_type``, ``get_signature``, the ``*Type`` classes)
raise NotImplementedError naming the PyTorch API: jtorch has no TorchScript.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple, Union  # noqa: UP035 (typing's objects)

from .._core.errors import MissingModule

__all__ = ["Any", "Dict", "List", "Optional", "Tuple", "Union", "BroadcastingList1",
           "BroadcastingList2", "BroadcastingList3"]


class _BroadcastingList:
    """``BroadcastingListN[T]`` in an annotation: a T or a list of N of them (no value)."""

    def __getitem__(self, types):
        return None


BroadcastingList1 = _BroadcastingList()
BroadcastingList2 = _BroadcastingList()
BroadcastingList3 = _BroadcastingList()

# the TorchScript helpers: each raises NotImplementedError naming torch.jit.annotations.<name>
__getattr__ = MissingModule("torch.jit.annotations").__getattr__
