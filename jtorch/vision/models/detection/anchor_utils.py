"""``AnchorGenerator``: the anchors of the two-stage detectors, for each feature map and
image (torchvision's ``models/detection/anchor_utils.py``). SSD's ``DefaultBoxGenerator`` is
a stand-in (SSD is not implemented)."""

from __future__ import annotations

from jtorch import nn

from ...._core.device import device as torch_device
from ...._core.dtypes import float32, int32, int64
from ...._ops.creation import as_tensor, empty
from ...._ops.creation_math import arange
from ...._ops.pointwise_math import sqrt
from ...._ops.shape_copy import cat, meshgrid, stack
from ...._ops.typeinfo import _assert
from .._stand_ins import _stand_in

DefaultBoxGenerator = _stand_in("torchvision.models.detection.anchor_utils.DefaultBoxGenerator")


class AnchorGenerator(nn.Module):
    """Anchors of ``len(sizes[i]) * len(aspect_ratios[i])`` shapes at each position of
    feature map ``i`` (aspect ratio = height / width), centered on the positions' strides.

    Args:
        sizes (tuple[tuple[int]]): the anchor sizes of each feature map.
        aspect_ratios (tuple[tuple[float]]): the aspect ratios of each feature map.
    """

    def __init__(self, sizes=((128, 256, 512),), aspect_ratios=((0.5, 1.0, 2.0),)):
        super().__init__()
        if not isinstance(sizes[0], (list, tuple)):
            sizes = tuple((s,) for s in sizes)
        if not isinstance(aspect_ratios[0], (list, tuple)):
            aspect_ratios = (aspect_ratios,) * len(sizes)
        self.sizes = sizes
        self.aspect_ratios = aspect_ratios
        self.cell_anchors = [self.generate_anchors(size, ratio)
                             for size, ratio in zip(sizes, aspect_ratios)]

    def generate_anchors(self, scales, aspect_ratios, dtype=float32,
                         device=torch_device("cpu")):
        """The ``(len(aspect_ratios) * len(scales), 4)`` zero-centered anchors, rounded."""
        scales = as_tensor(scales, dtype=dtype, device=device)
        aspect_ratios = as_tensor(aspect_ratios, dtype=dtype, device=device)
        h_ratios = sqrt(aspect_ratios)
        w_ratios = 1 / h_ratios
        ws = (w_ratios[:, None] * scales[None, :]).view(-1)
        hs = (h_ratios[:, None] * scales[None, :]).view(-1)
        return (stack([-ws, -hs, ws, hs], dim=1) / 2).round()

    def set_cell_anchors(self, dtype, device):
        self.cell_anchors = [a.to(dtype=dtype, device=device) for a in self.cell_anchors]

    def num_anchors_per_location(self) -> list[int]:
        return [len(s) * len(a) for s, a in zip(self.sizes, self.aspect_ratios)]

    def grid_anchors(self, grid_sizes, strides):
        """The anchors of every feature map: its cell anchors shifted to each position."""
        _assert(
            len(grid_sizes) == len(strides) == len(self.cell_anchors),
            "Anchors should be Tuple[Tuple[int]] because each feature map could potentially "
            "have different sizes and aspect ratios. There needs to be a match between the "
            "number of feature maps passed and the number of sizes / aspect ratios specified.")
        anchors = []
        for (grid_h, grid_w), (stride_h, stride_w), base in zip(grid_sizes, strides,
                                                                 self.cell_anchors):
            device = base.device
            shifts_x = arange(0, grid_w, dtype=int32, device=device) * stride_w
            shifts_y = arange(0, grid_h, dtype=int32, device=device) * stride_h
            shift_y, shift_x = meshgrid(shifts_y, shifts_x, indexing="ij")
            shift_x, shift_y = shift_x.reshape(-1), shift_y.reshape(-1)
            shifts = stack((shift_x, shift_y, shift_x, shift_y), dim=1)
            anchors.append((shifts.view(-1, 1, 4) + base.view(1, -1, 4)).reshape(-1, 4))
        return anchors

    def forward(self, image_list, feature_maps):
        grid_sizes = [fm.shape[-2:] for fm in feature_maps]
        image_size = image_list.tensors.shape[-2:]
        dtype, device = feature_maps[0].dtype, feature_maps[0].device
        strides = [[empty((), dtype=int64, device=device).fill_(image // grid)
                    for image, grid in zip(image_size, g)] for g in grid_sizes]
        self.set_cell_anchors(dtype, device)
        per_map = self.grid_anchors(grid_sizes, strides)
        return [cat(list(per_map)) for _ in range(len(image_list.image_sizes))]
