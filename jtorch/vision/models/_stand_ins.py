"""Stand-ins for the torchvision models jtorch does not implement: ``detection``'s SSD
detectors (``ssd``, ``ssdlite``) and ``quantization`` (and their submodules) are
importable, and each of torchvision 0.28's public builders, classes and weights enums in them
is a stand-in (``jtorch._core.errors.missing_function``/``missing_class``): calling a builder,
making a model or reading a weights enum's member raises NotImplementedError naming the
torchvision API.
Subclassing, ``isinstance`` and ``from ... import`` work, as for the other stand-ins."""

from __future__ import annotations

import sys
import types

from ..._core.errors import missing_attribute, missing_class, missing_function, not_implemented

# per package, per submodule: "<the submodule's __all__>|<its other public classes and
# functions>" (torchvision 0.28). A package exports the union of its submodules' __all__, as
# torchvision's `from .faster_rcnn import *` lines do.
_PACKAGES = {
    "detection": {  # SSD (the R-CNNs, RetinaNet and FCOS are implemented)
        "ssd": "SSD300_VGG16_Weights ssd300_vgg16|SSD SSDClassificationHead "
               "SSDFeatureExtractorVGG SSDHead SSDRegressionHead SSDScoringHead",
        "ssdlite": "SSDLite320_MobileNet_V3_Large_Weights ssdlite320_mobilenet_v3_large"
                   "|SSDLiteClassificationHead SSDLiteFeatureExtractorMobileNet SSDLiteHead "
                   "SSDLiteRegressionHead",
    },
    "quantization": {
        "googlenet": "QuantizableGoogLeNet GoogLeNet_QuantizedWeights googlenet"
                     "|QuantizableBasicConv2d QuantizableInception QuantizableInceptionAux",
        "inception": "QuantizableInception3 Inception_V3_QuantizedWeights inception_v3"
                     "|QuantizableBasicConv2d QuantizableInceptionA QuantizableInceptionAux "
                     "QuantizableInceptionB QuantizableInceptionC QuantizableInceptionD "
                     "QuantizableInceptionE",
        "mobilenet": "QuantizableMobileNetV2 MobileNet_V2_QuantizedWeights mobilenet_v2 "
                     "QuantizableMobileNetV3 MobileNet_V3_Large_QuantizedWeights "
                     "mobilenet_v3_large|",
        "mobilenetv2": "QuantizableMobileNetV2 MobileNet_V2_QuantizedWeights mobilenet_v2"
                       "|QuantizableInvertedResidual",
        "mobilenetv3": "QuantizableMobileNetV3 MobileNet_V3_Large_QuantizedWeights "
                       "mobilenet_v3_large|QuantizableInvertedResidual "
                       "QuantizableSqueezeExcitation",
        "resnet": "QuantizableResNet ResNet18_QuantizedWeights ResNet50_QuantizedWeights "
                  "ResNeXt101_32X8D_QuantizedWeights ResNeXt101_64X4D_QuantizedWeights "
                  "resnet18 resnet50 resnext101_32x8d resnext101_64x4d"
                  "|QuantizableBasicBlock QuantizableBottleneck",
        "shufflenetv2": "QuantizableShuffleNetV2 ShuffleNet_V2_X0_5_QuantizedWeights "
                        "ShuffleNet_V2_X1_0_QuantizedWeights "
                        "ShuffleNet_V2_X1_5_QuantizedWeights "
                        "ShuffleNet_V2_X2_0_QuantizedWeights shufflenet_v2_x0_5 "
                        "shufflenet_v2_x1_0 shufflenet_v2_x1_5 shufflenet_v2_x2_0"
                        "|QuantizableInvertedResidual",
        "utils": "|quantize_model",
    },
}


class _MissingWeightsType(type):
    """The class of a weights enum stand-in: reading a member (``.DEFAULT``, ``["DEFAULT"]``)
    or iterating raises NotImplementedError naming the enum."""

    def __getattr__(cls, name):
        if name.startswith("_"):
            raise AttributeError(name)
        raise missing_attribute(f"{cls._jtorch_missing}.{name}")

    def __getitem__(cls, name):
        raise not_implemented(f"{cls._jtorch_missing}[{name!r}]")

    def __iter__(cls):
        raise not_implemented(cls._jtorch_missing)


class _MissingWeights(metaclass=_MissingWeightsType):
    """The base of the weights enum stand-ins."""


def _stand_in(api: str):
    name = api.rsplit(".", 1)[-1]
    if name.endswith("Weights"):
        return missing_class(api, bases=(_MissingWeights,))
    return missing_class(api) if name[0].isupper() else missing_function(api)


def fill(package: str, namespace: dict) -> list[str]:
    """Puts the stand-ins of ``jtorch.vision.models.<package>`` into ``namespace`` (the
    package's globals) and registers its submodules (in ``sys.modules`` and as attributes);
    returns the package's ``__all__``. A name a package exports is one object in the package
    and in every submodule that has it."""
    api = f"torchvision.models.{package}"
    objects: dict[str, object] = {}
    exported: list[str] = []
    for spec in _PACKAGES[package].values():
        for name in spec.partition("|")[0].split():
            if name not in objects:
                objects[name] = _stand_in(f"{api}.{name}")
                exported.append(name)
    for sub, spec in _PACKAGES[package].items():
        public, _, others = spec.partition("|")
        module = types.ModuleType(f"{namespace['__name__']}.{sub}",
                                  f"Stand-in for ``{api}.{sub}`` (not implemented in jtorch).")
        for name in public.split():
            setattr(module, name, objects[name])
        for name in others.split():
            setattr(module, name, _stand_in(f"{api}.{sub}.{name}"))
        if public:
            module.__all__ = public.split()
        sys.modules.setdefault(module.__name__, module)
        namespace[sub] = sys.modules[module.__name__]
    namespace.update(objects)
    return sorted(exported)
