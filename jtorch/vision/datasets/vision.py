"""``VisionDataset`` and ``StandardTransform``: the base of torchvision's datasets (root,
transform/target_transform, torchvision's repr)."""

from __future__ import annotations

import os

from ...utils.data import _worker as worker
from ...utils.data.dataset import Dataset

__all__ = ["StandardTransform", "VisionDataset"]


def _apply_transforms(transform, target_transform, sample, target):
    """``(transform(sample), target_transform(target))``, each only when it is set."""
    if transform is not None:
        sample = transform(sample)
    if target_transform is not None:
        target = target_transform(target)
    return sample, target


class VisionDataset(Dataset):
    """Base class of the vision datasets.

    Args:
        root (str or os.PathLike, optional): the dataset's folder (``~`` expanded).
        transforms (callable, optional): applied to ``(input, target)``.
        transform (callable, optional): applied to the input.
        target_transform (callable, optional): applied to the target.
    """

    _repr_indent = 4

    def __init__(self, root=None, transforms=None, transform=None, target_transform=None):
        if isinstance(root, str):
            root = os.path.expanduser(root)
        self.root = root
        has_transforms = transforms is not None
        has_separate_transform = transform is not None or target_transform is not None
        if has_transforms and has_separate_transform:
            raise ValueError("Only transforms or transform/target_transform can be passed as "
                             "argument")
        self.transform = transform
        self.target_transform = target_transform
        if has_separate_transform:
            transforms = StandardTransform(transform, target_transform)
        self.transforms = transforms

    def __getitem__(self, index):
        raise NotImplementedError

    def _transformed(self, sample, target):
        """``(transform(sample), target_transform(target))``, each when set."""
        return _apply_transforms(self.transform, self.target_transform, sample, target)

    def __len__(self) -> int:
        raise NotImplementedError

    def _jtorch_fork_safe(self):
        """jtorch's datasets read files with NumPy/Pillow: fork-safe when the transforms are."""
        return all(t is None or worker.fork_safe(t) for t in (self.transform, self.target_transform,
                                                         self._extra_transforms()))

    def _extra_transforms(self):
        t = self.transforms
        return None if t is None or isinstance(t, StandardTransform) else t

    def __repr__(self) -> str:
        head = "Dataset " + self.__class__.__name__
        body = [f"Number of datapoints: {self.__len__()}"]
        if self.root is not None:
            body.append(f"Root location: {self.root}")
        body += self.extra_repr().splitlines()
        if getattr(self, "transforms", None) is not None:
            body += [repr(self.transforms)]
        return "\n".join([head] + [" " * self._repr_indent + line for line in body])

    def _format_transform_repr(self, transform, head: str) -> list[str]:
        lines = transform.__repr__().splitlines()
        return [f"{head}{lines[0]}"] + [" " * len(head) + line for line in lines[1:]]

    def extra_repr(self) -> str:
        return ""


class StandardTransform:
    """Applies ``transform`` to the input and ``target_transform`` to the target."""

    def __init__(self, transform=None, target_transform=None) -> None:
        self.transform = transform
        self.target_transform = target_transform

    def __call__(self, input, target):
        return _apply_transforms(self.transform, self.target_transform, input, target)

    def _format_transform_repr(self, transform, head: str) -> list[str]:
        lines = transform.__repr__().splitlines()
        return [f"{head}{lines[0]}"] + [" " * len(head) + line for line in lines[1:]]

    def __repr__(self) -> str:
        body = [self.__class__.__name__]
        if self.transform is not None:
            body += self._format_transform_repr(self.transform, "Transform: ")
        if self.target_transform is not None:
            body += self._format_transform_repr(self.target_transform, "Target transform: ")
        return "\n".join(body)
