"""``torch.nn.LinearCrossEntropyLoss``: a Linear layer and the cross entropy of its logits."""

from __future__ import annotations

import math

from .. import functional as F
from .linear import Linear
from .linear_cross_entropy_options import LinearCrossEntropyOptions
from .loss import _WeightedLoss

__all__ = ["LinearCrossEntropyLoss", "LinearCrossEntropyOptions"]


class LinearCrossEntropyLoss(_WeightedLoss):
    """Cross entropy between ``Linear(in_features, num_classes * prod(out_features))(input)``,
    seen as logits of shape ``(N, C, *out_features)``, and ``target``.

    Args:
        in_features, num_classes: sizes of the linear map's input and of the classes.
        out_features: ``(d_1, ..., d_K)`` for a K-dimensional loss. Default ``()``.
        bias: the linear map adds a bias. Default ``False``.
        device, dtype: of the linear map's parameters.
        reduction, weight, ignore_index, label_smoothing, options: as
            :func:`~jtorch.nn.functional.linear_cross_entropy`.

    Shape:
        Input ``(in_features)`` or ``(N, in_features)``; target and output as
        :func:`~jtorch.nn.functional.linear_cross_entropy`.

    Attributes:
        linear: the :class:`Linear` layer; its weight is stored flat,
            ``(C * prod(out_features), in_features)``, and reshaped in ``forward``.
    """

    __constants__ = ["num_classes", "out_features", "reduction", "ignore_index",
                     "label_smoothing"]

    def __init__(self, in_features, num_classes, *, out_features=(), bias=False, device=None,
                 dtype=None, reduction="mean", weight=None, ignore_index=None,
                 label_smoothing=0.0, options=None):
        if weight is not None and tuple(weight.shape) != (num_classes,):
            raise RuntimeError(f"expected weight shape to be {(num_classes,)}, got "
                               f"{tuple(weight.shape)}")
        if label_smoothing < 0 or label_smoothing > 1.0:
            raise RuntimeError("expected label_smoothing to be in range [0, 1], got "
                               f"{label_smoothing}")
        super().__init__(weight=weight, size_average=None, reduce=None, reduction=reduction)
        self.num_classes = num_classes
        self.out_features = out_features
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing
        self.linear = Linear(in_features, math.prod(out_features, start=num_classes),
                             bias=bias, device=device, dtype=dtype)
        self.options = options

    def forward(self, input, target):
        shape = (self.num_classes, *self.out_features)
        linear_weight = self.linear.weight.reshape((*shape, self.linear.in_features))
        bias = self.linear.bias.reshape(shape) if self.linear.bias is not None else None
        return F.linear_cross_entropy(input, linear_weight, target, linear_bias=bias,
                                      weight=self.weight, reduction=self.reduction,
                                      ignore_index=self.ignore_index,
                                      label_smoothing=self.label_smoothing, options=self.options)

    def extra_repr(self):
        return (f"in_features={self.linear.in_features}, num_classes={self.num_classes}, "
                f"out_features={self.out_features}, bias={self.linear.bias is not None}, "
                f"reduction={self.reduction}, ignore_index={self.ignore_index}, "
                f"label_smoothing={self.label_smoothing}, options={self.options}")
