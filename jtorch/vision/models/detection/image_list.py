"""``ImageList``: a batch of images padded to one size, with their sizes before padding
(torchvision's ``models/detection/image_list.py``)."""

from __future__ import annotations


class ImageList:
    """Images of different sizes held as one padded tensor.

    Args:
        tensors (Tensor): the padded batch ``(N, C, H, W)``.
        image_sizes (list[tuple[int, int]]): each image's ``(height, width)`` before padding.
    """

    def __init__(self, tensors, image_sizes) -> None:
        self.tensors = tensors
        self.image_sizes = image_sizes

    def to(self, device) -> ImageList:
        return ImageList(self.tensors.to(device), self.image_sizes)
