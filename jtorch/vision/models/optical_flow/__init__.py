"""``torchvision.models.optical_flow``: RAFT (``raft``: ``raft_large``, ``raft_small``, their
weights enums and building blocks) with torchvision's builders, module structure, state_dict
keys and weights; ``_utils`` holds torchvision's ``grid_sample``, ``make_coords_grid`` and
``upsample_flow``."""

from . import _utils as _utils, raft as raft
from .raft import (
    RAFT as RAFT,
    Raft_Large_Weights as Raft_Large_Weights,
    Raft_Small_Weights as Raft_Small_Weights,
    raft_large as raft_large,
    raft_small as raft_small,
)

__all__ = sorted(raft.__all__)
