"""``torchvision.ops``: the layers torchvision's classification models are built from, the
box functions, the box losses and the focal loss.

Differences from torchvision: ``nms`` and ``batched_nms`` run eagerly only (their output's
length depends on the values); the other detection operators (``roi_align``, ``roi_pool``,
``deform_conv2d``...) and the names in ``_NOT_IMPLEMENTED`` raise NotImplementedError.
"""

from ..._core.errors import missing_function, missing_names
from .box_losses import (
           complete_box_iou_loss as complete_box_iou_loss,
           distance_box_iou_loss as distance_box_iou_loss,
           generalized_box_iou_loss as generalized_box_iou_loss,
)
from .boxes import (
           box_area as box_area,
           box_convert as box_convert,
           box_iou as box_iou,
           clip_boxes_to_image as clip_boxes_to_image,
           complete_box_iou as complete_box_iou,
           distance_box_iou as distance_box_iou,
           generalized_box_iou as generalized_box_iou,
           masks_to_boxes as masks_to_boxes,
           remove_small_boxes as remove_small_boxes,
           sigmoid_focal_loss as sigmoid_focal_loss,
)
from .misc import (
           MLP as MLP,
           Conv2dNormActivation as Conv2dNormActivation,
           Conv3dNormActivation as Conv3dNormActivation,
           FrozenBatchNorm2d as FrozenBatchNorm2d,
           Permute as Permute,
           SqueezeExcitation as SqueezeExcitation,
)
from .nms import batched_nms as batched_nms, nms as nms
from .stochastic_depth import (
           StochasticDepth as StochasticDepth,
           stochastic_depth as stochastic_depth,
)

__all__ = ["Conv2dNormActivation", "Conv3dNormActivation", "FrozenBatchNorm2d", "MLP", "Permute",
           "SqueezeExcitation", "StochasticDepth", "batched_nms", "box_area", "box_convert",
           "box_iou", "clip_boxes_to_image", "complete_box_iou", "complete_box_iou_loss",
           "distance_box_iou", "distance_box_iou_loss", "generalized_box_iou",
           "generalized_box_iou_loss", "masks_to_boxes", "nms", "remove_small_boxes",
           "sigmoid_focal_loss", "stochastic_depth"]

roi_align = missing_function("torchvision.ops.roi_align")
roi_pool = missing_function("torchvision.ops.roi_pool")
deform_conv2d = missing_function("torchvision.ops.deform_conv2d")

# torchvision 0.28's other public names (its __all__)
_NOT_IMPLEMENTED = (
    "DeformConv2d", "DropBlock2d", "DropBlock3d", "FeaturePyramidNetwork", "MultiScaleRoIAlign",
    "PSRoIAlign", "PSRoIPool", "RoIAlign", "RoIPool", "drop_block2d", "drop_block3d",
    "ps_roi_align", "ps_roi_pool")
__getattr__ = missing_names("torchvision.ops", _NOT_IMPLEMENTED)
