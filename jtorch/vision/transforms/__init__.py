"""``torchvision.transforms``: image transforms on PIL images, tensors and (jtorch extension)
NumPy ``H x W (x C)`` images; ``transforms.v2`` has the v2 names; ``transforms.functional`` the
operations behind them. See docs/vision.md."""

from . import functional, v2
from ._augment import (
           ColorJitter as ColorJitter,
           GaussianBlur as GaussianBlur,
           Grayscale as Grayscale,
           RandomApply as RandomApply,
           RandomGrayscale as RandomGrayscale,
           RandomRotation as RandomRotation,
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

__all__ = ["CenterCrop", "ColorJitter", "Compose", "ConvertImageDtype", "GaussianBlur",
           "Grayscale", "InterpolationMode", "Lambda", "Normalize", "PILToTensor", "Pad",
           "RandomApply",
           "RandomCrop", "RandomGrayscale", "RandomHorizontalFlip", "RandomResizedCrop",
           "RandomRotation", "RandomVerticalFlip", "Resize", "ToPILImage", "ToTensor",
           "functional", "v2"]
