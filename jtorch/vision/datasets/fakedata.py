"""``FakeData``: random PIL images, the same for the same index.

Differences from torchvision: the pixels and targets come from NumPy's generator seeded with
``index + random_offset`` (torchvision seeds torch's global RNG), so the values differ from
torchvision's; shapes, types and the per-index determinism are the same, and the global RNG
is left alone.
"""

from __future__ import annotations

import numpy as np

from ..transforms import functional as F
from .vision import VisionDataset

__all__ = ["FakeData"]


class FakeData(VisionDataset):
    """``size`` samples of ``(PIL image from N(0, 1) noise of image_size (C, H, W), target)``.

    Args:
        size (int): number of samples. Default 1000
        image_size (tuple): ``(C, H, W)``. Default (3, 224, 224)
        num_classes (int): targets are in ``[0, num_classes)``. Default 10
        transform, target_transform (callable, optional): applied to the image / target.
        random_offset (int): added to the index to seed each sample. Default 0
    """

    def __init__(self, size: int = 1000, image_size=(3, 224, 224), num_classes: int = 10,
                 transform=None, target_transform=None, random_offset: int = 0) -> None:
        super().__init__(transform=transform, target_transform=target_transform)
        self.size = size
        self.num_classes = num_classes
        self.image_size = image_size
        self.random_offset = random_offset

    def __getitem__(self, index: int):
        if index >= len(self):
            raise IndexError(f"{self.__class__.__name__} index out of range")
        rng = np.random.default_rng(index + self.random_offset)
        img = rng.standard_normal(self.image_size, dtype=np.float32)
        target = int(rng.integers(0, self.num_classes))
        return self._transformed(F.to_pil_image(np.ascontiguousarray(np.moveaxis(img, 0, -1))),
                                 target)

    def __len__(self) -> int:
        return self.size
