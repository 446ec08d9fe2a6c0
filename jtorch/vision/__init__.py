"""jtorch.vision: torchvision's API (``import torchvision`` under jtorch's drop-in runner):
``datasets``, ``transforms`` (and ``transforms.v2``), ``models``, ``ops``, ``utils``, ``io``
(image files). See docs/vision.md for what is supported and every difference from
torchvision."""

import sys

from .._core.errors import MissingModule
from . import datasets, io, models, ops, transforms, utils

# torchvision's submodules jtorch does not provide: importable, and any name read from them
# raises NotImplementedError naming the torchvision API
# (its classes are stand-in classes: importable and usable in annotations and isinstance)
tv_tensors = MissingModule("torchvision.tv_tensors", classes=(
    "BoundingBoxFormat", "BoundingBoxes", "Image", "KeyPoints", "Mask", "TVTensor", "Video"))
for _name, _mod in (("tv_tensors", tv_tensors),):
    sys.modules.setdefault(f"{__name__}.{_name}", _mod)

__version__ = "0.28.0"

__all__ = ["datasets", "get_image_backend", "io", "models", "ops", "set_image_backend",
           "transforms", "tv_tensors", "utils"]

_image_backend = "PIL"


def set_image_backend(backend):
    """Selects the image loading backend: only ``"PIL"`` exists in jtorch."""
    if backend not in ["PIL", "accimage"]:
        raise ValueError(f"Invalid backend '{backend}'. Options are 'PIL' and 'accimage'")
    if backend == "accimage":
        raise NotImplementedError("jtorch does not implement torchvision's 'accimage' backend")


def get_image_backend():
    """The image loading backend: ``"PIL"``."""
    return _image_backend
