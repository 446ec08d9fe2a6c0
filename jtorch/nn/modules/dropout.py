"""Dropout modules (``torch.nn.modules.dropout``): identity in eval mode; in training one key
per call from the default generator (see ``jtorch/_ops/nn_dropout.py``)."""

from __future__ import annotations

from .. import functional as F
from ._generated import CallsFunctional
from .module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
           "FeatureAlphaDropout"]


class _DropoutNd(CallsFunctional, Module):
    __constants__ = ["p", "inplace"]

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input):
        return self._functional(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd, functional=F.dropout):
    """Zeroes each element with probability ``p`` while training, scaling the rest by
    ``1 / (1 - p)``."""


class Dropout1d(_DropoutNd, functional=F.dropout1d):
    """Zeroes whole channels of (N, C, L) or (C, L) inputs."""


class Dropout2d(_DropoutNd, functional=F.dropout2d):
    """Zeroes whole channels of (N, C, H, W) or (C, H, W) inputs."""


class Dropout3d(_DropoutNd, functional=F.dropout3d):
    """Zeroes whole channels of (N, C, D, H, W) or (C, D, H, W) inputs."""


class AlphaDropout(_DropoutNd):
    """Alpha dropout (``inplace`` is stored but not used, as in PyTorch)."""

    def forward(self, input):
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """Channel-wise alpha dropout (``inplace`` is stored but not used, as in PyTorch)."""

    def forward(self, input):
        return F.feature_alpha_dropout(input, self.p, self.training)
