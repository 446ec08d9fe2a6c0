"""``torchvision.ops``: the layers torchvision's classification models are built from.

Differences from torchvision: the detection operators (``nms``, ``batched_nms``,
``roi_align``, ``roi_pool``, ``box_iou``, ``deform_conv2d``) raise NotImplementedError.
"""

from ..._core.errors import missing_function
from .misc import (
           MLP as MLP,
           Conv2dNormActivation as Conv2dNormActivation,
           Conv3dNormActivation as Conv3dNormActivation,
           FrozenBatchNorm2d as FrozenBatchNorm2d,
           Permute as Permute,
           SqueezeExcitation as SqueezeExcitation,
)
from .stochastic_depth import (
           StochasticDepth as StochasticDepth,
           stochastic_depth as stochastic_depth,
)

__all__ = ["Conv2dNormActivation", "Conv3dNormActivation", "FrozenBatchNorm2d", "MLP",
           "Permute", "SqueezeExcitation", "StochasticDepth", "stochastic_depth"]

nms = missing_function("torchvision.ops.nms")
batched_nms = missing_function("torchvision.ops.batched_nms")
roi_align = missing_function("torchvision.ops.roi_align")
roi_pool = missing_function("torchvision.ops.roi_pool")
box_iou = missing_function("torchvision.ops.box_iou")
deform_conv2d = missing_function("torchvision.ops.deform_conv2d")
