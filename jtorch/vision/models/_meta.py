"""The class names of the published weights, in the order of the models' outputs: the
ImageNet-1K categories (torchvision's ``_IMAGENET_CATEGORIES``, read from
``_imagenet_categories.txt``, one name a line) and the Pascal VOC ones of the segmentation
models (``_VOC_CATEGORIES``)."""

from pathlib import Path

_IMAGENET_CATEGORIES = (Path(__file__).with_name("_imagenet_categories.txt")
                        .read_text(encoding="utf-8").splitlines())

_VOC_CATEGORIES = ["__background__", "aeroplane", "bicycle", "bird", "boat", "bottle", "bus",
                   "car", "cat", "chair", "cow", "diningtable", "dog", "horse", "motorbike",
                   "person", "pottedplant", "sheep", "sofa", "train", "tvmonitor"]
