"""torch.types: the type aliases PyTorch's signatures use (``Number``, ``Device``, ``_size``,
``_dtype``...), for annotations in user code.

jtorch's shapes are Python ints (it has no symbolic ``SymInt``/``SymFloat``/``SymBool``), so
``IntLikeType`` is ``int``, ``FloatLikeType`` is ``float``, ``BoolLikeType`` is ``bool`` and
``py_sym_types`` is empty.
"""

from __future__ import annotations

import builtins
import os
from collections.abc import Sequence
from typing import IO, Any, Union

from ._core.device import device as _device_type
from ._core.dtypes import dtype as _dtype_type
from ._core.layout import layout as _layout_type
from ._core.tensor_base import Size
from ._tensor import Tensor

__all__ = ["BoolLikeType", "Device", "FileLike", "FloatLikeType", "IntLikeType", "Number",
           "PySymType", "Size", "Storage", "Tensor", "py_sym_types"]

_int = builtins.int
_float = builtins.float
_bool = builtins.bool
_complex = builtins.complex
_str = builtins.str
_bytes = builtins.bytes
_dtype = _dtype_type
_device = _device_type
_layout = _layout_type
_size = Union[Size, list[int], tuple[int, ...]]
_symsize = Union[Size, Sequence[int]]
_dispatchkey = str
_TensorOrTensors = Union[Tensor, Sequence[Tensor]]
_TensorOrOptionalTensors = Union[Tensor, Sequence[Union[Tensor, None]]]
_Number = (int, float, bool)

Number = Union[int, float, bool]
Device = Union[_device_type, str, int, None]
IntLikeType = int
FloatLikeType = float
BoolLikeType = bool
py_sym_types: tuple = ()
PySymType = Any
FileLike = Union[str, "os.PathLike[str]", IO[bytes]]


class Storage:
    """A storage, for annotations only (as PyTorch's ``torch.types.Storage``)."""
