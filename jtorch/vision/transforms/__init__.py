"""``torchvision.transforms``: image transforms on PIL images, tensors and (jtorch extension)
NumPy ``H x W (x C)`` images; ``transforms.v2`` has the v2 names; ``transforms.functional`` the
operations behind them. See docs/vision.md."""

from . import functional, v2
from ._augment import ColorJitter as ColorJitter
from ._augment import Grayscale as Grayscale
from ._augment import RandomApply as RandomApply
from ._augment import RandomGrayscale as RandomGrayscale
from ._augment import RandomRotation as RandomRotation
from .functional import InterpolationMode as InterpolationMode
from .transforms import CenterCrop as CenterCrop
from .transforms import Compose as Compose
from .transforms import ConvertImageDtype as ConvertImageDtype
from .transforms import Lambda as Lambda
from .transforms import Normalize as Normalize
from .transforms import Pad as Pad
from .transforms import PILToTensor as PILToTensor
from .transforms import RandomCrop as RandomCrop
from .transforms import RandomHorizontalFlip as RandomHorizontalFlip
from .transforms import RandomResizedCrop as RandomResizedCrop
from .transforms import RandomVerticalFlip as RandomVerticalFlip
from .transforms import Resize as Resize
from .transforms import ToPILImage as ToPILImage
from .transforms import ToTensor as ToTensor

__all__ = ["CenterCrop", "ColorJitter", "Compose", "ConvertImageDtype", "Grayscale",
           "InterpolationMode", "Lambda", "Normalize", "PILToTensor", "Pad", "RandomApply",
           "RandomCrop", "RandomGrayscale", "RandomHorizontalFlip", "RandomResizedCrop",
           "RandomRotation", "RandomVerticalFlip", "Resize", "ToPILImage", "ToTensor",
           "functional", "v2"]
