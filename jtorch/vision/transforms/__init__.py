"""``torchvision.transforms``: image transforms on PIL images, tensors and (jtorch extension)
NumPy ``H x W (x C)`` images; ``transforms.v2`` has the v2 names; ``transforms.functional`` the
operations behind them. See docs/vision.md."""

from . import autoaugment, functional, transforms, v2
from ._augment import (
           ColorJitter as ColorJitter,
           GaussianBlur as GaussianBlur,
           Grayscale as Grayscale,
           RandomAdjustSharpness as RandomAdjustSharpness,
           RandomApply as RandomApply,
           RandomAutocontrast as RandomAutocontrast,
           RandomChoice as RandomChoice,
           RandomEqualize as RandomEqualize,
           RandomGrayscale as RandomGrayscale,
           RandomInvert as RandomInvert,
           RandomOrder as RandomOrder,
           RandomPosterize as RandomPosterize,
           RandomRotation as RandomRotation,
           RandomSolarize as RandomSolarize,
)
from ._augment_geometry import (
           ElasticTransform as ElasticTransform,
           FiveCrop as FiveCrop,
           LinearTransformation as LinearTransformation,
           RandomAffine as RandomAffine,
           RandomErasing as RandomErasing,
           RandomPerspective as RandomPerspective,
           TenCrop as TenCrop,
)
from .autoaugment import (
           AugMix as AugMix,
           AutoAugment as AutoAugment,
           AutoAugmentPolicy as AutoAugmentPolicy,
           RandAugment as RandAugment,
           TrivialAugmentWide as TrivialAugmentWide,
)
from .functional import InterpolationMode as InterpolationMode
from .transforms import (
           CenterCrop as CenterCrop,
           Compose as Compose,
           ConvertImageDtype as ConvertImageDtype,
           Lambda as Lambda,
           Normalize as Normalize,
           Pad as Pad,
           PILToTensor as PILToTensor,
           RandomCrop as RandomCrop,
           RandomHorizontalFlip as RandomHorizontalFlip,
           RandomResizedCrop as RandomResizedCrop,
           RandomVerticalFlip as RandomVerticalFlip,
           Resize as Resize,
           ToPILImage as ToPILImage,
           ToTensor as ToTensor,
)

__all__ = ["AugMix", "AutoAugment", "AutoAugmentPolicy", "CenterCrop", "ColorJitter", "Compose",
           "ConvertImageDtype", "ElasticTransform",
           "FiveCrop", "GaussianBlur", "Grayscale", "InterpolationMode", "Lambda",
           "LinearTransformation", "Normalize", "PILToTensor", "Pad", "RandAugment",
           "RandomAdjustSharpness", "RandomAffine", "RandomApply", "RandomAutocontrast",
           "RandomChoice", "RandomCrop",
           "RandomEqualize", "RandomErasing", "RandomGrayscale", "RandomHorizontalFlip",
           "RandomInvert", "RandomOrder", "RandomPerspective", "RandomPosterize",
           "RandomResizedCrop", "RandomRotation", "RandomSolarize", "RandomVerticalFlip",
           "Resize", "TenCrop", "ToPILImage", "ToTensor", "TrivialAugmentWide", "autoaugment",
           "functional", "transforms", "v2"]

