"""The ImageNet-1K class names, in the order of the classifiers' outputs (torchvision's
``_IMAGENET_CATEGORIES``), read from ``_imagenet_categories.txt`` (one name a line)."""

from pathlib import Path

_IMAGENET_CATEGORIES = (Path(__file__).with_name("_imagenet_categories.txt")
                        .read_text(encoding="utf-8").splitlines())
