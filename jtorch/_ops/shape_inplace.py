"""The in-place view ops: ``Tensor.unsqueeze_``, ``squeeze_``, ``t_``, ``transpose_``,
``swapaxes_``, ``swapdims_`` and ``as_strided_`` change a tensor's shape and strides, not its
values; each runs its out-of-place view op and hands the result's metadata to the tensor
(``_core/views.take_view_metadata``), with PyTorch's grad_fn names for the in-place forms."""

from __future__ import annotations

from .._core.views import check_inplace, take_view_metadata
from ._registry import export
from .shape import squeeze, t, transpose, unsqueeze
from .shape_slice import as_strided


@export("unsqueeze_", namespace=None, method=True, opdef_of=unsqueeze)
def unsqueeze_(input, dim):
    check_inplace(input)
    return take_view_metadata(input, lambda: unsqueeze(input, dim), "UnsqueezeBackward1")


@export("squeeze_", namespace=None, method=True, opdef_of=squeeze)
def squeeze_(input, dim=None):
    check_inplace(input)
    name = "SqueezeBackward3" if dim is None else \
        "SqueezeBackward5" if isinstance(dim, (tuple, list)) else "SqueezeBackward4"
    return take_view_metadata(input, lambda: squeeze(input, dim), name)


@export("t_", namespace=None, method=True, opdef_of=t)
def t_(input):
    if input.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is "
                           f"{input.ndim}D")
    check_inplace(input)
    return take_view_metadata(input, lambda: t(input), "TBackward1")


@export(("transpose_", "swapdims_"), namespace=None, method=True, opdef_of=transpose)
def transpose_(input, dim0, dim1):
    check_inplace(input)
    return take_view_metadata(input, lambda: transpose(input, dim0, dim1), "TransposeBackward1")


@export("swapaxes_", namespace=None, method=True, opdef_of=transpose)
def swapaxes_(input, axis0, axis1):
    """``Tensor.swapaxes_``: transpose_ under NumPy's keyword names."""
    return transpose_(input, axis0, axis1)


@export("as_strided_", namespace=None, method=True, opdef_of=as_strided)
def as_strided_(input, size, stride, storage_offset=None):
    check_inplace(input)
    return take_view_metadata(input, lambda: as_strided(input, size, stride, storage_offset),
                              "AsStridedBackward1")
