"""``torchvision.models.detection``: the two-stage detectors with torchvision's builders,
module structure, state_dict keys and COCO weights enums: Faster R-CNN (``faster_rcnn``),
Mask R-CNN (``mask_rcnn``) and Keypoint R-CNN (``keypoint_rcnn``), with their parts
(``_utils``, ``anchor_utils``, ``backbone_utils``, ``generalized_rcnn``, ``image_list``,
``roi_heads``, ``rpn``, ``transform``), and the one-stage RetinaNet (``retinanet``) and
FCOS (``fcos``). SSD (``ssd``, ``ssdlite``) and SSD's ``anchor_utils.DefaultBoxGenerator``
import, but each of their builders, classes and weights enums is a stand-in that raises
NotImplementedError naming the torchvision API when called, made or read (see
``.._stand_ins``)."""

from .._stand_ins import fill
from . import (
    _utils as _utils,
    anchor_utils as anchor_utils,
    backbone_utils as backbone_utils,
    faster_rcnn as faster_rcnn,
    fcos as fcos,
    generalized_rcnn as generalized_rcnn,
    image_list as image_list,
    keypoint_rcnn as keypoint_rcnn,
    mask_rcnn as mask_rcnn,
    retinanet as retinanet,
    roi_heads as roi_heads,
    rpn as rpn,
    transform as transform,
)
from .faster_rcnn import (
    FasterRCNN as FasterRCNN,
    FasterRCNN_MobileNet_V3_Large_320_FPN_Weights as FasterRCNN_MobileNet_V3_Large_320_FPN_Weights,
    FasterRCNN_MobileNet_V3_Large_FPN_Weights as FasterRCNN_MobileNet_V3_Large_FPN_Weights,
    FasterRCNN_ResNet50_FPN_V2_Weights as FasterRCNN_ResNet50_FPN_V2_Weights,
    FasterRCNN_ResNet50_FPN_Weights as FasterRCNN_ResNet50_FPN_Weights,
    fasterrcnn_mobilenet_v3_large_320_fpn as fasterrcnn_mobilenet_v3_large_320_fpn,
    fasterrcnn_mobilenet_v3_large_fpn as fasterrcnn_mobilenet_v3_large_fpn,
    fasterrcnn_resnet50_fpn as fasterrcnn_resnet50_fpn,
    fasterrcnn_resnet50_fpn_v2 as fasterrcnn_resnet50_fpn_v2,
)
from .fcos import (
    FCOS as FCOS,
    FCOS_ResNet50_FPN_Weights as FCOS_ResNet50_FPN_Weights,
    fcos_resnet50_fpn as fcos_resnet50_fpn,
)
from .keypoint_rcnn import (
    KeypointRCNN as KeypointRCNN,
    KeypointRCNN_ResNet50_FPN_Weights as KeypointRCNN_ResNet50_FPN_Weights,
    keypointrcnn_resnet50_fpn as keypointrcnn_resnet50_fpn,
)
from .mask_rcnn import (
    MaskRCNN as MaskRCNN,
    MaskRCNN_ResNet50_FPN_V2_Weights as MaskRCNN_ResNet50_FPN_V2_Weights,
    MaskRCNN_ResNet50_FPN_Weights as MaskRCNN_ResNet50_FPN_Weights,
    maskrcnn_resnet50_fpn as maskrcnn_resnet50_fpn,
    maskrcnn_resnet50_fpn_v2 as maskrcnn_resnet50_fpn_v2,
)
from .retinanet import (
    RetinaNet as RetinaNet,
    RetinaNet_ResNet50_FPN_V2_Weights as RetinaNet_ResNet50_FPN_V2_Weights,
    RetinaNet_ResNet50_FPN_Weights as RetinaNet_ResNet50_FPN_Weights,
    retinanet_resnet50_fpn as retinanet_resnet50_fpn,
    retinanet_resnet50_fpn_v2 as retinanet_resnet50_fpn_v2,
)

__all__ = sorted(fill("detection", globals()) + faster_rcnn.__all__ + keypoint_rcnn.__all__
                 + mask_rcnn.__all__ + retinanet.__all__ + fcos.__all__)
del fill
