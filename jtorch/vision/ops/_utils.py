"""What torchvision's RoI operators share (torchvision's ``ops/_utils.py``): the boxes'
shape check, the ``List[Tensor[L, 4]]`` form turned into ``Tensor[K, 5]`` rois (batch index
first), the rois' checks against the input, and their integer batch indices and grid size
read on the host; and the base of their module forms."""

from __future__ import annotations

import jax

from jtorch import nn

from ..._core.dtypes import legacy_type_name
from ..._core.errors import concretization_error
from ..._ops.creation import full_like
from ..._ops.shape_copy import cat
from ..._tensor import Tensor


def _cat(tensors, dim=0):
    return tensors[0] if len(tensors) == 1 else cat(tensors, dim)


def convert_boxes_to_roi_format(boxes):
    """``[Tensor[L_i, 4]]`` (one per image) as ``Tensor[K, 5]``: each box after its image's
    index."""
    concat_boxes = _cat(list(boxes), dim=0)
    ids = _cat([full_like(b[:, :1], i) for i, b in enumerate(boxes)], dim=0)
    return cat([ids, concat_boxes], dim=1)


def check_roi_boxes_shape(boxes):
    if isinstance(boxes, (list, tuple)):
        for t in boxes:
            assert t.size(1) == 4, \
                "The shape of the tensor in the boxes list is not correct as List[Tensor[L, 4]]"
    elif isinstance(boxes, Tensor):
        assert boxes.size(1) == 5, "The boxes tensor shape is not correct as Tensor[K, 5]"
    else:
        raise AssertionError("boxes is expected to be a Tensor[L, 5] or a List[Tensor[K, 4]]")


def roi_arguments(name, input, boxes, output_size):
    """The ``Tensor[K, 5]`` rois of ``boxes`` in either form (checked against the input, and
    detached: the rois get no gradient) and the ``(height, width)`` output size."""
    check_roi_boxes_shape(boxes)
    rois = boxes if isinstance(boxes, Tensor) else convert_boxes_to_roi_format(boxes)
    check_input_and_rois(name, input, rois)
    pooled = (output_size, output_size) if isinstance(output_size, int) else tuple(output_size)
    return rois.detach(), pooled


def check_input_and_rois(name, input, rois):
    """torchvision's C++ kernels' checks: rois of the input's dtype, a floating one."""
    if input.dtype != rois.dtype:
        raise RuntimeError(
            "Expected tensor for argument #1 'input' to have the same type as tensor for "
            f"argument #2 'rois'; but type {legacy_type_name(input.dtype, input.device)} does "
            f"not equal {legacy_type_name(rois.dtype, rois.device)} (while checking arguments "
            f"for {name}_forward_kernel)")
    if not input.is_floating_point():
        raise NotImplementedError(f'"{name}_forward_kernel" not implemented for '
                                  f"'{input.dtype.scalar_name}'")


def host_int(t, what):
    """A size the kernel's loops take from the rois' values (an adaptive sampling grid, a
    pooling window): read on the host, so not inside a traced function."""
    if isinstance(t._value, jax.core.Tracer):
        raise concretization_error(what)
    return int(t.max()) if t.numel() else 0


class _RoIModule(nn.Module):
    """The module form of a RoI function ``_op``: its arguments after ``input`` and ``rois``
    are the attributes ``_settings``, passed on in order and shown in the repr."""

    _settings = ("output_size", "spatial_scale")

    def __init__(self, output_size, spatial_scale):
        super().__init__()
        self.output_size = output_size
        self.spatial_scale = spatial_scale

    def forward(self, input, rois):
        return self._op(input, rois, *[getattr(self, name) for name in self._settings])

    def __repr__(self):
        settings = ", ".join(f"{name}={getattr(self, name)}" for name in self._settings)
        return f"{self.__class__.__name__}({settings})"
