"""AlexNet (torchvision's ``models/alexnet.py``: the "One weird trick" variant)."""

from __future__ import annotations

from typing import Any

from jtorch import nn

from ..._ops.shape import flatten
from ._api import WeightsEnum, register_model
from ._utils import _imagenet1k, _load_weights, _ovewrite_named_param, handle_legacy_interface

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


class AlexNet_Weights(WeightsEnum):
    IMAGENET1K_V1 = _imagenet1k(
        "https://download.pytorch.org/models/alexnet-owt-7be5be79.pth", num_params=61100840,
        min_size=(63, 63),
        recipe="https://github.com/pytorch/vision/tree/main/references/classification"
               "#alexnet-and-vgg",
        acc1=56.522, acc5=79.066, ops=0.714, file_size=233.087)
    DEFAULT = IMAGENET1K_V1


@register_model()
@handle_legacy_interface(weights=("pretrained", AlexNet_Weights.IMAGENET1K_V1))
def alexnet(*, weights: AlexNet_Weights | None = None, progress: bool = True,
            **kwargs: Any) -> AlexNet:
    """AlexNet from `One weird trick for parallelizing convolutional neural networks`.

    Args:
        weights (AlexNet_Weights, optional): pre-trained weights (None: random init).
        progress (bool): show a download progress bar. Default True
        **kwargs: passed to ``AlexNet``.
    """
    weights = AlexNet_Weights.verify(weights)
    if weights is not None:
        _ovewrite_named_param(kwargs, "num_classes", len(weights.meta["categories"]))
    return _load_weights(AlexNet(**kwargs), weights, progress)
