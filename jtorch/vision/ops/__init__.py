"""``torchvision.ops``: the layers torchvision's classification models are built from, the
box functions, the box losses and the focal loss, and the RoI operators of the detection
models (RoI Align and pooling, their position-sensitive forms, ``MultiScaleRoIAlign``,
``FeaturePyramidNetwork``), DropBlock and deformable convolution: all of torchvision 0.28's
``torchvision.ops.__all__``.

Differences from torchvision: ``nms`` and ``batched_nms`` run eagerly only (their output's
length depends on the values), as do ``roi_align``/``ps_roi_align`` with an adaptive
``sampling_ratio <= 0``.
"""

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
from .deform_conv import DeformConv2d as DeformConv2d, deform_conv2d as deform_conv2d
from .drop_block import (
           DropBlock2d as DropBlock2d,
           DropBlock3d as DropBlock3d,
           drop_block2d as drop_block2d,
           drop_block3d as drop_block3d,
)
from .feature_pyramid_network import FeaturePyramidNetwork as FeaturePyramidNetwork
from .misc import (
           MLP as MLP,
           Conv2dNormActivation as Conv2dNormActivation,
           Conv3dNormActivation as Conv3dNormActivation,
           FrozenBatchNorm2d as FrozenBatchNorm2d,
           Permute as Permute,
           SqueezeExcitation as SqueezeExcitation,
)
from .nms import batched_nms as batched_nms, nms as nms
from .poolers import MultiScaleRoIAlign as MultiScaleRoIAlign
from .ps_roi_align import PSRoIAlign as PSRoIAlign, ps_roi_align as ps_roi_align
from .ps_roi_pool import PSRoIPool as PSRoIPool, ps_roi_pool as ps_roi_pool
from .roi_align import RoIAlign as RoIAlign, roi_align as roi_align
from .roi_pool import RoIPool as RoIPool, roi_pool as roi_pool
from .stochastic_depth import (
           StochasticDepth as StochasticDepth,
           stochastic_depth as stochastic_depth,
)

__all__ = ["Conv2dNormActivation", "Conv3dNormActivation", "DeformConv2d", "DropBlock2d",
           "DropBlock3d", "FeaturePyramidNetwork", "FrozenBatchNorm2d", "MLP",
           "MultiScaleRoIAlign", "PSRoIAlign", "PSRoIPool", "Permute", "RoIAlign", "RoIPool",
           "SqueezeExcitation", "StochasticDepth", "batched_nms", "box_area", "box_convert",
           "box_iou", "clip_boxes_to_image", "complete_box_iou", "complete_box_iou_loss",
           "deform_conv2d", "distance_box_iou", "distance_box_iou_loss", "drop_block2d",
           "drop_block3d", "generalized_box_iou", "generalized_box_iou_loss", "masks_to_boxes",
           "nms", "ps_roi_align", "ps_roi_pool", "remove_small_boxes", "roi_align", "roi_pool",
           "sigmoid_focal_loss", "stochastic_depth"]
