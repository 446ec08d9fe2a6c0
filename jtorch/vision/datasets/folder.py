"""``DatasetFolder`` and ``ImageFolder``: samples in ``root/<class>/**/<file>``, classes
sorted by folder name (torchvision's ``datasets/folder.py``)."""

from __future__ import annotations

import os

from .vision import VisionDataset

__all__ = ["IMG_EXTENSIONS", "DatasetFolder", "ImageFolder", "default_loader", "find_classes",
           "has_file_allowed_extension", "is_image_file", "make_dataset", "pil_loader"]

IMG_EXTENSIONS = (".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp")


def has_file_allowed_extension(filename: str, extensions) -> bool:
    """Whether ``filename`` ends (case-insensitively) in one of ``extensions``."""
    return filename.lower().endswith(extensions if isinstance(extensions, str)
                                     else tuple(extensions))


def is_image_file(filename: str) -> bool:
    """Whether ``filename`` has an image extension (``IMG_EXTENSIONS``)."""
    return has_file_allowed_extension(filename, IMG_EXTENSIONS)


def find_classes(directory):
    """The sorted class folder names of ``directory`` and their indices."""
    classes = sorted(entry.name for entry in os.scandir(directory) if entry.is_dir())
    if not classes:
        raise FileNotFoundError(f"Couldn't find any class folder in {directory}.")
    return classes, {cls_name: i for i, cls_name in enumerate(classes)}


def make_dataset(directory, class_to_idx=None, extensions=None, is_valid_file=None,
                 allow_empty: bool = False) -> list[tuple[str, int]]:
    """The ``(path, class_index)`` samples under ``directory`` (files sorted per class)."""
    directory = os.path.expanduser(directory)
    if class_to_idx is None:
        _, class_to_idx = find_classes(directory)
    elif not class_to_idx:
        raise ValueError("'class_to_index' must have at least one entry to collect any samples.")
    if (extensions is None) == (is_valid_file is None):
        raise ValueError("Both extensions and is_valid_file cannot be None or not None at the "
                         "same time")
    if extensions is not None:
        def is_valid_file(x: str) -> bool:
            return has_file_allowed_extension(x, extensions)
    instances = []
    available_classes = set()
    for target_class in sorted(class_to_idx.keys()):
        class_index = class_to_idx[target_class]
        target_dir = os.path.join(directory, target_class)
        if not os.path.isdir(target_dir):
            continue
        for root, _, fnames in sorted(os.walk(target_dir, followlinks=True)):
            for fname in sorted(fnames):
                path = os.path.join(root, fname)
                if is_valid_file(path):
                    instances.append((path, class_index))
                    available_classes.add(target_class)
    empty_classes = set(class_to_idx.keys()) - available_classes
    if empty_classes and not allow_empty:
        msg = f"Found no valid file for the classes {', '.join(sorted(empty_classes))}. "
        if extensions is not None:
            msg += ("Supported extensions are: "
                    f"{extensions if isinstance(extensions, str) else ', '.join(extensions)}")
        raise FileNotFoundError(msg)
    return instances


class DatasetFolder(VisionDataset):
    """A generic ``root/<class>/<file>`` dataset: ``(loader(path), class_index)``.

    Args:
        root (str or os.PathLike): the root folder.
        loader (callable): reads one file.
        extensions (tuple[str], optional): the accepted extensions (or ``is_valid_file``).
        transform, target_transform (callable, optional): applied to the sample / target.
        is_valid_file (callable, optional): accepts a path.
        allow_empty (bool): allow classes without files. Default False

    Attributes:
        classes, class_to_idx, samples (list of (path, index)), targets.
    """

    def __init__(self, root, loader, extensions=None, transform=None, target_transform=None,
                 is_valid_file=None, allow_empty: bool = False) -> None:
        super().__init__(root, transform=transform, target_transform=target_transform)
        classes, class_to_idx = self.find_classes(self.root)
        samples = self.make_dataset(self.root, class_to_idx=class_to_idx, extensions=extensions,
                                    is_valid_file=is_valid_file, allow_empty=allow_empty)
        self.loader = loader
        self.extensions = extensions
        self.classes = classes
        self.class_to_idx = class_to_idx
        self.samples = samples
        self.targets = [s[1] for s in samples]

    @staticmethod
    def make_dataset(directory, class_to_idx, extensions=None, is_valid_file=None,
                     allow_empty: bool = False):
        if class_to_idx is None:
            raise ValueError("The class_to_idx parameter cannot be None.")
        return make_dataset(directory, class_to_idx, extensions=extensions,
                            is_valid_file=is_valid_file, allow_empty=allow_empty)

    def find_classes(self, directory):
        return find_classes(directory)

    def __getitem__(self, index: int):
        path, target = self.samples[index]
        return self._transformed(self.loader(path), target)

    def __len__(self) -> int:
        return len(self.samples)

    def _jtorch_fork_safe(self):
        return self.loader in (pil_loader, default_loader) and super()._jtorch_fork_safe()


def pil_loader(path):
    """The image at ``path`` as an RGB PIL image."""
    from PIL import Image  # Pillow is optional: needed to read image files

    with open(path, "rb") as f:
        return Image.open(f).convert("RGB")


def default_loader(path):
    """``pil_loader`` (jtorch has no accimage backend)."""
    return pil_loader(path)


class ImageFolder(DatasetFolder):
    """``root/<class>/<image>`` with PIL RGB images (args as ``DatasetFolder``; ``imgs`` is
    ``samples``)."""

    def __init__(self, root, transform=None, target_transform=None, loader=default_loader,
                 is_valid_file=None, allow_empty: bool = False):
        super().__init__(root, loader, IMG_EXTENSIONS if is_valid_file is None else None,
                         transform=transform, target_transform=target_transform,
                         is_valid_file=is_valid_file, allow_empty=allow_empty)
        self.imgs = self.samples
