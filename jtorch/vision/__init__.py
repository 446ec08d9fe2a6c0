"""jtorch.vision: MNIST-style datasets and transforms (torchvision's names).

``from jtorch.vision import datasets, transforms`` stands in for
``from torchvision import datasets, transforms``; see docs/data.md for the differences.
"""

from . import datasets, transforms  # noqa: F401
