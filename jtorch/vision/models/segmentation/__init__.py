"""``torchvision.models.segmentation``: FCN, DeepLabV3 and Lite R-ASPP with torchvision's
builders, module structure, state_dict keys and weights enums (COCO with the Pascal VOC
categories). The heads and ASPP are where torchvision has them: ``fcn.FCNHead``,
``deeplabv3.DeepLabHead``, ``deeplabv3.ASPP`` (``ASPPConv``, ``ASPPPooling``),
``lraspp.LRASPPHead``."""

from . import deeplabv3 as deeplabv3, fcn as fcn, lraspp as lraspp
from .deeplabv3 import (
    DeepLabV3 as DeepLabV3,
    DeepLabV3_MobileNet_V3_Large_Weights as DeepLabV3_MobileNet_V3_Large_Weights,
    DeepLabV3_ResNet50_Weights as DeepLabV3_ResNet50_Weights,
    DeepLabV3_ResNet101_Weights as DeepLabV3_ResNet101_Weights,
    deeplabv3_mobilenet_v3_large as deeplabv3_mobilenet_v3_large,
    deeplabv3_resnet50 as deeplabv3_resnet50,
    deeplabv3_resnet101 as deeplabv3_resnet101,
)
from .fcn import (
    FCN as FCN,
    FCN_ResNet50_Weights as FCN_ResNet50_Weights,
    FCN_ResNet101_Weights as FCN_ResNet101_Weights,
    fcn_resnet50 as fcn_resnet50,
    fcn_resnet101 as fcn_resnet101,
)
from .lraspp import (
    LRASPP as LRASPP,
    LRASPP_MobileNet_V3_Large_Weights as LRASPP_MobileNet_V3_Large_Weights,
    lraspp_mobilenet_v3_large as lraspp_mobilenet_v3_large,
)

# torchvision's (the union of its submodules' __all__)
__all__ = ["DeepLabV3", "DeepLabV3_MobileNet_V3_Large_Weights", "DeepLabV3_ResNet101_Weights",
           "DeepLabV3_ResNet50_Weights", "FCN", "FCN_ResNet101_Weights", "FCN_ResNet50_Weights",
           "LRASPP", "LRASPP_MobileNet_V3_Large_Weights", "deeplabv3_mobilenet_v3_large",
           "deeplabv3_resnet101", "deeplabv3_resnet50", "fcn_resnet101", "fcn_resnet50",
           "lraspp_mobilenet_v3_large"]
