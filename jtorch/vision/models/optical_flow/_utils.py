"""The RAFT helpers of torchvision's ``models/optical_flow/_utils.py``: ``grid_sample`` in
pixel coordinates, the ``(x, y)`` coordinate grid, and the flow upsampling (bilinear, or the
learned convex combination of each coarse pixel's 3 x 3 neighbours)."""

from __future__ import annotations

import jtorch.nn.functional as F

from ...._core.device import device as _device
from ...._ops.creation_math import arange
from ...._ops.shape_copy import cat, meshgrid, stack


def grid_sample(img, absolute_grid, mode: str = "bilinear", align_corners: bool | None = None):
    """``F.grid_sample`` with ``absolute_grid`` in pixel coordinates ``(x, y)`` (last dim)
    instead of [-1, 1]; ``y`` stays unnormalized when ``img`` has a single row."""
    h, w = img.shape[-2:]
    xgrid, ygrid = absolute_grid.split([1, 1], dim=-1)
    xgrid = 2 * xgrid / (w - 1) - 1
    if h > 1:
        ygrid = 2 * ygrid / (h - 1) - 1
    return F.grid_sample(img, cat([xgrid, ygrid], dim=-1), mode=mode,
                         align_corners=align_corners)


def make_coords_grid(batch_size: int, h: int, w: int, device: str = "cpu"):
    """``(batch_size, 2, h, w)`` float pixel coordinates: channel 0 is x, channel 1 is y."""
    device = _device(device)
    coords = meshgrid(arange(h, device=device), arange(w, device=device), indexing="ij")
    coords = stack(coords[::-1], dim=0).float()
    return coords[None].repeat(batch_size, 1, 1, 1)


def upsample_flow(flow, up_mask=None, factor: int = 8):
    """``flow`` ``(B, C, h, w)`` upsampled ``factor`` times (and its values scaled by
    ``factor``): bilinear (``align_corners=True``) without ``up_mask``, else per fine pixel the
    convex combination (softmax over 9) of the coarse pixel's 3 x 3 neighbours that ``up_mask``
    ``(B, 9 * factor**2, h, w)`` weighs (RAFT paper, appendix B)."""
    batch_size, num_channels, h, w = flow.shape
    new_h, new_w = h * factor, w * factor
    if up_mask is None:
        return factor * F.interpolate(flow, size=(new_h, new_w), mode="bilinear",
                                      align_corners=True)
    # torchvision's 7-d (B, C, 9, factor, factor, h, w) product with the two factor dims and
    # the two h, w dims flattened: the same values (the 7-d form's gradient crashes XLA:CPU's
    # compiler with jtorch's kernel options)
    up_mask = up_mask.view(batch_size, 1, 9, factor * factor, h * w).softmax(dim=2)
    neighbours = F.unfold(factor * flow, kernel_size=3, padding=1).view(
        batch_size, num_channels, 9, 1, h * w)
    upsampled = (up_mask * neighbours).sum(dim=2).view(batch_size, num_channels, factor, factor,
                                                       h, w)
    return upsampled.permute(0, 1, 4, 2, 5, 3).reshape(batch_size, num_channels, new_h, new_w)
