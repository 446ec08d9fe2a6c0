"""``torchvision.models``: classification models with torchvision's constructors, module
structure, state_dict keys and weights enums (see docs/vision.md for the list)."""

from . import _api as _api, _utils as _utils
from ._api import (
    Weights as Weights,
    WeightsEnum as WeightsEnum,
    get_model as get_model,
    get_model_builder as get_model_builder,
    get_model_weights as get_model_weights,
    get_weight as get_weight,
    list_models as list_models,
)
from .alexnet import AlexNet as AlexNet, AlexNet_Weights as AlexNet_Weights, alexnet as alexnet
from .efficientnet import (
    EfficientNet as EfficientNet,
    EfficientNet_B0_Weights as EfficientNet_B0_Weights,
    efficientnet_b0 as efficientnet_b0,
)
from .mobilenetv2 import (
    MobileNet_V2_Weights as MobileNet_V2_Weights,
    MobileNetV2 as MobileNetV2,
    mobilenet_v2 as mobilenet_v2,
)
from .mobilenetv3 import (
    MobileNet_V3_Large_Weights as MobileNet_V3_Large_Weights,
    MobileNet_V3_Small_Weights as MobileNet_V3_Small_Weights,
    MobileNetV3 as MobileNetV3,
    mobilenet_v3_large as mobilenet_v3_large,
    mobilenet_v3_small as mobilenet_v3_small,
)
from .resnet import (
    ResNet as ResNet,
    ResNet18_Weights as ResNet18_Weights,
    ResNet34_Weights as ResNet34_Weights,
    ResNet50_Weights as ResNet50_Weights,
    ResNet101_Weights as ResNet101_Weights,
    resnet18 as resnet18,
    resnet34 as resnet34,
    resnet50 as resnet50,
    resnet101 as resnet101,
)
from .squeezenet import (
    SqueezeNet as SqueezeNet,
    SqueezeNet1_0_Weights as SqueezeNet1_0_Weights,
    SqueezeNet1_1_Weights as SqueezeNet1_1_Weights,
    squeezenet1_0 as squeezenet1_0,
    squeezenet1_1 as squeezenet1_1,
)
from .vgg import (
    VGG as VGG,
    VGG11_BN_Weights as VGG11_BN_Weights,
    VGG11_Weights as VGG11_Weights,
    VGG16_BN_Weights as VGG16_BN_Weights,
    VGG16_Weights as VGG16_Weights,
    vgg11 as vgg11,
    vgg11_bn as vgg11_bn,
    vgg16 as vgg16,
    vgg16_bn as vgg16_bn,
)
from .vision_transformer import (
    VisionTransformer as VisionTransformer,
    ViT_B_16_Weights as ViT_B_16_Weights,
    vit_b_16 as vit_b_16,
)

__all__ = [
    "AlexNet",
    "AlexNet_Weights",
    "EfficientNet",
    "EfficientNet_B0_Weights",
    "MobileNetV2",
    "MobileNetV3",
    "MobileNet_V2_Weights",
    "MobileNet_V3_Large_Weights",
    "MobileNet_V3_Small_Weights",
    "ResNet",
    "ResNet101_Weights",
    "ResNet18_Weights",
    "ResNet34_Weights",
    "ResNet50_Weights",
    "SqueezeNet",
    "SqueezeNet1_0_Weights",
    "SqueezeNet1_1_Weights",
    "VGG",
    "VGG11_BN_Weights",
    "VGG11_Weights",
    "VGG16_BN_Weights",
    "VGG16_Weights",
    "ViT_B_16_Weights",
    "VisionTransformer",
    "Weights",
    "WeightsEnum",
    "alexnet",
    "alexnet",
    "efficientnet_b0",
    "get_model",
    "get_model_builder",
    "get_model_weights",
    "get_weight",
    "list_models",
    "mobilenet_v2",
    "mobilenet_v3_large",
    "mobilenet_v3_small",
    "resnet101",
    "resnet18",
    "resnet34",
    "resnet50",
    "squeezenet1_0",
    "squeezenet1_1",
    "vgg11",
    "vgg11_bn",
    "vgg16",
    "vgg16_bn",
    "vit_b_16",
]
