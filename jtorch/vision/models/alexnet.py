"""AlexNet (torchvision's ``models/alexnet.py``: the "One weird trick" variant)."""

from __future__ import annotations

from functools import partial

from jtorch import nn

from ..._ops.shape import flatten
from ._utils import _build, _model_builder, _weights_enum

__all__ = ["AlexNet", "AlexNet_Weights", "alexnet"]


class AlexNet(nn.Module):
    """AlexNet.

    Args:
        num_classes (int): classifier outputs. Default 1000
        dropout (float): the classifier's dropout. Default 0.5

    Shape:
        - Input: ``(N, 3, H, W)`` with H, W >= 63
        - Output: ``(N, num_classes)``
    """

    def __init__(self, num_classes: int = 1000, dropout: float = 0.5) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 64, kernel_size=11, stride=4, padding=2), nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2),
            nn.Conv2d(64, 192, kernel_size=5, padding=2), nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2),
            nn.Conv2d(192, 384, kernel_size=3, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(384, 256, kernel_size=3, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(256, 256, kernel_size=3, padding=1), nn.ReLU(inplace=True),
            nn.MaxPool2d(kernel_size=3, stride=2))
        self.avgpool = nn.AdaptiveAvgPool2d((6, 6))
        self.classifier = nn.Sequential(
            nn.Dropout(p=dropout), nn.Linear(256 * 6 * 6, 4096), nn.ReLU(inplace=True),
            nn.Dropout(p=dropout), nn.Linear(4096, 4096), nn.ReLU(inplace=True),
            nn.Linear(4096, num_classes))

    def forward(self, x):
        x = flatten(self.avgpool(self.features(x)), 1)
        return self.classifier(x)


AlexNet_Weights = _weights_enum(__name__, "AlexNet_Weights")


alexnet = _model_builder(
    __name__, "alexnet", AlexNet_Weights, AlexNet, partial(_build, AlexNet),
    "AlexNet from `One weird trick for parallelizing convolutional neural networks`.")
